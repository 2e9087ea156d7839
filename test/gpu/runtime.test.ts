// The runtime: pipelines are cached by name and overrides, GPU errors surface on the next read
// instead of passing silently, and timestamp profiling reports one duration per dispatch.
import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { view } from '../../src/gpu/runtime';
import { residualForward } from '../../src/gpu/ops/elementwise';

describe('Gpu runtime', () => {
  it('compiles a pipeline once per override set', async () => {
    const gpu = await testGpu();
    const before = gpu.stats.pipelinesCreated;
    const a = await gpu.pipeline('residual_forward', { WG: 64 });
    const b = await gpu.pipeline('residual_forward', { WG: 64 });
    expect(a).toBe(b);
    expect(gpu.stats.pipelinesCreated - before).toBeLessThanOrEqual(1);
  });

  it('a validation error in a submitted step is thrown by the next read, never silent', async () => {
    const gpu = await testGpu();
    const buf = gpu.createBuffer(256 * 4, 'aliased');
    // the same buffer bound writable and read-only in one dispatch: WebGPU rejects the command buffer
    const d = await residualForward(gpu, view(buf, 0, 64), view(buf, 64, 64), view(buf, 128, 64), 64);
    gpu.run([d]);
    await expect(gpu.readF32(view(buf, 0, 64))).rejects.toThrow(/GPU error/);
    await expect(gpu.readF32(view(buf, 0, 64))).resolves.toHaveLength(64);
  });

  it('times every dispatch with timestamp queries when the device has them', async () => {
    const gpu = await testGpu();
    const n = 4096;
    const a = gpu.upload(new Float32Array(n).fill(1), 'a');
    const out = gpu.createBuffer(n * 4, 'out');
    const d = await residualForward(gpu, view(out, 0, n), view(a, 0, n), view(a, 0, n), n);
    const times = await gpu.timeDispatches([d, d]);
    if (!gpu.device.features.has('timestamp-query')) {
      expect(times).toBeNull();
      return;
    }
    expect(times!.map((t) => t.label)).toEqual(['residual_forward', 'residual_forward']);
    for (const t of times!) expect(t.ms).toBeGreaterThanOrEqual(0);
  });
});
