import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randArray } from '../helpers/rng';
import { residualForward } from '../../src/gpu/ops/elementwise';
import { residualForwardRef } from '../../src/reference/elementwise';
import { view } from '../../src/gpu/runtime';

describe('residual_forward', () => {
  it.each([1, 7, 256, 1000, 70_001])('matches the reference for n=%i', async (n) => {
    const gpu = await testGpu();
    const rand = mulberry32(n);
    const a = randArray(rand, n);
    const b = randArray(rand, n);
    const out = gpu.createBuffer(n * 4, 'out');
    gpu.run([await residualForward(gpu, view(out, 0, n), view(gpu.upload(a, 'a'), 0, n), view(gpu.upload(b, 'b'), 0, n), n)]);
    const got = await gpu.readF32(view(out, 0, n));
    const want = new Float64Array(n);
    residualForwardRef(want, a, b);
    expectClose(`residual n=${n}`, got, want, { atol: 0, rtol: 1e-6 });
  });

  it('binds sub-ranges at 256-byte offsets', async () => {
    const gpu = await testGpu();
    const buf = gpu.upload(new Float32Array(256).map((_, i) => i), 'ab');
    const out = gpu.createBuffer(64 * 4, 'out');
    gpu.run([await residualForward(gpu, view(out, 0, 64), view(buf, 0, 64), view(buf, 64, 64), 64)]);
    const got = await gpu.readF32(out);
    expect(got[0]).toBe(64);
    expect(got[63]).toBe(63 + 127);
  });
});
