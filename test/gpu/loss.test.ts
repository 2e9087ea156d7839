import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randArray, randInts } from '../helpers/rng';
import { softmaxLogp } from '../../src/gpu/ops/loss';
import { softmaxLogpRef } from '../../src/reference/loss';
import { view, type Gpu } from '../../src/gpu/runtime';
import type { KernelVariant } from '../../src/gpu/runtime';

interface Inputs {
  R: number;
  V: number;
  logits: Float32Array;
  targets: Uint32Array;
  w: Float32Array;
  e: Float32Array;
}

function randomInputs(seed: number, R: number, V: number, scale = 4): Inputs {
  const rand = mulberry32(seed);
  const w = randArray(rand, R);
  const e = randArray(rand, R, 0.5);
  // every third row masked
  for (let r = 2; r < R; r += 3) w[r] = e[r] = 0;
  return { R, V, logits: randArray(rand, R * V, scale), targets: randInts(rand, R, V), w, e };
}

interface Got {
  logp: Float32Array;
  entropy: Float32Array;
  dlogits: Float32Array | null;
}

async function runGpu(gpu: Gpu, x: Inputs, temperature: number, variant: KernelVariant, withGrad = true): Promise<Got> {
  const { R, V } = x;
  const logp = gpu.createBuffer(R * 4, 'logp');
  const entropy = gpu.createBuffer(R * 4, 'entropy');
  const dlogits = withGrad ? gpu.createBuffer(R * V * 4, 'dlogits') : null;
  const op = await softmaxLogp(
    gpu,
    { logp: view(logp, 0, R), entropy: view(entropy, 0, R), dlogits: dlogits && view(dlogits, 0, R * V) },
    view(gpu.upload(x.logits, 'logits'), 0, R * V),
    view(gpu.upload(x.targets, 'targets'), 0, R),
    view(gpu.upload(x.w, 'w'), 0, R),
    view(gpu.upload(x.e, 'e'), 0, R),
    { R, V },
    { temperature, withGrad, variant },
  );
  expect(op.dispatch.label).toBe(variant === 'direct' ? 'softmax_logp_direct' : 'softmax_logp');
  gpu.run([op.dispatch]);
  return {
    logp: await gpu.readF32(view(logp, 0, R)),
    entropy: await gpu.readF32(view(entropy, 0, R)),
    dlogits: dlogits && (await gpu.readF32(view(dlogits, 0, R * V))),
  };
}

function reference(x: Inputs, temperature: number) {
  const want = { logp: new Float64Array(x.R), entropy: new Float64Array(x.R), dlogits: new Float64Array(x.R * x.V) };
  softmaxLogpRef(want, x.logits, x.targets, x.w, x.e, x, { temperature });
  return want;
}

// f32 on the GPU against float64 (observed: logp/entropy ≤ 2e-6 absolute, ≤ 2e-7 relative on
// the ±1e4 rows; dlogits ≤ 1.1e-7 absolute at V = 50257). logp carries the rounding of
// (l − max)/T, relative to its size, hence the rtol; a wrong index costs O(1/V) ≫ atol.
const TOL_STATS = { atol: 1e-5, rtol: 1e-6 };
const TOL_GRAD = { atol: 5e-7, rtol: 1e-5 };

function compare(label: string, got: Got, want: ReturnType<typeof reference>, x: Inputs): void {
  expectClose(`${label} logp`, got.logp, want.logp, TOL_STATS);
  expectClose(`${label} entropy`, got.entropy, want.entropy, TOL_STATS);
  if (got.dlogits) {
    expectClose(`${label} dlogits`, got.dlogits, want.dlogits, TOL_GRAD);
    for (let r = 0; r < x.R; r++) {
      if (x.w[r] !== 0 || x.e[r] !== 0) continue;
      for (let j = 0; j < x.V; j++) if (got.dlogits[r * x.V + j] !== 0) throw new Error(`${label}: masked row ${r} has dlogits[${j}] = ${got.dlogits[r * x.V + j]}`);
    }
  }
}

// Both designs on any adapter: 'tiled' (a workgroup per row, tree reductions) and 'direct' (an
// invocation per row).
describe.each(['tiled', 'direct'] as const)('softmax_logp (%s variant)', (variant) => {
  const cases: [number, number, number][] = [];
  for (const R of [1, 7, 300]) for (const V of [1, 5, 63, 64, 65, 1000]) for (const T of [1, 0.7, 1.5]) cases.push([R, V, T]);

  it.each(cases)('matches the reference for R=%i V=%i T=%f', async (R, V, T) => {
    const gpu = await testGpu();
    const x = randomInputs(R * 7919 + V, R, V);
    compare(`R=${R} V=${V} T=${T}`, await runGpu(gpu, x, T, variant), reference(x, T), x);
  });

  it('handles a GPT-2-sized vocabulary (V=50257)', async () => {
    const gpu = await testGpu();
    const x = randomInputs(50257, 3, 50257, 8);
    compare('V=50257', await runGpu(gpu, x, 0.9, variant), reference(x, 0.9), x);
  });

  it('folds more than 65535 workgroups into a 2-D grid', async () => {
    const gpu = await testGpu();
    // 'tiled' runs a workgroup per row, 'direct' 16 rows per workgroup
    const R = variant === 'direct' ? 65535 * 16 + 7 : 70001;
    const x = randomInputs(R, R, 3);
    compare(`R=${R}`, await runGpu(gpu, x, 1, variant), reference(x, 1), x);
  });

  it('is stable for logits of ±1e4, including one-hot-like rows', async () => {
    const gpu = await testGpu();
    const V = 65;
    const x = randomInputs(11, 5, V, 1e4);
    x.w.set([1, -0.5, 1, 0.25, -1]);
    x.e.set([0.5, 0.5, 0, 1, 0.3]);
    // row 1: one-hot on its target; row 2: one-hot away from its target; row 3: two tied
    // maxima; row 4: a spread-out distribution offset by 1e4
    const rand = mulberry32(12);
    for (let j = 0; j < V; j++) {
      x.logits[4 * V + j] = 1e4 + (rand() * 2 - 1) * 3;
      x.logits[V + j] = j === x.targets[1] ? 1e4 : -1e4;
      x.logits[2 * V + j] = j === (x.targets[2] + 1) % V ? 1e4 : -1e4;
      x.logits[3 * V + j] = j === 5 || j === 60 ? 1e4 : -1e4;
    }
    for (const T of [1, 0.7, 1.5]) {
      const got = await runGpu(gpu, x, T, variant);
      const want = reference(x, T);
      compare(`±1e4 T=${T}`, got, want, x);
      expect(got.logp[1]).toBe(0);
      expect(got.entropy[1]).toBe(0);
      expect(got.entropy[3]).toBeCloseTo(Math.log(2), 6);
      expect(got.dlogits!.every(Number.isFinite)).toBe(true);
    }
  });

  it('skips the gradient when withGrad=false and takes a new temperature', async () => {
    const gpu = await testGpu();
    const x = randomInputs(5, 7, 65);
    const got = await runGpu(gpu, x, 1.3, variant, false);
    expect(got.dlogits).toBeNull();
    compare('no grad', got, reference(x, 1.3), x);

    // a dlogits buffer passed with withGrad=false is left untouched
    const R = x.R;
    const sentinel = new Float32Array(R * x.V).fill(7);
    const dl = gpu.upload(sentinel, 'dlogits');
    const logp = gpu.createBuffer(R * 4, 'logp');
    const entropy = gpu.createBuffer(R * 4, 'entropy');
    const inputs = [gpu.upload(x.logits, 'l'), gpu.upload(x.targets, 't'), gpu.upload(x.w, 'w'), gpu.upload(x.e, 'e')] as const;
    const op = await softmaxLogp(gpu, { logp: view(logp, 0, R), entropy: view(entropy, 0, R), dlogits: view(dl, 0, R * x.V) }, view(inputs[0], 0, R * x.V), view(inputs[1], 0, R), view(inputs[2], 0, R), view(inputs[3], 0, R), x, { withGrad: false, variant });
    gpu.run([op.dispatch]);
    expect(Array.from(await gpu.readF32(view(dl, 0, R * x.V)))).toEqual(Array.from(sentinel));

    op.setTemperature(0.6);
    gpu.run([op.dispatch]);
    const want = reference(x, 0.6);
    expectClose('setTemperature logp', await gpu.readF32(view(logp, 0, R)), want.logp, TOL_STATS);
    expectClose('setTemperature entropy', await gpu.readF32(view(entropy, 0, R)), want.entropy, TOL_STATS);
  });

  it('gives NaN logp for an out-of-range target instead of a wrong loss', async () => {
    const gpu = await testGpu();
    const x = randomInputs(3, 2, 5);
    x.targets[1] = 5;
    x.w[1] = 1;
    const got = await runGpu(gpu, x, 1, variant);
    expect(Number.isNaN(got.logp[1])).toBe(true);
    expect(Number.isFinite(got.logp[0])).toBe(true);
    expect(got.dlogits!.slice(5).every(Number.isNaN)).toBe(true);
  });
});
