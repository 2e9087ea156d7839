// Whole-model self-tests: one forward + backward of the tiny policy against the float64
// reference covers every backward kernel (matmul, LayerNorm, GELU, attention, embeddings) in
// the order the trainer runs them; one AdamW step and the KV-cache decoder complete the engine.
import type { Gpu } from '../gpu/runtime';
import { GPT_PRESETS } from '../model/config';
import { buildTensorTable, decayFlags } from '../model/params';
import { initParams } from '../model/init';
import { GPT } from '../model/gpt';
import { Decoder } from '../model/decoder';
import { gptBackwardRef, gptForwardRef } from '../reference/gpt';
import { adamwRef, gradNormSqRef } from '../reference/optim';
import { compareClose } from '../util/tolerance';
import { mulberry32 } from '../util/rng';
import type { SelfTest, SelfTestResult } from './selftest';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
// ×3 the GPT-2 init so activations and gradients are far from trivial
const init = initParams(cfg, table, 7).map((x) => x * 3);

function batch(B: number, T: number) {
  const rand = mulberry32(B * 100 + T);
  const BT = B * T;
  const tokens = Uint32Array.from({ length: BT }, () => Math.floor(rand() * cfg.vocabSize));
  const targets = Uint32Array.from({ length: BT }, () => Math.floor(rand() * cfg.vocabSize));
  const w = Float32Array.from({ length: BT }, (_, i) => (i % 5 === 4 ? 0 : (rand() * 2 - 1) / BT));
  return { B, T, tokens, targets, w };
}

function summarise(reports: ReturnType<typeof compareClose>[]): SelfTestResult {
  const bad = reports.filter((r) => !r.ok);
  return {
    ok: bad.length === 0,
    maxAbs: Math.max(...reports.map((r) => r.maxAbs)),
    message: bad.length ? bad.map((r) => r.message).join('\n') : `${reports.length} tensors within tolerance`,
  };
}

const modelGradients: SelfTest = {
  name: 'gpt tiny: logits and every gradient tensor (all backward kernels)',
  async run(gpu: Gpu) {
    const b = batch(2, 12);
    const model = await GPT.create(gpu, cfg, init, { B: 2, T: 12 });
    model.setBatch(b.tokens, b.targets, b.w, new Float32Array(24));
    model.gradients();
    const [logits, grads] = await Promise.all([gpu.readF32(model.batch.logits), model.readGrads()]);
    const p64 = Float64Array.from(init);
    const fw = gptForwardRef(cfg, table, p64, b);
    const g = gptBackwardRef(cfg, table, p64, b, fw);
    // the tolerances of test/gpu/model.test.ts (float32 activations through two blocks)
    const reports = [compareClose('logits', logits, fw.logits, { atol: 2e-4, rtol: 2e-4 })];
    for (const t of table.tensors) {
      const want = g.subarray(t.offset, t.offset + t.size);
      const scale = want.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      reports.push(compareClose(`grad ${t.name}`, grads.subarray(t.offset, t.offset + t.size), want, { atol: 1e-3 * scale + 1e-7, rtol: 1e-3 }));
    }
    return summarise(reports);
  },
};

const adamwStep: SelfTest = {
  name: 'gpt tiny: one training step (grad norm, clip, AdamW)',
  async run(gpu: Gpu) {
    const b = batch(1, 16);
    const model = await GPT.create(gpu, cfg, init, { B: 1, T: 16 });
    model.setHyper({ lr: 1e-3 });
    model.setBatch(b.tokens, b.targets, b.w, new Float32Array(16));
    model.step();
    const p64 = Float64Array.from(init);
    const g = gptBackwardRef(cfg, table, p64, b, gptForwardRef(cfg, table, p64, b));
    adamwRef(p64, new Float64Array(p64.length), new Float64Array(p64.length), g, decayFlags(table), gradNormSqRef(g), { ...model.hyperparameters, step: 1 });
    // the first Adam step moves every parameter by ~lr; float32 noise on exactly-zero gradients
    // (the key biases) is excluded by comparing with an absolute tolerance of lr
    return summarise([compareClose('params after one step', await model.readParams(), p64, { atol: 1e-3, rtol: 1e-3 })]);
  },
};

const decoderStep: SelfTest = {
  name: 'decoder: KV-cache logits equal the full forward',
  async run(gpu: Gpu) {
    const dec = await Decoder.create(gpu, cfg, table, gpu.upload(init, 'selftest.params'), { B: 2, Tmax: 8 });
    const prompts = [[1, 5, 9, 3, 7, 11, 13], [1, 7, 2, 4, 6, 8, 10]];
    dec.start(prompts, { temperature: 0, topK: 0, topP: 1, seed: 1, eosToken: 63, maxNew: 1 });
    dec.runSteps(7);
    const logits = await gpu.readF32(dec.logits);
    const reports = prompts.map((p, b) => {
      const fw = gptForwardRef(cfg, table, Float64Array.from(init), { B: 1, T: 7, tokens: p, targets: new Uint32Array(7), w: new Float32Array(7) });
      const V = cfg.vocabSize;
      return compareClose(`seq ${b} logits at position 6`, logits.subarray(b * V, (b + 1) * V), fw.logits.subarray(6 * V, 7 * V), { atol: 1e-4, rtol: 1e-4 });
    });
    return summarise(reports);
  },
};

export const MODEL_SELF_TESTS: SelfTest[] = [modelGradients, adamwStep, decoderStep];
