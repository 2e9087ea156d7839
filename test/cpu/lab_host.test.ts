// The worker-side engine without a worker or a GPU: step batching, the one-job-at-a-time
// rule, failing checks as rows, stop, and device events forwarded as typed messages.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MainHost, type MainHostDeps } from '../../src/lab/worker/mainHost';
import { StepBatcher } from '../../src/lab/worker/stepBatcher';
import type { DemoBatch, DeviceEvent, SelfTestRow } from '../../src/lab/protocol';
import type { Gpu, GpuEvent } from '../../src/gpu/runtime';

afterEach(() => vi.useRealTimers());

describe('StepBatcher', () => {
  it('sends steps gathered over the interval as one batch of typed arrays', () => {
    vi.useFakeTimers();
    let now = 0;
    const sent: DemoBatch[] = [];
    const b = new StepBatcher(3, (x) => sent.push(x), 100, () => now);
    b.push({ step: 0, loss: 5, tokensPerS: 10 });
    now = 40;
    b.push({ step: 1, loss: 4, tokensPerS: 11 });
    expect(sent).toHaveLength(0);
    now = 100;
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(1);
    expect(sent[0].runId).toBe(3);
    expect(Array.from(sent[0].step)).toEqual([0, 1]);
    expect(Array.from(sent[0].loss)).toEqual([5, 4]);
    expect(sent[0].tokensPerS).toBeInstanceOf(Float64Array);
  });

  it('flushes from push when the loop never yields to the timer', () => {
    let now = 0;
    const sent: DemoBatch[] = [];
    const b = new StepBatcher(1, (x) => sent.push(x), 100, () => now);
    for (let s = 0; s < 10; s++) {
      now = s * 30;
      b.push({ step: s, loss: 1, tokensPerS: 1 });
    }
    b.flush();
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.flatMap((x) => Array.from(x.step))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

function fakeGpu() {
  const listeners = new Set<(e: GpuEvent) => void>();
  const gpu = {
    limits: { maxStorageBuffersPerShaderStage: 10 },
    onEvent: (cb: (e: GpuEvent) => void) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    destroy: () => listeners.forEach((cb) => cb({ kind: 'lost', reason: 'destroyed', message: 'bye' })),
  } as unknown as Gpu;
  return { gpu, emit: (e: GpuEvent) => listeners.forEach((cb) => cb(e)) };
}

function engineWith(over: Partial<MainHostDeps> = {}) {
  const { gpu, emit } = fakeGpu();
  const deps: MainHostDeps = {
    gpu: {
      requestAdapter: async () => ({
        adapter: {} as GPUAdapter,
        summary: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} },
      }),
      createGpu: async () => gpu,
    },
    selfTests: [],
    memoriseDemo: async () => undefined,
    runs: {
      createEngine: async () => {
        throw new Error('no loops in this test');
      },
      loadPolicy: async () => {
        throw new Error('no policies in this test');
      },
    },
    ...over,
  };
  return { engine: new MainHost(deps), emit };
}

describe('Engine', () => {
  it('reports why there is no adapter instead of throwing', async () => {
    const { engine } = engineWith({
      gpu: {
        requestAdapter: async () => {
          throw new Error('no adapter');
        },
        createGpu: async () => fakeGpu().gpu,
      },
    });
    const r = await engine.init(() => undefined);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toBe('no adapter');
  });

  it('forwards device loss and GPU errors as typed events', async () => {
    const { engine, emit } = engineWith();
    const events: DeviceEvent[] = [];
    expect((await engine.init((e) => events.push(e))).ok).toBe(true);
    emit({ kind: 'error', message: 'oops' });
    engine.debugLoseDevice();
    expect(events).toEqual([
      { type: 'gpu-error', message: 'oops' },
      { type: 'device-lost', reason: 'destroyed', message: 'bye' },
    ]);
  });

  it('after a device loss, reconnect creates a new device; while a device works it refuses', async () => {
    const made: ReturnType<typeof fakeGpu>[] = [];
    const { engine } = engineWith({
      gpu: {
        requestAdapter: async () => ({ adapter: {} as GPUAdapter, summary: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} } }),
        createGpu: async () => {
          const g = fakeGpu();
          (g.gpu as unknown as { isLost: boolean }).isLost = false;
          made.push(g);
          return g.gpu;
        },
      },
    });
    const events: DeviceEvent[] = [];
    await engine.init((e) => events.push(e));
    expect(() => engine.reconnect()).toThrow(/still working/);
    (made[0].gpu as unknown as { isLost: boolean }).isLost = true;
    engine.debugLoseDevice();
    expect((await engine.reconnect()).ok).toBe(true);
    expect(made).toHaveLength(2);
    // the old device has nothing more to say; the new one reports to the same listener
    made[0].emit({ kind: 'error', message: 'stale' });
    made[1].emit({ kind: 'error', message: 'fresh' });
    expect(events).toEqual([{ type: 'device-lost', reason: 'destroyed', message: 'bye' }, { type: 'gpu-error', message: 'fresh' }]);
  });

  it('turns a throwing check into a failed row and runs the rest', async () => {
    const { engine } = engineWith({
      selfTests: [
        { name: 'throws', run: async () => Promise.reject(new Error('kaput')) },
        { name: 'passes', run: async () => ({ ok: true, maxAbs: 0, message: 'fine' }) },
      ],
    });
    await engine.init(() => undefined);
    const rows: SelfTestRow[] = [];
    expect(await engine.runSelfTests((r) => rows.push(r))).toEqual({ passed: 1, failed: 1 });
    expect(rows.map((r) => [r.name, r.ok])).toEqual([
      ['throws', false],
      ['passes', true],
    ]);
    expect(rows[0].message).toContain('kaput');
  });

  it('runs one job at a time, and a stopped demo ends as stopped with its steps sent', async () => {
    const { engine } = engineWith({
      memoriseDemo: async (_gpu, _opts, onStep, signal) => {
        for (let step = 0; !signal?.aborted; step++) {
          onStep({ step, loss: 1, tokensPerS: 1 });
          await new Promise((r) => setTimeout(r, 1));
        }
      },
    });
    await engine.init(() => undefined);
    const batches: DemoBatch[] = [];
    const run = engine.startDemo(1, { phrase: 'x', steps: 10, seed: 0 }, (b) => batches.push(b));
    await expect(engine.runSelfTests(() => undefined)).rejects.toThrow(/busy with the demo/);
    await new Promise((r) => setTimeout(r, 20));
    engine.stopDemo();
    expect(await run).toBe('stopped');
    expect(batches.reduce((n, b) => n + b.step.length, 0)).toBeGreaterThan(0);
    expect(await engine.runSelfTests(() => undefined)).toEqual({ passed: 0, failed: 0 });
  });

  it('passes a failing demo error through to the page', async () => {
    const { engine } = engineWith({
      memoriseDemo: async () => {
        throw new Error('memorise demo not implemented yet');
      },
    });
    await engine.init(() => undefined);
    await expect(engine.startDemo(1, { phrase: 'x', steps: 1, seed: 0 }, () => undefined)).rejects.toThrow('not implemented');
  });
});
