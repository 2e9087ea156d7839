import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose, type Tolerance } from '../helpers/tolerance';
import { mulberry32, randArray } from '../helpers/rng';
import { attentionBackward, attentionForwardSteps, type AttentionDims } from '../../src/gpu/ops/attention';
import type { KernelVariant } from '../../src/gpu/runtime';
import { attentionBackwardRef, attentionForwardRef } from '../../src/reference/attention';
import { view, type Gpu, type TensorRef } from '../../src/gpu/runtime';

interface Buffers {
  qkv: TensorRef; // (B, T, 3C)
  out: TensorRef; // (B, T, C)
  lse: TensorRef; // (B, NH, T)
  dout: TensorRef; // (B, T, C)
  dqkv: TensorRef; // (B, T, 3C)
}

// Exact-length views: buffers are padded to 16 bytes, reads must not see the padding.
function alloc(gpu: Gpu, d: AttentionDims): Buffers {
  const n = d.B * d.T * d.C;
  const make = (len: number, label: string) => view(gpu.createBuffer(len * 4, label), 0, len);
  return {
    qkv: make(3 * n, 'qkv'),
    out: make(n, 'out'),
    lse: make(d.B * d.NH * d.T, 'lse'),
    dout: make(n, 'dout'),
    dqkv: make(3 * n, 'dqkv'),
  };
}

/** Multiplies q and k so the largest |score| over the causal entries is `target`. */
function scaleScores(qkv: Float32Array, d: AttentionDims, target: number): void {
  const { B, T, C, NH } = d;
  const HS = C / NH;
  let max = 0;
  for (let b = 0; b < B; b++)
    for (let h = 0; h < NH; h++)
      for (let t = 0; t < T; t++)
        for (let t2 = 0; t2 <= t; t2++) {
          let s = 0;
          for (let c = 0; c < HS; c++) s += qkv[(b * T + t) * 3 * C + h * HS + c] * qkv[(b * T + t2) * 3 * C + C + h * HS + c];
          max = Math.max(max, Math.abs(s) / Math.sqrt(HS));
        }
  const f = Math.sqrt(target / max);
  for (let r = 0; r < B * T; r++) for (let c = 0; c < 2 * C; c++) qkv[r * 3 * C + c] *= f;
}

// Both designs run on any adapter: 'tiled' (flash kernels) and 'direct' (materialised scores,
// matmul_direct products and row kernels).
const VARIANTS: KernelVariant[] = ['tiled', 'direct'];

async function checkCase(d: AttentionDims, seed: number, variant: KernelVariant, maxScore?: number): Promise<void> {
  const gpu = await testGpu();
  const { B, T, C, NH } = d;
  const rand = mulberry32(seed);
  const qkv = randArray(rand, B * T * 3 * C);
  if (maxScore !== undefined) scaleScores(qkv, d, maxScore);
  const dout = randArray(rand, B * T * C);
  const bufs = alloc(gpu, d);
  gpu.write(bufs.qkv, qkv);
  gpu.write(bufs.dout, dout);
  // Stale values in the outputs: every element must be overwritten (`=`, not `+=`, no gaps).
  gpu.write(bufs.out, randArray(rand, B * T * C, 9));
  gpu.write(bufs.lse, randArray(rand, B * NH * T, 9));
  gpu.write(bufs.dqkv, randArray(rand, B * T * 3 * C, 9));

  const wantOut = new Float64Array(B * T * C);
  const wantLse = new Float64Array(B * NH * T);
  attentionForwardRef(wantOut, wantLse, qkv, d);
  gpu.run(await attentionForwardSteps(gpu, bufs.out, bufs.lse, bufs.qkv, d, { variant }));
  const tag = `${variant} B=${B} T=${T} C=${C} NH=${NH}${maxScore ? ` |s|<=${maxScore}` : ''}`;
  // f32 rounding of a score is ~1e-7 * |s|, and P inherits it: errors grow with the largest score.
  const errScale = Math.max(1, (maxScore ?? 0) / 5);
  const fwdTol: Tolerance = { atol: 1e-6 * errScale, rtol: 1e-5 };
  expectClose(`out ${tag}`, await gpu.readF32(bufs.out), wantOut, fwdTol);
  expectClose(`lse ${tag}`, await gpu.readF32(bufs.lse), wantLse, fwdTol);

  // The backward sees the reference's out and lse (rounded to f32, as on both sides), so it is
  // checked independently of the GPU forward.
  const out32 = Float32Array.from(wantOut);
  const lse32 = Float32Array.from(wantLse);
  gpu.write(bufs.out, out32);
  gpu.write(bufs.lse, lse32);
  const wantDqkv = new Float64Array(B * T * 3 * C);
  attentionBackwardRef(wantDqkv, dout, qkv, out32, lse32, d);
  gpu.run(await attentionBackward(gpu, bufs.dqkv, bufs.dout, bufs.qkv, bufs.out, bufs.lse, d, { variant }));
  // Absolute tolerance relative to the largest gradient: small entries are differences of
  // O(gradScale) terms (dS = P (dP - D)), so their relative error is unbounded.
  const gradScale = Math.max(...wantDqkv.map(Math.abs));
  expectClose(`dqkv ${tag}`, await gpu.readF32(bufs.dqkv), wantDqkv, { atol: 2e-6 * gradScale * errScale, rtol: 1e-5 });
}

describe.each(VARIANTS)('attention forward and backward match the float64 reference (%s variant)', (variant) => {
  it.each<[string, AttentionDims]>([
    ['T=1', { B: 2, T: 1, C: 32, NH: 2 }],
    ['T=7 odd, HS=32', { B: 2, T: 7, C: 64, NH: 2 }],
    ['T=64, NH=4, HS=16', { B: 2, T: 64, C: 64, NH: 4 }],
    ['T=100 not a tile multiple, NH=1, HS=32', { B: 1, T: 100, C: 32, NH: 1 }],
    ['B=3, T=33 one past a workgroup', { B: 3, T: 33, C: 64, NH: 2 }],
    ['HS=64', { B: 1, T: 40, C: 128, NH: 2 }],
    ['HS=10 not a multiple of 4', { B: 2, T: 9, C: 20, NH: 2 }],
    ['T=256', { B: 1, T: 256, C: 32, NH: 2 }],
  ])('%s', async (_name, d) => {
    await checkCase(d, d.B * 1000 + d.T * 10 + d.NH, variant);
  });

  it('large logits: scores up to |100|, where exp overflows f32 without the running max', async () => {
    await checkCase({ B: 1, T: 50, C: 64, NH: 2 }, 7, variant, 100);
  });
});

describe.each(VARIANTS)('attention causality (%s variant)', (variant) => {
  it('changing tokens from t0 on leaves earlier outputs, lse and dq bit-identical', async () => {
    const gpu = await testGpu();
    const d: AttentionDims = { B: 2, T: 70, C: 32, NH: 2 };
    const { B, T, C } = d;
    const t0 = 40; // inside the second key tile, so masking within a loaded tile is exercised
    const rand = mulberry32(11);
    const qkv = randArray(rand, B * T * 3 * C);
    const dout = randArray(rand, B * T * C);
    const bufs = alloc(gpu, d);
    gpu.write(bufs.dout, dout);
    const fwd = await attentionForwardSteps(gpu, bufs.out, bufs.lse, bufs.qkv, d, { variant });
    const bwd = await attentionBackward(gpu, bufs.dqkv, bufs.dout, bufs.qkv, bufs.out, bufs.lse, d, { variant });
    const runOnce = async (x: Float32Array) => {
      gpu.write(bufs.qkv, x);
      gpu.run([...fwd, ...bwd]);
      return { out: await gpu.readF32(bufs.out), lse: await gpu.readF32(bufs.lse), dqkv: await gpu.readF32(bufs.dqkv) };
    };
    const a = await runOnce(qkv);
    const changed = qkv.slice();
    for (let b = 0; b < B; b++) for (let i = (b * T + t0) * 3 * C; i < (b + 1) * T * 3 * C; i++) changed[i] = rand() * 4 - 2;
    const z = await runOnce(changed);

    for (let b = 0; b < B; b++) {
      const rows = (x: Float32Array, width: number, from: number, to: number) => Array.from(x.subarray((b * T + from) * width, (b * T + to) * width));
      expect(rows(z.out, C, 0, t0)).toEqual(rows(a.out, C, 0, t0));
      expect(rows(z.out, C, t0, T)).not.toEqual(rows(a.out, C, t0, T));
      for (let h = 0; h < d.NH; h++) {
        const lseRow = (x: Float32Array) => Array.from(x.subarray((b * d.NH + h) * T, (b * d.NH + h) * T + t0));
        expect(lseRow(z.lse)).toEqual(lseRow(a.lse));
      }
      // dq of rows before t0 depends only on keys before t0 and on those rows' dout, out, lse
      const dq = (x: Float32Array) => Array.from({ length: t0 }, (_, t) => Array.from(x.subarray((b * T + t) * 3 * C, (b * T + t) * 3 * C + C)));
      expect(dq(z.dqkv)).toEqual(dq(a.dqkv));
    }
  });
});

