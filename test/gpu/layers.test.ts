// The layer kernels (src/gpu/ops/layers.ts) against their float64 references on seeded inputs
// and edge cases: odd C (scalar path), C % 4 == 0 (vec4 path), N = 1, grids folded past
// 65535 workgroups, large offsets, constant rows, saturated GELU, repeated and boundary token
// ids, and += rules checked by pre-filling the gradients with nonzero values.
import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose, type Tolerance } from '../helpers/tolerance';
import { mulberry32, randArray, randInts, randn } from '../helpers/rng';
import { view, type Gpu, type TensorRef } from '../../src/gpu/runtime';
import {
  accumulate,
  encoderBackward,
  encoderForward,
  fill,
  geluBackward,
  geluForward,
  layernormBackward,
  layernormForward,
  type RowLayout,
} from '../../src/gpu/ops/layers';
import {
  encoderBackwardRef,
  encoderForwardRef,
  geluBackwardRef,
  geluForwardRef,
  layernormBackwardRef,
  layernormForwardRef,
} from '../../src/reference/layers';

function ref(gpu: Gpu, data: Float32Array | Uint32Array, label: string): TensorRef {
  return view(gpu.upload(data, label), 0, data.length);
}

function emptyRef(gpu: Gpu, n: number, label: string): TensorRef {
  return view(gpu.createBuffer(n * 4, label), 0, n);
}

/** Float32 tensor rounded through f32 and widened, so references see what the GPU sees. */
const f64 = (a: Float32Array): Float64Array => Float64Array.from(a);

// ---------------------------------------------------------------- layernorm

interface LnCase {
  N: number;
  C: number;
  inp: Float32Array;
}

function lnCase(N: number, C: number, seed: number, make?: (rand: () => number, n: number) => Float32Array): LnCase {
  const rand = mulberry32(seed);
  return { N, C, inp: make ? make(rand, N * C) : randn(rand, N * C) };
}

/** Runs forward then backward in one command buffer and compares all seven outputs. */
async function checkLayernorm(c: LnCase, tol: { out: Tolerance; grad: Tolerance }, layout?: RowLayout): Promise<void> {
  const gpu = await testGpu();
  const { N, C, inp } = c;
  const rand = mulberry32(N * 31 + C);
  const weight = randn(rand, C);
  const bias = randn(rand, C);
  const dout = randn(rand, N * C);
  // gradients pre-filled with nonzero values: the kernels must add, not overwrite
  const dinp0 = randArray(rand, N * C);
  const dweight0 = randArray(rand, C);
  const dbias0 = randArray(rand, C);

  const out = emptyRef(gpu, N * C, 'out');
  const mean = emptyRef(gpu, N, 'mean');
  const rstd = emptyRef(gpu, N, 'rstd');
  const [inpG, weightG, doutG] = [ref(gpu, inp, 'inp'), ref(gpu, weight, 'weight'), ref(gpu, dout, 'dout')];
  const [dinp, dweight, dbias] = [ref(gpu, dinp0, 'dinp'), ref(gpu, dweight0, 'dweight'), ref(gpu, dbias0, 'dbias')];
  gpu.run([
    await layernormForward(gpu, out, mean, rstd, inpG, weightG, ref(gpu, bias, 'bias'), { N, C }, { layout }),
    ...(await layernormBackward(gpu, dinp, dweight, dbias, doutG, inpG, weightG, mean, rstd, { N, C }, { layout })),
  ]);

  const want = { out: new Float64Array(N * C), mean: new Float64Array(N), rstd: new Float64Array(N) };
  layernormForwardRef(want.out, want.mean, want.rstd, inp, weight, bias, N, C);
  const wantD = { dinp: f64(dinp0), dweight: f64(dweight0), dbias: f64(dbias0) };
  layernormBackwardRef(wantD.dinp, wantD.dweight, wantD.dbias, dout, inp, weight, want.mean, want.rstd, N, C);

  const tag = `N=${N} C=${C}${layout ? ` lanes=${layout.LANES}x${layout.ROWS}` : ''}`;
  expectClose(`ln out ${tag}`, await gpu.readF32(out), want.out, tol.out);
  expectClose(`ln mean ${tag}`, await gpu.readF32(mean), want.mean, tol.out);
  expectClose(`ln rstd ${tag}`, await gpu.readF32(rstd), want.rstd, { atol: 0, rtol: 1e-5 });
  expectClose(`ln dinp ${tag}`, await gpu.readF32(dinp), wantD.dinp, tol.grad);
  // dweight and dbias sum N rows: their float32 error grows with N
  const colTol = { atol: tol.grad.atol * Math.sqrt(N), rtol: tol.grad.rtol };
  expectClose(`ln dweight ${tag}`, await gpu.readF32(dweight), wantD.dweight, colTol);
  expectClose(`ln dbias ${tag}`, await gpu.readF32(dbias), wantD.dbias, colTol);
}

// |x - mean| <~ 4 and rstd ~ 1: float32 rounding of the row sums gives ~1e-6
const LN_TOL = { out: { atol: 2e-5, rtol: 1e-5 }, grad: { atol: 2e-5, rtol: 1e-5 } };

describe('layernorm', () => {
  // C <= 128 (vec4) or C <= 32: one invocation per row; longer rows: a tree over LANES
  it.each([
    [1, 3],
    [5, 17],
    [1, 64],
    [37, 64],
    [9, 128],
    [1537, 128],
    [2, 132],
    [4, 768],
    [3, 1030],
  ])('forward and backward match the reference (N=%i C=%i)', async (N, C) => {
    await checkLayernorm(lnCase(N, C, N + C), LN_TOL);
  });

  it.each([
    [37, 17],
    [37, 64],
    [1, 128],
  ])('the shared-memory tree path matches at small C (N=%i C=%i, 32 lanes x 8 rows)', async (N, C) => {
    await checkLayernorm(lnCase(N, C, N * C), LN_TOL, { LANES: 32, ROWS: 8 });
  });

  it.each([17, 128])('keeps its accuracy with inputs around 1e3 (C=%i)', async (C) => {
    // mean 1e3, std 1: a one-pass variance would be off by ~0.1 here. x - mean carries the
    // float32 rounding of a value near 1e3 (ulp 6e-5), which bounds out and dinp to ~1e-4.
    const c = lnCase(33, C, C, (rand, n) => randn(rand, n).map((v) => 1000 + v));
    await checkLayernorm(c, { out: { atol: 2e-4, rtol: 1e-5 }, grad: { atol: 2e-4, rtol: 1e-4 } });
  });

  it.each([3, 64])('handles constant rows (variance 0, C=%i)', async (C) => {
    // rstd = 1/sqrt(eps) ~ 316 multiplies dinp (values ~100) and its float32 rounding
    const c = lnCase(6, C, 5, (_rand, n) => new Float32Array(n).map((_, i) => (Math.floor(i / C) - 2) * 0.3));
    await checkLayernorm(c, { out: LN_TOL.out, grad: { atol: 5e-4, rtol: 1e-5 } });
  });

  it('folds the grid past 65535 workgroups (one row per workgroup)', async () => {
    // rows spread around (0, 1, 2): among 65k random rows of 3 some would have a tiny variance,
    // whose large rstd would magnify the float32 rounding past LN_TOL
    const c = lnCase(65535 + 7, 3, 1, (rand, n) => randn(rand, n, 0.3).map((v, i) => v + (i % 3)));
    await checkLayernorm(c, LN_TOL, { LANES: 1, ROWS: 1 });
  });
});

// ---------------------------------------------------------------- gelu

describe('gelu', () => {
  const special = [0, -0, 20, -20, 10, -10, 5, -5, 3, -3, 1, -1, 1e-3, -1e-3, 1e-20, 0.5, -0.5, 88, -88, 1e4, -1e4, 2.5, -2.5];

  async function checkGelu(inp: Float32Array, label: string): Promise<void> {
    const gpu = await testGpu();
    const n = inp.length;
    const dout = randn(mulberry32(n), n);
    const out = emptyRef(gpu, n, 'out');
    const dinp = ref(gpu, new Float32Array(n).fill(7), 'dinp'); // = rule: the 7s must vanish
    const inpG = ref(gpu, inp, 'inp');
    gpu.run([await geluForward(gpu, out, inpG, n), await geluBackward(gpu, dinp, inpG, ref(gpu, dout, 'dout'), n)]);
    const want = new Float64Array(n);
    geluForwardRef(want, inp, n);
    // float32 tanh carries a few ulp of absolute error, scaled by |x| / 2
    expectClose(`gelu ${label}`, await gpu.readF32(out), want, { atol: 1e-6, rtol: 1e-5 });
    const wantD = new Float64Array(n);
    geluBackwardRef(wantD, inp, dout, n);
    expectClose(`gelu' ${label}`, await gpu.readF32(dinp), wantD, { atol: 1e-5, rtol: 1e-5 });
  }

  it('matches at 0, large |x| (saturated tanh) and small |x|', async () => {
    await checkGelu(Float32Array.from(special), 'special (scalar)');
    await checkGelu(Float32Array.from([...special, 0.1]), 'special (vec4)');
  });

  // n % 4 == 0 takes the vec4 entry
  it.each([1, 1000, 70_001])('matches the reference on random inputs (n=%i)', async (n) => {
    await checkGelu(randn(mulberry32(n), n, 3), `n=${n}`);
  });
});

// ---------------------------------------------------------------- encoder

interface EncDims {
  B: number;
  T: number;
  C: number;
  V: number;
  Tmax: number;
}

async function checkEncoder(d: EncDims, tokens: Uint32Array): Promise<void> {
  const gpu = await testGpu();
  const { B, T, C, V, Tmax } = d;
  const rand = mulberry32(B * 1000 + T * 10 + C);
  const wte = randn(rand, V * C);
  const wpe = randn(rand, Tmax * C);
  const dout = randn(rand, B * T * C);
  const dwte0 = randArray(rand, V * C);
  const dwpe0 = randArray(rand, Tmax * C);
  const out = emptyRef(gpu, B * T * C, 'out');
  const tok = ref(gpu, tokens, 'tokens');
  const [dwte, dwpe] = [ref(gpu, dwte0, 'dwte'), ref(gpu, dwpe0, 'dwpe')];
  gpu.run([
    await encoderForward(gpu, out, tok, ref(gpu, wte, 'wte'), ref(gpu, wpe, 'wpe'), { B, T, C }),
    ...(await encoderBackward(gpu, dwte, dwpe, ref(gpu, dout, 'dout'), tok, { B, T, C, V })),
  ]);
  const want = new Float64Array(B * T * C);
  encoderForwardRef(want, tokens, wte, wpe, B, T, C);
  const [wantWte, wantWpe] = [f64(dwte0), f64(dwpe0)];
  encoderBackwardRef(wantWte, wantWpe, dout, tokens, B, T, C);
  const tag = `B=${B} T=${T} C=${C} V=${V}`;
  // one float32 rounding of a sum of two terms
  expectClose(`encoder out ${tag}`, await gpu.readF32(out), want, { atol: 0, rtol: 1e-6 });
  // sums of up to B*T (dwte) or B (dwpe) N(0,1) terms in float32
  const sumTol = { atol: 1e-6 * Math.sqrt(B * T), rtol: 1e-5 };
  expectClose(`encoder dwte ${tag}`, await gpu.readF32(dwte), wantWte, sumTol);
  expectClose(`encoder dwpe ${tag}`, await gpu.readF32(dwpe), wantWpe, sumTol);
}

describe('encoder', () => {
  it('handles repeated tokens and ids 0 and V-1, T < Tmax (rows t >= T of dwpe untouched)', async () => {
    const d = { B: 3, T: 5, C: 17, V: 7, Tmax: 8 };
    const tokens = randInts(mulberry32(2), d.B * d.T, d.V);
    tokens.set([0, 6, 6, 0, 6], 0);
    await checkEncoder(d, tokens);
  });

  it('handles T = 1 and T = Tmax', async () => {
    await checkEncoder({ B: 4, T: 1, C: 64, V: 64, Tmax: 16 }, Uint32Array.from([0, 63, 0, 5]));
    await checkEncoder({ B: 2, T: 16, C: 3, V: 5, Tmax: 16 }, randInts(mulberry32(4), 32, 5));
  });

  it('matches at the project size (B=16 T=128 C=64 V=64) and with C > 256', async () => {
    await checkEncoder({ B: 16, T: 128, C: 64, V: 64, Tmax: 128 }, randInts(mulberry32(5), 16 * 128, 64));
    await checkEncoder({ B: 2, T: 300, C: 300, V: 3, Tmax: 300 }, randInts(mulberry32(6), 600, 3));
  });

  it('folds the sort grid for V > 65535 * 16 (one invocation per token id)', async () => {
    const V = 65535 * 16 + 17;
    await checkEncoder({ B: 2, T: 3, C: 4, V, Tmax: 3 }, Uint32Array.from([V - 1, 0, 65535 * 16 + 3, 65536, 7, V - 1]));
  });

  it('is bit-identical run to run', async () => {
    const gpu = await testGpu();
    const [B, T, C, V] = [4, 64, 32, 8];
    const rand = mulberry32(9);
    const dout = ref(gpu, randn(rand, B * T * C), 'dout');
    const tok = ref(gpu, randInts(rand, B * T, V), 'tokens');
    const results: Float32Array[] = [];
    for (let i = 0; i < 2; i++) {
      const [dwte, dwpe] = [emptyRef(gpu, V * C, 'dwte'), emptyRef(gpu, T * C, 'dwpe')];
      gpu.run(await encoderBackward(gpu, dwte, dwpe, dout, tok, { B, T, C, V }));
      results.push(await gpu.readF32(dwte));
    }
    expect(results[1]).toEqual(results[0]);
  });
});

// ---------------------------------------------------------------- utilities

describe('accumulate and fill', () => {
  it.each([1, 1000, 70_001])('accumulate adds in place (n=%i)', async (n) => {
    const gpu = await testGpu();
    const rand = mulberry32(n);
    const [out0, a] = [randArray(rand, n), randArray(rand, n)];
    const out = ref(gpu, out0, 'out');
    gpu.run([await accumulate(gpu, out, ref(gpu, a, 'a'), n)]);
    expectClose(`accumulate n=${n}`, await gpu.readF32(out), f64(out0).map((v, i) => v + a[i]), { atol: 0, rtol: 1e-6 });
  });

  it('fill writes exactly n elements and nothing past them', async () => {
    const gpu = await testGpu();
    const buf = gpu.upload(new Float32Array(1100).fill(9), 'buf');
    gpu.run([await fill(gpu, view(buf, 64, 1000), -1.5, 1000), await fill(gpu, view(buf, 0, 3), 0, 3)]);
    const got = await gpu.readF32(buf);
    expect(Array.from(got.slice(0, 4))).toEqual([0, 0, 0, 9]);
    expect(got[63]).toBe(9);
    expect(got.slice(64, 1064).every((v) => v === -1.5)).toBe(true);
    expect(got[1064]).toBe(9);
  });

  it('fill folds the grid past 65535 workgroups', async () => {
    const gpu = await testGpu();
    const n = 65535 * 256 + 301; // odd: the scalar entry, one element per invocation
    const buf = gpu.createBuffer((n + 4) * 4, 'big');
    gpu.run([await fill(gpu, view(buf, 0, n + 4), 2, n + 4), await fill(gpu, view(buf, 0, n), 1, n)]);
    const got = await gpu.readF32(buf);
    expect(got[0]).toBe(1);
    expect(got[n - 1]).toBe(1);
    expect(got[n]).toBe(2);
    expect(got.subarray(0, n).every((v) => v === 1)).toBe(true);
  });
});
