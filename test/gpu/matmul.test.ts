import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose, type Tolerance } from '../helpers/tolerance';
import { mulberry32, randArray } from '../helpers/rng';
import { matmul, matmulBackward, matmulStrided, type BatchedDims, type CausalMode, type MatmulDims, type MatmulOpts, type StridedLayout } from '../../src/gpu/ops/matmul';
import { matmulBackwardRef, matmulRef } from '../../src/reference/matmul';
import type { KernelVariant } from '../../src/gpu/runtime';
import { geluForwardRef } from '../../src/reference/layers';
import { view, type Gpu, type TensorRef } from '../../src/gpu/runtime';

// Tolerance. Inputs are exact float32 values, so the only error is the kernel's float32
// rounding. Each output sums K products sequentially (per invocation, in K order); for terms
// of size s (|a|max * |b|max) the partial sums random-walk to ~ s * sqrt(k) / 3 and each
// addition rounds by up to u/2 of that (u = 2^-24), so the error has a std of ~ u * s * K / 8
// and its worst over thousands of outputs is ~ u * s * K / 2 = 3e-8 * s * K (measured:
// 2.3e-6 at K=64, 6.3e-5 at K=1536, 1.7e-4 at K=4096). The error grows like K, not sqrt(K),
// because the partial sums themselves grow like sqrt(K). atol = 1e-6 * (s * K + 4) keeps a
// ~25x margin at every K (the +4 covers single roundings of O(1) accumulate and bias terms),
// while an index or transpose bug moves outputs by O(s * sqrt(K) / 3), far outside it.
function tolFor(K: number, s = 1): Tolerance {
  return { atol: 1e-6 * (s * K + 4), rtol: 1e-6 };
}

const ref = (gpu: Gpu, data: Float32Array, label: string): TensorRef => view(gpu.upload(data, label), 0, data.length);

const VARIANTS: KernelVariant[] = ['tiled', 'direct'];

interface Case {
  dims: MatmulDims;
  opts?: MatmulOpts;
  bias?: boolean;
  seed: number;
  scale?: number;
  variant: KernelVariant;
}

/** Runs one matmul on fresh random buffers; returns the dispatch label (which entry ran). */
async function checkMatmul(gpu: Gpu, c: Case): Promise<string> {
  const { M, K, N } = c.dims;
  const s = c.scale ?? 1;
  const rand = mulberry32(c.seed);
  const a = randArray(rand, M * K, s);
  const b = randArray(rand, K * N, s);
  const bias = c.bias ? randArray(rand, N) : null;
  const init = randArray(rand, M * N);
  const out = ref(gpu, init, 'out');
  const d = await matmul(gpu, out, ref(gpu, a, 'a'), ref(gpu, b, 'b'), bias && ref(gpu, bias, 'bias'), c.dims, { ...c.opts, variant: c.variant });
  gpu.run([d]);
  const got = await gpu.readF32(out);
  const want = Float64Array.from(init);
  matmulRef(want, a, b, bias, c.dims, c.opts);
  const alpha = Math.abs(c.opts?.alpha ?? 1);
  expectClose(`${d.label} ${M}x${K}x${N}`, got, want, tolFor(K, s * s * alpha));
  return d.label;
}

// Every pipeline variant costs ~1 s of compilation on SwiftShader, so the variants are chosen
// once here and the other tests reuse them: all 16 combinations on the scalar entry, and each
// of the 4 transpose combinations on the vec4 entry, with accumulate and bias each on and off.
const COMBOS: (MatmulOpts & { bias: boolean })[] = [];
for (const transA of [false, true])
  for (const transB of [false, true])
    for (const accumulate of [false, true]) for (const bias of [false, true]) COMBOS.push({ transA, transB, accumulate, bias });
// The transpose pair the vec4 entry is tested with for (accumulate, bias) = 00, 01, 10, 11:
// the variants the model uses (tB: dinp and logits; none+bias: Conv1D forward; tA+acc: dweight)
// and tA+tB with both.
const VEC4_PAIR = ['nt', 'nn', 'tn', 'tt'];
const pairOf = (c: MatmulOpts): string => (c.transA ? 't' : 'n') + (c.transB ? 't' : 'n');
const VEC4_COMBOS = COMBOS.filter((c) => pairOf(c) === VEC4_PAIR[+!!c.accumulate * 2 + +c.bias]);
const flags = (c: MatmulOpts & { bias: boolean }): string => `tA=${+!!c.transA} tB=${+!!c.transB} acc=${+!!c.accumulate} bias=${+c.bias}`;

describe('matmul', () => {
  // M, K, N pairwise different and none a multiple of the 64x64x8 tile, so a transposed
  // operand read with the wrong stride or a swapped M/N lands on wrong (or zero) elements.
  // matmul_direct (the CPU-adapter variant) holds 8x8 blocks: 67 and 71 leave partial blocks.
  describe.each([
    { path: 'matmul', dims: { M: 67, K: 37, N: 71 }, combos: COMBOS, variant: 'tiled' as const },
    { path: 'matmul_vec4', dims: { M: 68, K: 36, N: 76 }, combos: VEC4_COMBOS, variant: 'tiled' as const },
    { path: 'matmul_direct', dims: { M: 67, K: 37, N: 71 }, combos: COMBOS, variant: 'direct' as const },
  ])('$path on $dims.M x $dims.K x $dims.N', ({ path, dims, combos, variant }) => {
    it.each(combos.map((c) => ({ c, name: flags(c) })))('$name', async ({ c }) => {
      const gpu = await testGpu();
      const { bias, ...opts } = c;
      const label = await checkMatmul(gpu, { dims, opts, bias, seed: dims.M * 131 + COMBOS.indexOf(c), variant });
      expect(label.split('[')[0]).toBe(path);
    });
  });

  it.each([
    [1, 1, 1],
    [1, 64, 1],
    [3, 5, 7],
    [17, 33, 65],
    [64, 64, 64],
    [130, 70, 200],
    [1536, 64, 64], // a training step: B*T = 16*96 rows through a C=64 layer
    [4, 4, 4],
    [5, 67, 3],
  ].flatMap(([M, K, N]) => VARIANTS.map((v) => [M, K, N, v] as const)))('handles the shape %i x %i x %i (with bias), %s variant', async (M, K, N, variant) => {
    const gpu = await testGpu();
    await checkMatmul(gpu, { dims: { M, K, N }, bias: true, seed: M * 7 + K * 3 + N, variant });
  });

  it.each(VARIANTS.flatMap((v) => [64, 61].map((V) => [V, v] as const)))('handles the tied LM head with V=%i, %s variant', async (V, variant) => {
    // decode logits[8,V] = x[8,C] @ wte[V,C]^T, and its weight gradient dwte[V,C] += dlogits^T @ x
    const gpu = await testGpu();
    await checkMatmul(gpu, { dims: { M: 8, K: 64, N: V }, opts: { transB: true }, seed: V, variant });
    await checkMatmul(gpu, { dims: { M: V, K: 8, N: 64 }, opts: { transA: true, accumulate: true }, seed: V + 1, variant });
  });

  it.each(VARIANTS.flatMap((v) => [0.25, -1.5, 0].map((a) => [a, v] as const)))('scales by alpha=%f (LoRA deltas), with accumulate, %s variant', async (alpha, variant) => {
    const gpu = await testGpu();
    await checkMatmul(gpu, { dims: { M: 40, K: 8, N: 64 }, opts: { alpha, accumulate: true, transA: true }, seed: 9, variant });
    await checkMatmul(gpu, { dims: { M: 19, K: 5, N: 23 }, opts: { alpha, accumulate: true, transB: true }, bias: true, seed: 10, variant });
  });

  it.each(VARIANTS)('handles large magnitudes, %s variant', async (variant) => {
    const gpu = await testGpu();
    await checkMatmul(gpu, { dims: { M: 33, K: 100, N: 36 }, bias: true, scale: 1000, seed: 12, variant });
  });

  it.each([
    { M: 20, K: 24, N: 28 },
    { M: 9, K: 13, N: 11 },
  ].flatMap((d) => VARIANTS.map((variant) => ({ ...d, variant }))))('binds sub-ranges at 256-byte offsets and writes nothing outside out ($M x $K x $N, $variant)', async ({ variant, ...dims }) => {
    const gpu = await testGpu();
    const { M, K, N } = dims;
    const rand = mulberry32(M);
    const a = randArray(rand, M * K);
    const b = randArray(rand, K * N);
    const bias = randArray(rand, N);
    const offA = 64;
    const offB = offA + Math.ceil((M * K) / 64) * 64 + 64;
    const offBias = offB + Math.ceil((K * N) / 64) * 64;
    const pool = new Float32Array(offBias + 64).fill(NaN);
    pool.set(a, offA);
    pool.set(b, offB);
    pool.set(bias, offBias);
    const inputs = gpu.upload(pool, 'pool');
    const outLen = 128 + M * N + 64;
    const outBuf = gpu.upload(new Float32Array(outLen).fill(-7), 'out');
    const d = await matmul(gpu, view(outBuf, 128, M * N), view(inputs, offA, M * K), view(inputs, offB, K * N), view(inputs, offBias, N), dims, { variant });
    gpu.run([d]);
    const got = await gpu.readF32(view(outBuf, 0, outLen));
    const want = new Float64Array(M * N);
    matmulRef(want, a, b, bias, dims);
    expectClose('out range', got.subarray(128, 128 + M * N), want, tolFor(K));
    expect(got.subarray(0, 128).every((v) => v === -7)).toBe(true);
    expect(got.subarray(128 + M * N).every((v) => v === -7)).toBe(true);
  });

  it('rejects a view too short for its dims', async () => {
    const gpu = await testGpu();
    const small = ref(gpu, new Float32Array(10), 'small');
    await expect(matmul(gpu, small, small, small, null, { M: 4, K: 4, N: 4 })).rejects.toThrow(/out holds 10 elements, needs 16/);
  });

  // The decoder's MLP: fch = GELU(ln @ W + b) in one dispatch. Results of both signs and up to
  // ~±12 (GELU's flat, curved and linear parts), on the vec4 and scalar entries of each variant.
  it.each([
    { M: 33, K: 64, N: 256 },
    { M: 9, K: 13, N: 11 },
  ].flatMap((d) => VARIANTS.map((variant) => ({ ...d, variant }))))('applies the GELU epilogue after the bias ($M x $K x $N, $variant)', async ({ variant, ...dims }) => {
    const gpu = await testGpu();
    const { M, K, N } = dims;
    const rand = mulberry32(M + N);
    const a = randArray(rand, M * K, 1.5);
    const b = randArray(rand, K * N, 1.5);
    const bias = randArray(rand, N, 2);
    const out = ref(gpu, new Float32Array(M * N).fill(NaN), 'out');
    const d = await matmul(gpu, out, ref(gpu, a, 'a'), ref(gpu, b, 'b'), ref(gpu, bias, 'bias'), dims, { gelu: true, variant });
    expect(d.label).toContain('gelu');
    gpu.run([d]);
    const pre = new Float64Array(M * N);
    matmulRef(pre, a, b, bias, dims);
    expect(Math.min(...pre)).toBeLessThan(-3);
    expect(Math.max(...pre)).toBeGreaterThan(3);
    const want = new Float64Array(M * N);
    geluForwardRef(want, pre, M * N);
    // GELU's slope is at most 1.13: the matmul's rounding carries over; tanh adds ~1e-7 relative
    const t = tolFor(K, 2.25);
    expectClose(`${d.label} ${M}x${K}x${N}`, await gpu.readF32(out), want, { atol: t.atol * 1.2, rtol: 1e-5 });
  });

  it('rejects the GELU epilogue with accumulate', async () => {
    const gpu = await testGpu();
    const x = ref(gpu, new Float32Array(16), 'x');
    const y = ref(gpu, new Float32Array(16), 'y');
    await expect(matmul(gpu, x, y, y, null, { M: 4, K: 4, N: 4 }, { gelu: true, accumulate: true })).rejects.toThrow(/GELU epilogue/);
  });
});

describe('matmulBackward', () => {
  it.each([
    { M: 96, K: 64, N: 192, accumulateDinp: false }, // a qkv projection: vec4 everywhere
    { M: 37, K: 21, N: 45, accumulateDinp: true },   // scalar path, residual-stream accumulation
    { M: 130, K: 3, N: 70, accumulateDinp: false },  // dbias over several column blocks and M not a multiple of 8
  ].flatMap((c) => VARIANTS.map((variant) => ({ ...c, variant }))))('matches the reference for $M x $K x $N (accumulateDinp=$accumulateDinp, $variant)', async ({ M, K, N, accumulateDinp, variant }) => {
    const gpu = await testGpu();
    const rand = mulberry32(M + K + N);
    const inp = randArray(rand, M * K);
    const weight = randArray(rand, K * N);
    const dout = randArray(rand, M * N);
    // pre-filled gradients expose `=` where `+=` is required and vice versa
    const dinp0 = randArray(rand, M * K);
    const dweight0 = randArray(rand, K * N);
    const dbias0 = randArray(rand, N);
    const [dinp, dweight, dbias] = [ref(gpu, dinp0, 'dinp'), ref(gpu, dweight0, 'dweight'), ref(gpu, dbias0, 'dbias')];
    const ds = await matmulBackward(gpu, dinp, dweight, dbias, ref(gpu, dout, 'dout'), ref(gpu, inp, 'inp'), ref(gpu, weight, 'weight'), { M, K, N }, { accumulateDinp, variant });
    gpu.run(ds);
    const want = { dinp: Float64Array.from(dinp0), dweight: Float64Array.from(dweight0), dbias: Float64Array.from(dbias0) };
    matmulBackwardRef(want.dinp, want.dweight, want.dbias, dout, inp, weight, { M, K, N }, { accumulateDinp });
    expectClose('dinp', await gpu.readF32(dinp), want.dinp, tolFor(N));
    expectClose('dweight', await gpu.readF32(dweight), want.dweight, tolFor(M));
    expectClose('dbias', await gpu.readF32(dbias), want.dbias, tolFor(M));
  });

  it.each(VARIANTS)('skips null gradients (%s variant)', async (variant) => {
    const gpu = await testGpu();
    const [M, K, N] = [5, 6, 7];
    const rand = mulberry32(77);
    const ones = ref(gpu, new Float32Array(M * N).fill(1), 'ones');
    const dbias = ref(gpu, new Float32Array(N).fill(2), 'dbias');
    const ds = await matmulBackward(gpu, null, null, dbias, ones, ref(gpu, randArray(rand, M * K), 'inp'), ref(gpu, randArray(rand, K * N), 'w'), { M, K, N }, { variant });
    expect(ds.map((d) => d.label)).toEqual([variant === 'direct' ? 'matmul_bias_backward_direct' : 'matmul_bias_backward']);
    gpu.run(ds);
    expect(Array.from(await gpu.readF32(dbias))).toEqual(new Array(N).fill(2 + M));
  });
});

// Float64 reference of matmulStrided: each batch entry gathered into dense op(A), op(B), then
// the causal restriction applied as the kernel defines it (per 8-row block of out).
function stridedRef(
  out: Float64Array,
  a: Float32Array,
  b: Float32Array,
  dims: BatchedDims,
  L: Required<StridedLayout>,
  opts: { transA?: boolean; transB?: boolean; accumulate?: boolean; alpha?: number; causal?: CausalMode },
): void {
  const { M, K, N, batch, inner } = dims;
  const base = (z: number, off: number, outer: number, innerStride: number) => off + Math.floor(z / inner) * outer + (z % inner) * innerStride;
  for (let z = 0; z < batch; z++) {
    const [ab, bb, cb] = [base(z, L.aOffset, L.aOuter, L.aInner), base(z, L.bOffset, L.bOuter, L.bInner), base(z, L.cOffset, L.cOuter, L.cInner)];
    const opA = (m: number, k: number) => a[ab + (opts.transA ? k * L.lda + m : m * L.lda + k)];
    const opB = (k: number, n: number) => b[bb + (opts.transB ? n * L.ldb + k : k * L.ldb + n)];
    for (let m = 0; m < M; m++) {
      const m0 = m - (m % 8);
      const [k0, k1] = opts.causal === 'kUpToRow' ? [0, Math.min(K, m0 + 8)] : opts.causal === 'kFromRow' ? [m0, K] : [0, K];
      for (let n = 0; n < N; n++) {
        if (opts.causal === 'lower' && n - (n % 8) > m0 + 7) continue; // block left as it was
        let sum = 0;
        for (let k = k0; k < k1; k++) sum += opA(m, k) * opB(k, n);
        const o = cb + m * L.ldc + n;
        out[o] = (opts.alpha ?? 1) * sum + (opts.accumulate ? out[o] : 0);
      }
    }
  }
}

describe('matmulStrided (batched and strided, the CPU kernel on any adapter)', () => {
  // Attention's products: 3 sequences x 2 heads, T=19 positions (partial 8-blocks), head size
  // 5, heads inside rows of width 3C = 30 ([q | k | v]); scores dense [B, NH, T, T].
  const [Bs, NH, T, HS] = [3, 2, 19, 5];
  const C3 = 3 * NH * HS;
  type Operand = { kind: 'qkv'; off: number } | { kind: 'scores' };
  const qkv = (off: number): Operand => ({ kind: 'qkv', off });
  const scores: Operand = { kind: 'scores' };
  const lay = (o: Operand) => (o.kind === 'scores' ? { ld: T, outer: NH * T * T, inner: T * T, off: 0, size: Bs * NH * T * T } : { ld: C3, outer: T * C3, inner: HS, off: o.off, size: Bs * T * C3 });
  it.each([
    { name: 'S = Q K^T, lower', M: T, K: HS, N: T, A: qkv(0), B: qkv(NH * HS), C: scores, opts: { transB: true, causal: 'lower' as const } },
    { name: 'O = P V, kUpToRow', M: T, K: T, N: HS, A: scores, B: qkv(2 * NH * HS), C: qkv(0), opts: { causal: 'kUpToRow' as const } },
    { name: 'dK += 0.5 dS^T Q, kFromRow', M: T, K: T, N: HS, A: scores, B: qkv(0), C: qkv(NH * HS), opts: { transA: true, causal: 'kFromRow' as const, accumulate: true, alpha: 0.5 } },
    { name: 'both transposed, full', M: HS, K: T, N: T, A: qkv(HS), B: scores, C: scores, opts: { transA: true, transB: true } },
  ])('$name', async ({ name, M, K, N, A, B, C, opts }) => {
    const gpu = await testGpu();
    const rand = mulberry32(M * 31 + N + K);
    const [la, lb, lc] = [lay(A), lay(B), lay(C)];
    const a = randArray(rand, la.size), b = randArray(rand, lb.size), init = randArray(rand, lc.size);
    const L = {
      lda: la.ld, ldb: lb.ld, ldc: lc.ld, aOffset: la.off, bOffset: lb.off, cOffset: lc.off,
      aOuter: la.outer, aInner: la.inner, bOuter: lb.outer, bInner: lb.inner, cOuter: lc.outer, cInner: lc.inner,
    };
    const dims = { M, K, N, batch: Bs * NH, inner: NH };
    const out = ref(gpu, init, 'out');
    gpu.run([await matmulStrided(gpu, out, ref(gpu, a, 'a'), ref(gpu, b, 'b'), dims, L, opts)]);
    const want = Float64Array.from(init);
    stridedRef(want, a, b, dims, L, opts);
    expectClose(name, await gpu.readF32(out), want, tolFor(K));
  });

  it('folds more than 65535 workgroups into a 2-D grid (a batch of 1x1 products)', async () => {
    const gpu = await testGpu();
    const batch = 65535 * 16 + 5; // one 8x8 block per entry, 16 per workgroup
    const rand = mulberry32(3);
    const a = randArray(rand, batch), b = randArray(rand, batch);
    const out = ref(gpu, new Float32Array(batch).fill(NaN), 'out');
    const layout = { lda: 1, ldb: 1, ldc: 1, aOuter: 1, bOuter: 1, cOuter: 1 };
    const d = await matmulStrided(gpu, out, ref(gpu, a, 'a'), ref(gpu, b, 'b'), { M: 1, K: 1, N: 1, batch, inner: 1 }, layout, { alpha: 2 });
    expect(d.workgroups[1]).toBeGreaterThan(1);
    gpu.run([d]);
    expectClose('out', await gpu.readF32(out), Float64Array.from(a, (x, i) => 2 * x * b[i]), tolFor(1));
  });

  it('rejects a batch that overruns its view', async () => {
    const gpu = await testGpu();
    const small = ref(gpu, new Float32Array(64), 'small');
    const layout = { lda: 4, ldb: 4, ldc: 4, aOuter: 16, bOuter: 16, cOuter: 16 };
    await expect(matmulStrided(gpu, small, small, small, { M: 4, K: 4, N: 4, batch: 5, inner: 1 }, layout)).rejects.toThrow(/out holds 64 elements, needs 80/);
  });
});
