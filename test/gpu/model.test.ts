// Whole model, GPU against the float64 reference (llm.c's test_gpt2 in spirit): logits, the
// objective, every gradient tensor by name, ten AdamW steps of losses, and overfitting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { compareClose, expectClose } from '../helpers/tolerance';
import { mulberry32, randInts } from '../helpers/rng';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS, type GPTConfig } from '../../src/model/config';
import { buildTensorTable, decayFlags } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { buildLoraTable, initLora } from '../../src/model/lora';
import { GPT, DEFAULT_ADAMW } from '../../src/model/gpt';
import { gptBackwardRef, gptForwardRef, type RefBatch } from '../../src/reference/gpt';
import { adamwRef, gradNormSqRef } from '../../src/reference/optim';

const cfg: GPTConfig = GPT_PRESETS.tiny;
const B = 2;
const T = 12;

function makeBatch(seed: number, T = 12): RefBatch & { tokens: Uint32Array; targets: Uint32Array; w: Float32Array; e: Float32Array } {
  const rand = mulberry32(seed);
  const BT = B * T;
  const tokens = randInts(rand, BT, cfg.vocabSize);
  const targets = randInts(rand, BT, cfg.vocabSize);
  const w = new Float32Array(BT);
  const e = new Float32Array(BT);
  for (let i = 0; i < BT; i++) {
    // a mix of CE-like weights, policy-gradient-like signed weights, masked positions and an entropy term
    w[i] = i % 5 === 4 ? 0 : (rand() * 2 - 1) / BT;
    e[i] = i % 3 === 0 ? (rand() - 0.5) / BT : 0;
  }
  return { B, T, tokens, targets, w, e };
}

// Both kernel designs: 'direct' (what this machine's adapter picks) and 'tiled' (what real GPUs run).
describe.each(['direct', 'tiled'] as const)('GPT on the GPU vs the float64 reference (%s kernels)', (variant) => {
  let gpu: Gpu;
  const table = buildTensorTable(cfg);
  // Larger than GPT-2 init so that activations and gradients are far from trivial.
  const init = initParams(cfg, table, 7).map((x) => x * 3);

  beforeAll(async () => {
    gpu = await testGpu();
    gpu.variantOverride = variant;
  });
  afterAll(() => {
    gpu.variantOverride = null;
  });

  it('logits, log-probs, entropy and every gradient tensor match by name', async () => {
    const batch = makeBatch(1);
    const model = await GPT.create(gpu, cfg, init, { B, T });
    model.setBatch(batch.tokens, batch.targets, batch.w, batch.e);
    model.gradients();
    const [logits, logp, entropy, grads] = await Promise.all([
      gpu.readF32(model.batch.logits), gpu.readF32(model.batch.logp), gpu.readF32(model.batch.entropy), model.readGrads(),
    ]);
    const params64 = Float64Array.from(init);
    const fw = gptForwardRef(cfg, table, params64, batch);
    const g64 = gptBackwardRef(cfg, table, params64, batch, fw);
    // float32 activations through 2 blocks: errors of ~1e-5 relative are expected
    expectClose('logits', logits, fw.logits, { atol: 2e-4, rtol: 2e-4 });
    expectClose('logp', logp, fw.logp, { atol: 2e-4, rtol: 2e-4 });
    expectClose('entropy', entropy, fw.entropy, { atol: 2e-4, rtol: 2e-4 });
    const failures: string[] = [];
    for (const t of table.tensors) {
      const got = grads.subarray(t.offset, t.offset + t.size);
      const want = g64.subarray(t.offset, t.offset + t.size);
      let scale = 0;
      for (const x of want) scale = Math.max(scale, Math.abs(x));
      // gradients are compared relative to the tensor's largest entry (float32 sums over B*T rows)
      const r = compareClose(`grad ${t.name}`, got, want, { atol: 1e-3 * scale + 1e-7, rtol: 1e-3 });
      if (!r.ok) failures.push(r.message);
    }
    expect(failures).toEqual([]);
  });

  it.each([
    ['all four projections', undefined, false],
    ['a subset (qkv and the MLP output)', ['attn.c_attn', 'mlp.c_proj'] as const, false],
    // as the engine's adapter sets run: the base is a buffer shared with another model
    ['all four projections over a shared base buffer', undefined, true],
  ])('LoRA on %s: adapter gradients match, the base stays frozen', async (_what, targets, sharedBase) => {
    const batch = makeBatch(3);
    const spec = { name: 'solver', rank: 4, alpha: 8, ...(targets ? { targets } : {}) };
    const atable = buildLoraTable(cfg, spec);
    // B is zero at initialisation; a random B exercises every term of the adapter's backward
    const rand = mulberry32(11);
    const ainit = initLora(atable, 5).map((x, i) => (x === 0 && atable.tensors.some((t) => i >= t.offset && i < t.offset + t.size) ? (rand() - 0.5) * 0.2 : x));
    const base = sharedBase ? gpu.upload(init, 'shared-base') : undefined;
    const model = await GPT.create(gpu, cfg, sharedBase ? null : init, { B, T }, { adapter: { spec, table: atable, init: ainit }, ...(base ? { baseParams: base } : {}) });
    model.setBatch(batch.tokens, batch.targets, batch.w, batch.e);
    model.gradients();
    const [logits, grads] = await Promise.all([gpu.readF32(model.batch.logits), model.readGrads()]);
    const ref = { spec, table: atable, params: Float64Array.from(ainit) };
    const fw = gptForwardRef(cfg, table, Float64Array.from(init), batch, ref);
    const g64 = gptBackwardRef(cfg, table, Float64Array.from(init), batch, fw, ref);
    expectClose('logits with adapter', logits, fw.logits, { atol: 2e-4, rtol: 2e-4 });
    const failures: string[] = [];
    for (const t of atable.tensors) {
      const want = g64.subarray(t.offset, t.offset + t.size);
      let scale = 0;
      for (const x of want) scale = Math.max(scale, Math.abs(x));
      expect(scale).toBeGreaterThan(0);
      const r = compareClose(`grad ${t.name}`, grads.subarray(t.offset, t.offset + t.size), want, { atol: 1e-3 * scale + 1e-7, rtol: 1e-3 });
      if (!r.ok) failures.push(r.message);
    }
    expect(failures).toEqual([]);
    model.step();
    expect(await model.readParams()).toEqual(init);
    expect(await model.readTrainable()).not.toEqual(ainit);
  });

  it('ten AdamW steps give the reference losses', async () => {
    const batch = makeBatch(2);
    const BT = B * T;
    // plain next-token cross-entropy on one fixed batch
    const w = new Float32Array(BT).fill(-1 / BT);
    const ce = { ...batch, w, e: new Float32Array(BT) };
    const model = await GPT.create(gpu, cfg, init, { B, T });
    const hyper = { ...DEFAULT_ADAMW, lr: 1e-3 };
    model.setHyper(hyper);
    model.setBatch(ce.tokens, ce.targets, ce.w, ce.e);
    const flags = decayFlags(table);
    const p64 = Float64Array.from(init);
    const m64 = new Float64Array(p64.length), v64 = new Float64Array(p64.length);
    const gotLosses: number[] = [];
    const wantLosses: number[] = [];
    for (let s = 1; s <= 10; s++) {
      model.step();
      const logp = await gpu.readF32(model.batch.logp);
      gotLosses.push(-logp.reduce((a, x) => a + x, 0) / BT);
      const fw = gptForwardRef(cfg, table, p64, ce);
      wantLosses.push(-fw.logp.reduce((a, x) => a + x, 0) / BT);
      const g = gptBackwardRef(cfg, table, p64, ce, fw);
      const normSq = gradNormSqRef(g);
      adamwRef(p64, m64, v64, g, flags, normSq, { ...hyper, step: s });
    }
    expect(gotLosses[9]).toBeLessThan(gotLosses[0]);
    expectClose('losses over 10 AdamW steps', gotLosses, wantLosses, { atol: 1e-3, rtol: 1e-3 });
    // The key biases get an exactly-zero gradient (softmax is shift invariant), so float32
    // noise of ~1e-9 there is normalised by Adam into lr-sized steps: compare everything else.
    const params = await model.readParams();
    const keep = (i: number) => !table.tensors.some((t) => t.name.endsWith('attn.c_attn.bias') && i >= t.offset + cfg.nEmbd && i < t.offset + 2 * cfg.nEmbd);
    const idx = [...params.keys()].filter(keep);
    expect(idx.length).toBeGreaterThan(params.length - cfg.nLayer * cfg.nEmbd - 1);
    expectClose('parameters after 10 steps', idx.map((i) => params[i]), idx.map((i) => p64[i]), { atol: 2e-4, rtol: 2e-3 });
  });

  it('several recorded lengths: a short batch runs on a prefix of the buffers and matches the reference at its own T', async () => {
    const model = await GPT.create(gpu, cfg, init, { B, T, lengths: [5, T] });
    expect(model.lengths).toEqual([5, T]);
    expect([1, 5, 6, T, T + 3].map((n) => model.lengthFor(n))).toEqual([5, 5, T, T, T]);
    const params64 = Float64Array.from(init);
    // short, long, then short again: each batch runs the lists of its own length
    for (const [seed, Tb] of [[11, 5], [12, T], [13, 5]] as const) {
      const batch = makeBatch(seed, Tb);
      model.setBatch(batch.tokens, batch.targets, batch.w, batch.e);
      expect(model.activeT).toBe(Tb);
      model.gradients();
      const n = B * Tb;
      const [logp, entropy, logits, grads] = await Promise.all([
        gpu.readF32({ ...model.batch.logp, size: n * 4 }), gpu.readF32({ ...model.batch.entropy, size: n * 4 }),
        gpu.readF32({ ...model.batch.logits, size: n * cfg.vocabSize * 4 }), model.readGrads(),
      ]);
      const fw = gptForwardRef(cfg, table, params64, batch);
      const g64 = gptBackwardRef(cfg, table, params64, batch, fw);
      expectClose(`logits T=${Tb}`, logits, fw.logits, { atol: 2e-4, rtol: 2e-4 });
      expectClose(`logp T=${Tb}`, logp, fw.logp, { atol: 2e-4, rtol: 2e-4 });
      expectClose(`entropy T=${Tb}`, entropy, fw.entropy, { atol: 2e-4, rtol: 2e-4 });
      let scale = 0;
      for (const x of g64) scale = Math.max(scale, Math.abs(x));
      expectClose(`gradients T=${Tb}`, grads, g64, { atol: 1e-3 * scale + 1e-7, rtol: 1e-3 });
    }
    // a batch of a length that was not recorded is refused, saying which are
    expect(() => model.setBatch(new Uint32Array(B * 7), new Uint32Array(B * 7))).toThrow(/T in 5, 12/);
    await expect(GPT.create(gpu, cfg, init, { B, T, lengths: [T + 1] })).rejects.toThrow(/lengths in 1\.\.12/);
  });
});

// A learning check, not a kernel check: once, with the kernels this adapter picks.
describe('GPT training', () => {
  const table = buildTensorTable(cfg);

  it('memorises a short text to near-zero loss', async () => {
    const gpu = await testGpu();
    const text = 'the cat sat on the mat;1+2=3#3';
    const ids = [...text].map((ch) => ch.charCodeAt(0) % cfg.vocabSize);
    const Tm = ids.length - 1;
    const model = await GPT.create(gpu, cfg, initParams(cfg, table, 3), { B: 1, T: Tm });
    model.setHyper({ lr: 1e-2, weightDecay: 0 });
    model.setBatch(Uint32Array.from(ids.slice(0, -1)), Uint32Array.from(ids.slice(1)), new Float32Array(Tm).fill(-1 / Tm));
    const lossNow = async () => -(await gpu.readF32(model.batch.logp)).reduce((a, x) => a + x, 0) / Tm;
    model.forward();
    const first = await lossNow();
    expect(first).toBeGreaterThan(3); // about log(64) at initialisation
    for (let s = 0; s < 150; s++) model.step();
    expect(await lossNow()).toBeLessThan(0.05);
  });
});
