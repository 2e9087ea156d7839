import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randInts, randn } from '../helpers/rng';
import { adamw, gradNormSq } from '../../src/gpu/ops/optim';
import type { AdamWHyper } from '../../src/rl/hyper';
import { adamwRef, gradNormSqRef } from '../../src/reference/optim';
import { view, type Gpu } from '../../src/gpu/runtime';
import type { KernelVariant } from '../../src/gpu/runtime';

const VARIANTS: KernelVariant[] = ['tiled', 'direct'];

// f32 sums of squares against float64: each partial is a short f32 sum, then two fixed-order
// trees (the CPU variant: sequential partials of up to ~2.4k terms, then one sequential sum of
// 256); observed error a few 1e-7 relative.
const TOL_NORM = { atol: 0, rtol: 2e-6 };
// A few AdamW steps in f32 against float64 from identical inputs. The f32 betas differ from
// the float64 ones by ~2.4e-7 relative (0.9, 0.95 are not representable) and m = b1·m + (1−b1)·g
// cancels, so m, v get an absolute floor (observed ≤ 3.2e-8 on values ~1e-2). Params (~0.5)
// round to f32 every step (observed ≤ 1.8e-7 after 4 steps); a wrong term moves them by
// ~lr·wd·|p| = 5e-4 or more.
const TOL_MV = { atol: 1e-7, rtol: 1e-5 };
const TOL_PARAMS = { atol: 5e-7, rtol: 1e-6 };

describe('grad_norm_sq', () => {
  it.each([1, 255, 256, 257, 100003, 600001].flatMap((n) => VARIANTS.map((v) => [n, v] as const)))('matches the reference for n=%i, %s variant', async (n, variant) => {
    const gpu = await testGpu();
    const grads = randn(mulberry32(n), n);
    const out = gpu.upload(new Float32Array([-1]), 'normSq');
    const ds = await gradNormSq(gpu, view(out, 0, 1), view(gpu.upload(grads, 'grads'), 0, n), n, { variant });
    expect(ds[0].label.startsWith(variant === 'direct' ? 'grad_norm_sq_direct' : 'grad_norm_sq.')).toBe(true);
    gpu.run(ds);
    expectClose(`normSq n=${n}`, await gpu.readF32(view(out, 0, 1)), [gradNormSqRef(grads)], TOL_NORM);
  });
});

/** GPU state of one flat parameter set, its float64 mirror, and the recorded step. */
async function setup(gpu: Gpu, n: number, seed: number, hyper: AdamWHyper) {
  const rand = mulberry32(seed);
  const p0 = randn(rand, n, 0.5);
  const flags = randInts(rand, n, 4); // all four combinations of trainable / decay
  const buf = {
    params: gpu.upload(p0, 'params'),
    m: gpu.upload(new Float32Array(n), 'm'),
    v: gpu.upload(new Float32Array(n), 'v'),
    status: gpu.upload(new Uint32Array([7]), 'status'),
    grads: gpu.createBuffer(n * 4, 'grads'),
    normSq: gpu.createBuffer(4, 'normSq'),
  };
  const r = (b: GPUBuffer, len = n) => view(b, 0, len);
  const norm = await gradNormSq(gpu, r(buf.normSq, 1), r(buf.grads), n);
  const opt = await adamw(gpu, r(buf.params), r(buf.m), r(buf.v), r(buf.status, 1), r(buf.grads), r(gpu.upload(flags, 'flags')), r(buf.normSq, 1), n, hyper);
  const ref = { params: Float64Array.from(p0), m: new Float64Array(n), v: new Float64Array(n) };
  const read = async () => ({
    params: await gpu.readF32(r(buf.params)),
    m: await gpu.readF32(r(buf.m)),
    v: await gpu.readF32(r(buf.v)),
    status: (await gpu.readU32(r(buf.status, 1)))[0],
  });
  /** Writes grads, sets the hyperparameters, runs norm + AdamW in one submit. */
  const step = async (grads: Float32Array, h: AdamWHyper) => {
    gpu.write(buf.grads, grads);
    opt.setHyper(h);
    gpu.run([...norm, opt.dispatch]);
    return read();
  };
  return { p0, flags, ref, step, read, rand };
}

const BASE: AdamWHyper = { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 0, step: 1 };

describe('adamw', () => {
  it.each([
    ['no clipping, decay', { maxGradNorm: 0 }],
    ['clipping active, decay', { maxGradNorm: 1 }], // |g| ≈ 0.3·sqrt(n) ≫ 1
    ['clipping inactive, no decay', { maxGradNorm: 1e6, weightDecay: 0 }],
    ['beta1 0, large eps', { beta1: 0, eps: 1e-3, maxGradNorm: 2 }],
  ] as [string, Partial<AdamWHyper>][])('matches the reference over 4 steps: %s', async (label, over) => {
    const gpu = await testGpu();
    const n = 1031;
    const s = await setup(gpu, n, label.length, { ...BASE, ...over });
    for (let t = 1; t <= 4; t++) {
      const h = { ...BASE, ...over, step: t, lr: BASE.lr / t };
      const grads = randn(s.rand, n, 0.3);
      const got = await s.step(grads, h);
      expect(adamwRef(s.ref.params, s.ref.m, s.ref.v, grads, s.flags, gradNormSqRef(grads), h)).toBe(0);
      expect(got.status).toBe(0);
      expectClose(`${label} t=${t} m`, got.m, s.ref.m, TOL_MV);
      expectClose(`${label} t=${t} v`, got.v, s.ref.v, TOL_MV);
      expectClose(`${label} t=${t} params`, got.params, s.ref.params, TOL_PARAMS);
      for (let i = 0; i < n; i++) {
        if (s.flags[i] & 1) continue;
        // frozen: bit-identical, moments untouched
        if (!Object.is(got.params[i], s.p0[i]) || got.m[i] !== 0 || got.v[i] !== 0) throw new Error(`${label}: frozen element ${i} changed`);
      }
    }
    // the step really moved the trainable elements
    const moved = (await s.read()).params.filter((x, i) => s.flags[i] & 1 && x !== s.p0[i]).length;
    expect(moved).toBe(s.flags.filter((f) => f & 1).length);
  });

  it('rejects a step with NaN or Inf gradients, then accepts a good one', async () => {
    const gpu = await testGpu();
    const n = 300;
    const h: AdamWHyper = { ...BASE, maxGradNorm: 1 };
    const s = await setup(gpu, n, 99, h);
    const g1 = randn(s.rand, n, 0.3);
    let got = await s.step(g1, h);
    adamwRef(s.ref.params, s.ref.m, s.ref.v, g1, s.flags, gradNormSqRef(g1), h);
    expect(got.status).toBe(0);
    const before = got;

    const bad: [string, (g: Float32Array) => void][] = [
      ['NaN', (g) => (g[17] = NaN)],
      ['Inf', (g) => (g[n - 1] = -Infinity)],
      ['overflowing square', (g) => (g[0] = 1e30)],
    ];
    for (const [what, poison] of bad) {
      const g = randn(s.rand, n, 0.3);
      poison(g);
      got = await s.step(g, { ...h, step: 2 });
      expect(got.status, what).toBe(1);
      for (const k of ['params', 'm', 'v'] as const) {
        expect(Buffer.from(got[k].buffer).equals(Buffer.from(before[k].buffer)), `${what}: ${k} unchanged`).toBe(true);
      }
    }

    const g2 = randn(s.rand, n, 0.3);
    got = await s.step(g2, { ...h, step: 2 });
    adamwRef(s.ref.params, s.ref.m, s.ref.v, g2, s.flags, gradNormSqRef(g2), { ...h, step: 2 });
    expect(got.status).toBe(0);
    expectClose('after rejection params', got.params, s.ref.params, TOL_PARAMS);
    expectClose('after rejection m', got.m, s.ref.m, TOL_MV);
    expectClose('after rejection v', got.v, s.ref.v, TOL_MV);
  });
});
