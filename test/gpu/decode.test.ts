import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randArray, randInts, randn } from '../helpers/rng';
import { asRef, view, type Dispatch, type Gpu, type TensorRef } from '../../src/gpu/runtime';
import { residualForward } from '../../src/gpu/ops/elementwise';
import {
  attentionDecode,
  createDecodeBuffers,
  decodeAdvance,
  encoderDecode,
  kvCacheWrite,
  kvFork,
  sampleStep,
  type DecodeBuffers,
  type DecodeDims,
} from '../../src/gpu/ops/decode';
import {
  attentionDecodeRef,
  encoderDecodeRef,
  kvCacheWriteRef,
  kvForkRef,
  sampleStepRef,
  type SampleStateRef,
} from '../../src/reference/decode';

const buf = (gpu: Gpu, data: Float32Array | Uint32Array, label: string): TensorRef => asRef(gpu.upload(data, label));
const setStep = (gpu: Gpu, st: DecodeBuffers, s: number): void => gpu.write(st.step, new Uint32Array(st.step.size / 4).fill(s));

describe('encoder_decode', () => {
  it('embeds the token at the current position of each sequence, s = 0 .. Tmax-1', async () => {
    const gpu = await testGpu();
    const dims: DecodeDims = { B: 3, C: 20, NH: 4, Tmax: 9, V: 11 };
    const rand = mulberry32(1);
    const tokens = randInts(rand, dims.B * dims.Tmax, dims.V);
    const wte = randArray(rand, dims.V * dims.C);
    const wpe = randArray(rand, (dims.Tmax + 2) * dims.C); // the model's context may exceed Tmax
    const st = createDecodeBuffers(gpu, dims.B, dims.Tmax);
    gpu.write(st.tokens, tokens);
    const out = asRef(gpu.createBuffer(dims.B * dims.C * 4, 'x'));
    const d = await encoderDecode(gpu, out, st, buf(gpu, wte, 'wte'), buf(gpu, wpe, 'wpe'), dims);
    for (const s of [0, 1, 5, dims.Tmax - 1]) {
      setStep(gpu, st, s);
      gpu.run([d]);
      const want = new Float64Array(dims.B * dims.C);
      encoderDecodeRef(want, tokens, wte, wpe, s, dims);
      // one f32 addition of two f32 values: half an ulp
      expectClose(`encoder_decode s=${s}`, await gpu.readF32(out), want, { atol: 1e-7, rtol: 1e-6 });
    }
  });
});

// Both designs on any adapter: 'tiled' (a workgroup per head, chunks of 64 positions, tree
// reductions) and 'direct' (an invocation per head, serial online softmax, no workgroup memory),
// the latter in both entries: vec4 slots (heads of a multiple of 4) and the f32 array (any head).
describe.each(['tiled', 'direct', 'direct-scalar'] as const)('kv_cache_write + attention_decode (%s)', (design) => {
  const variant = design === 'tiled' ? 'tiled' : 'direct';
  // HS 16, 32 and 64 (the direct design's largest); Tmax above the 64-position chunk of the
  // tiled kernel; scale 4 makes scores of several hundred (near one-hot softmax), exercising the
  // running max.
  it.each([
    { C: 48, NH: 3, Tmax: 70, scale: 1 },
    { C: 64, NH: 2, Tmax: 67, scale: 4 },
    { C: 32, NH: 1, Tmax: 5, scale: 1 },
    { C: 128, NH: 2, Tmax: 9, scale: 1 },
    // head size 10: the direct design's vec4 entry cannot take it
    { C: 40, NH: 4, Tmax: 6, scale: 1 },
    // head size 4 (one vec4 slot), five heads
    { C: 20, NH: 5, Tmax: 7, scale: 2 },
  ])('match the references step by step for C=$C NH=$NH Tmax=$Tmax qkv scale $scale', async ({ C, NH, Tmax, scale }) => {
    const gpu = await testGpu();
    const dims: DecodeDims = { B: 3, C, NH, Tmax, V: 8 };
    const rand = mulberry32(C * 100 + Tmax);
    const cacheLen = dims.B * C * Tmax;
    // caches start with garbage: only written positions may change, attention reads only 0..s
    const k0 = randArray(rand, cacheLen, 50);
    const v0 = randArray(rand, cacheLen, 50);
    const kc = buf(gpu, k0, 'kcache');
    const vc = buf(gpu, v0, 'vcache');
    const kRef = Float64Array.from(k0);
    const vRef = Float64Array.from(v0);
    const qkvBuf = asRef(gpu.createBuffer(dims.B * 3 * C * 4, 'qkv'));
    const out = asRef(gpu.createBuffer(dims.B * C * 4, 'att'));
    const st = createDecodeBuffers(gpu, dims.B, Tmax);
    const direct = design === 'direct-scalar' ? 'scalar' : undefined;
    const step = [await kvCacheWrite(gpu, kc, vc, qkvBuf, st, dims), await attentionDecode(gpu, out, qkvBuf, kc, vc, st, dims, { variant, direct })];
    const label = step[1].label ?? '';
    expect(label.includes('attention_decode_direct')).toBe(variant === 'direct');
    expect(label.includes('attention_decode_direct_scalar')).toBe(design === 'direct-scalar' || (design === 'direct' && (C / NH) % 4 !== 0));
    const checked = new Set([0, 1, 2, 63, 64, 65, Tmax - 1]);
    for (let s = 0; s < Tmax; s++) {
      const qkv = randn(rand, dims.B * 3 * C, scale);
      gpu.write(qkvBuf, qkv);
      setStep(gpu, st, s);
      gpu.run(step);
      kvCacheWriteRef(kRef, vRef, qkv, s, dims);
      if (!checked.has(s)) continue;
      const want = new Float64Array(dims.B * C);
      attentionDecodeRef(want, qkv, kRef, vRef, s, dims);
      // f32 dot products of length HS and an f32 softmax over s+1 positions
      expectClose(`attention_decode s=${s}`, await gpu.readF32(out), want, { atol: 2e-5, rtol: 1e-4 });
    }
    expectClose('kcache', await gpu.readF32(kc), kRef, { atol: 0, rtol: 0 });
    expectClose('vcache', await gpu.readF32(vc), vRef, { atol: 0, rtol: 0 });
  });

  it('writes nothing when the step is past Tmax', async () => {
    const gpu = await testGpu();
    const dims: DecodeDims = { B: 2, C: 16, NH: 2, Tmax: 4, V: 8 };
    const init = randArray(mulberry32(5), dims.B * dims.C * dims.Tmax);
    const kc = buf(gpu, init, 'kcache');
    const vc = buf(gpu, init, 'vcache');
    const st = createDecodeBuffers(gpu, dims.B, dims.Tmax);
    setStep(gpu, st, dims.Tmax);
    gpu.run([await kvCacheWrite(gpu, kc, vc, buf(gpu, randArray(mulberry32(6), dims.B * 3 * dims.C), 'qkv'), st, dims)]);
    expectClose('kcache untouched', await gpu.readF32(kc), init, { atol: 0, rtol: 0 });
  });
});

describe('kv_fork', () => {
  it.each([
    { L: 2, fork: { src: 1, dst0: 2, count: 3, upTo: 5 } },
    { L: 1, fork: { src: 5, dst0: 0, count: 5, upTo: 7 } },
    { L: 3, fork: { src: 0, dst0: 1, count: 1, upTo: 1 } },
    // every group of 3 slots at once (the decoder's shared prefill): 0 → 1, 2; 3 → 4, 5
    { L: 2, fork: { src: 0, dst0: 1, count: 2, upTo: 4, groups: 2, stride: 3 } },
    { L: 1, fork: { src: 1, dst0: 0, count: 1, upTo: 7, groups: 3, stride: 2 } },
  ])('copies exactly positions 0..upTo-1 of the source slot, L=$L $fork', async ({ L, fork }) => {
    const gpu = await testGpu();
    const dims: DecodeDims = { B: 6, C: 24, NH: 3, Tmax: 7, V: 8 };
    const n = L * dims.B * dims.C * dims.Tmax;
    const rand = mulberry32(L + fork.upTo);
    const k0 = randArray(rand, n);
    const v0 = randArray(rand, n);
    const kc = buf(gpu, k0, 'kcache');
    const vc = buf(gpu, v0, 'vcache');
    gpu.run([await kvFork(gpu, kc, vc, dims, fork)]);
    const kRef = Float64Array.from(k0);
    const vRef = Float64Array.from(v0);
    kvForkRef(kRef, vRef, dims, fork);
    expectClose('kcache', await gpu.readF32(kc), kRef, { atol: 0, rtol: 0 });
    expectClose('vcache', await gpu.readF32(vc), vRef, { atol: 0, rtol: 0 });
    expect(kRef.some((x, i) => x !== k0[i])).toBe(true); // the reference did copy something
  });

  it('rejects a source inside the destination range and sizes that are not L caches', async () => {
    const gpu = await testGpu();
    const dims: DecodeDims = { B: 4, C: 8, NH: 2, Tmax: 4, V: 8 };
    const kc = asRef(gpu.createBuffer(dims.B * dims.C * dims.Tmax * 4, 'k'));
    await expect(kvFork(gpu, kc, kc, dims, { src: 2, dst0: 1, count: 2, upTo: 2 })).rejects.toThrow(/destination range/);
    // group 1's source (slot 1) is group 0's destination
    await expect(kvFork(gpu, kc, kc, dims, { src: 0, dst0: 1, count: 1, upTo: 2, groups: 2, stride: 1 })).rejects.toThrow(/destination range/);
    // groups 1 apart overlap their 2 destinations (slot 2 twice)
    await expect(kvFork(gpu, kc, kc, dims, { src: 0, dst0: 1, count: 2, upTo: 2, groups: 1, stride: 0 })).resolves.toBeDefined();
    const dims8 = { ...dims, B: 8 };
    const kc8 = asRef(gpu.createBuffer(dims8.B * dims.C * dims.Tmax * 4, 'k8'));
    await expect(kvFork(gpu, kc8, kc8, dims8, { src: 6, dst0: 0, count: 2, upTo: 2, groups: 2, stride: 1 })).rejects.toThrow(/overlap/);
    await expect(kvFork(gpu, kc, kc, dims, { src: 0, dst0: 1, count: 1, upTo: 2, groups: 3, stride: 2 })).rejects.toThrow(/out of range/);
    const odd = view(kc.buffer, 0, dims.C * dims.Tmax);
    await expect(kvFork(gpu, odd, odd, dims, { src: 0, dst0: 1, count: 1, upTo: 2 })).rejects.toThrow(/L x/);
  });
});

describe('decode_advance', () => {
  it('increments every sequence\'s own position once per dispatch (more sequences than a workgroup)', async () => {
    const gpu = await testGpu();
    const B = 70;
    const st = createDecodeBuffers(gpu, B, 8);
    gpu.write(st.step, Uint32Array.from({ length: B }, (_, b) => b % 5));
    const d = await decodeAdvance(gpu, st);
    gpu.run([d, d, d]);
    expect(Array.from(await gpu.readU32(st.step))).toEqual(Array.from({ length: B }, (_, b) => (b % 5) + 3));
  });
});

// A toy decoder where every kernel of the decode step feeds the next: logits = x + attention(x)
// + bias (C = V), qkv taken per step from a precomputed slab. Prompts of different lengths.
describe('a decode loop', () => {
  const dims: DecodeDims = { B: 3, C: 64, NH: 4, Tmax: 12, V: 64 };
  const { B, C, Tmax, V } = dims;
  const prompts = [[5], [7, 1, 3], [2, 2, 9, 4, 11]];
  const opts = { temperature: 1, topK: 0, topP: 1, seed: 42, eosToken: 3, maxNew: 6 };
  const rand = mulberry32(77);
  const wte = randn(rand, V * C, 2);
  const wpe = randn(rand, Tmax * C, 0.5);
  const qkvAll = randn(rand, Tmax * B * 3 * C); // B*3C = 576 floats: 256-byte aligned per step
  const bias = randn(rand, B * V);

  async function record(gpu: Gpu): Promise<{ st: DecodeBuffers; steps: Dispatch[][] }> {
    const st = createDecodeBuffers(gpu, B, Tmax);
    const tokens = new Uint32Array(B * Tmax);
    prompts.forEach((p, b) => tokens.set(p, b * Tmax));
    gpu.write(st.tokens, tokens);
    gpu.write(st.promptLen, Uint32Array.from(prompts, (p) => p.length));
    const x = asRef(gpu.createBuffer(B * C * 4, 'x'));
    const att = asRef(gpu.createBuffer(B * C * 4, 'att'));
    const h = asRef(gpu.createBuffer(B * C * 4, 'h'));
    const logits = asRef(gpu.createBuffer(B * V * 4, 'logits'));
    const kc = asRef(gpu.createBuffer(B * C * Tmax * 4, 'k'));
    const vc = asRef(gpu.createBuffer(B * C * Tmax * 4, 'v'));
    const qkvBuf = gpu.upload(qkvAll, 'qkvAll');
    const sampler = await sampleStep(gpu, st, logits, dims, opts);
    const fixed = {
      enc: await encoderDecode(gpu, x, st, buf(gpu, wte, 'wte'), buf(gpu, wpe, 'wpe'), dims),
      h: await residualForward(gpu, h, x, att, B * C),
      logits: await residualForward(gpu, logits, h, buf(gpu, bias, 'bias'), B * V),
      adv: await decodeAdvance(gpu, st),
    };
    const steps: Dispatch[][] = [];
    for (let s = 0; s < Tmax; s++) {
      const qkv = view(qkvBuf, s * B * 3 * C, B * 3 * C);
      steps.push([
        fixed.enc,
        await kvCacheWrite(gpu, kc, vc, qkv, st, dims),
        await attentionDecode(gpu, att, qkv, kc, vc, st, dims),
        fixed.h,
        fixed.logits,
        sampler.dispatch,
        fixed.adv,
      ]);
    }
    return { st, steps };
  }

  async function readState(gpu: Gpu, st: DecodeBuffers) {
    return {
      tokens: await gpu.readU32(st.tokens),
      done: await gpu.readU32(st.done),
      logp: await gpu.readF32(st.logp),
      entropy: await gpu.readF32(st.entropy),
      step: await gpu.readU32(st.step),
    };
  }

  function simulate(): SampleStateRef {
    const st: SampleStateRef = {
      tokens: new Uint32Array(B * Tmax),
      promptLen: Uint32Array.from(prompts, (p) => p.length),
      done: new Uint32Array(B),
      logp: new Float64Array(B * Tmax),
      entropy: new Float64Array(B * Tmax),
    };
    prompts.forEach((p, b) => st.tokens.set(p, b * Tmax));
    const kc = new Float64Array(B * C * Tmax);
    const vc = new Float64Array(B * C * Tmax);
    const x = new Float64Array(B * C);
    const att = new Float64Array(B * C);
    for (let s = 0; s < Tmax; s++) {
      const qkv = qkvAll.subarray(s * B * 3 * C, (s + 1) * B * 3 * C);
      encoderDecodeRef(x, st.tokens, wte, wpe, s, dims);
      kvCacheWriteRef(kc, vc, qkv, s, dims);
      attentionDecodeRef(att, qkv, kc, vc, s, dims);
      const logits = x.map((xi, i) => xi + att[i] + bias[i]);
      sampleStepRef(st, logits, s, dims, opts);
    }
    return st;
  }

  it('gives the same result in one command buffer as in one submit per step, and matches the reference', async () => {
    const gpu = await testGpu();
    const one = await record(gpu);
    gpu.run(one.steps.flat(), 'whole generation');
    const a = await readState(gpu, one.st);
    const per = await record(gpu);
    for (const s of per.steps) gpu.run(s, 'one step');
    const b = await readState(gpu, per.st);
    expect(a.step[0]).toBe(Tmax);
    expect(b.tokens).toEqual(a.tokens);
    expect(b.done).toEqual(a.done);
    expect(b.logp).toEqual(a.logp);
    expect(b.entropy).toEqual(a.entropy);

    const ref = simulate();
    expect(Array.from(a.tokens)).toEqual(Array.from(ref.tokens));
    expect(Array.from(a.done)).toEqual(Array.from(ref.done));
    // f32 logits of magnitude ~5 through a softmax over V = 64
    expectClose('logp', a.logp, ref.logp, { atol: 2e-5, rtol: 1e-5 });
    expectClose('entropy', a.entropy, ref.entropy, { atol: 2e-5, rtol: 1e-5 });
    expect(ref.done.some((d) => d === 1)).toBe(true);
  });
});
