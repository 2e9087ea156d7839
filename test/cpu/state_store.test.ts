// The store's batching: demo batches from the worker reach the state at most once per frame,
// in order, and never from an older run; plus the engine and self-test slices' transitions.
import { describe, expect, it, vi } from 'vitest';
import { FrameQueue } from '../../src/state/frameQueue';
import { appendBatches } from '../../src/state/charts/points';
import { createLabStore, selectBusy, type StoreServices } from '../../src/state/store';
import type { AdapterReport, DemoBatch, DemoOutcome, DeviceEvent, SelfTestRow } from '../../src/lab/protocol';
import { fakeLabClient } from '../helpers/labClient';

/** A frame scheduler the test advances by hand. */
function manualFrames() {
  let pending: (() => void)[] = [];
  return {
    schedule: (cb: () => void) => void pending.push(cb),
    get scheduled() {
      return pending.length;
    },
    frame() {
      const cbs = pending;
      pending = [];
      for (const cb of cbs) cb();
    },
  };
}

function batch(runId: number, steps: number[], lossOf = (s: number) => 10 - s): DemoBatch {
  return {
    runId,
    step: Float64Array.from(steps),
    loss: Float64Array.from(steps, lossOf),
    tokensPerS: Float64Array.from(steps, (s) => 100 + s),
  };
}

const READY: AdapterReport = {
  ok: true,
  adapter: { name: 'fake', vendor: 'test', architecture: 'cpu', description: '', features: [], limits: {} },
  deviceLimits: {},
};

/** A LabClient whose demo the test drives: it hands out the batch callback and a finisher. */
function fakeClient(report: AdapterReport = READY) {
  const demo: { onBatch: ((b: DemoBatch) => void) | null; finish: (o: DemoOutcome) => void; fail: (e: Error) => void } = {
    onBatch: null,
    finish: () => undefined,
    fail: () => undefined,
  };
  let onEvent: ((e: DeviceEvent) => void) | null = null;
  const client = fakeLabClient({
    init: vi.fn(async (cb: (e: DeviceEvent) => void) => {
      onEvent = cb;
      return report;
    }),
    selfTestNames: async () => ['a', 'b'],
    runSelfTests: async (onResult) => {
      const rows: SelfTestRow[] = [
        { index: 0, name: 'a', ok: true, maxAbs: 0, ms: 1, message: '' },
        { index: 1, name: 'b', ok: false, maxAbs: 1, ms: 2, message: 'bad' },
      ];
      rows.forEach(onResult);
      return { passed: 1, failed: 1 };
    },
    startDemo: (_runId, _opts, onBatch) =>
      new Promise<DemoOutcome>((resolve, reject) => {
        demo.onBatch = onBatch;
        demo.finish = resolve;
        demo.fail = reject;
      }),
    stopDemo: vi.fn(async () => demo.finish('stopped')),
  });
  return { client, demo, emit: (e: DeviceEvent) => onEvent?.(e) };
}

const SERVICES: StoreServices = {
  fetchCatalog: async () => ({ defaultPolicy: null, policies: [] }),
  archive: null,
  newRunId: () => 'r',
  now: () => 0,
};

async function settle() {
  await new Promise((r) => setTimeout(r, 0));
}

describe('FrameQueue', () => {
  it('applies everything pushed between two frames in one call, in order', () => {
    const frames = manualFrames();
    const apply = vi.fn();
    const q = new FrameQueue<number>(frames.schedule, apply);
    q.push(1);
    q.push(2);
    q.push(3);
    expect(frames.scheduled).toBe(1);
    expect(apply).not.toHaveBeenCalled();
    frames.frame();
    expect(apply).toHaveBeenCalledTimes(1);
    expect(apply).toHaveBeenCalledWith([1, 2, 3]);
    expect(q.pending).toBe(0);
  });

  it('schedules a new frame only after the previous one ran', () => {
    const frames = manualFrames();
    const apply = vi.fn();
    const q = new FrameQueue<number>(frames.schedule, apply);
    q.push(1);
    frames.frame();
    expect(frames.scheduled).toBe(0);
    q.push(2);
    expect(frames.scheduled).toBe(1);
    frames.frame();
    expect(apply.mock.calls).toEqual([[[1]], [[2]]]);
  });
});

describe('appendBatches', () => {
  it('appends the batches point by point', () => {
    const pts = appendBatches([{ step: 0, loss: 10 }], [batch(1, [1, 2]), batch(1, [3])]);
    expect(pts.map((p) => p.step)).toEqual([0, 1, 2, 3]);
    expect(pts.map((p) => p.loss)).toEqual([10, 9, 8, 7]);
  });

  it('thins long curves but keeps the first and the newest point', () => {
    const steps = Array.from({ length: 25 }, (_, i) => i);
    const pts = appendBatches([], [batch(1, steps)], 10);
    expect(pts.length).toBeLessThanOrEqual(10);
    expect(pts[0].step).toBe(0);
    expect(pts[pts.length - 1].step).toBe(24);
    for (let i = 1; i < pts.length; i++) expect(pts[i].step).toBeGreaterThan(pts[i - 1].step);
  });

  it('rejects a cap that could never be met', () => {
    expect(() => appendBatches([], [batch(1, [1, 2, 3])], 1)).toThrow(/at least 2/);
  });
});

describe('lab store: demo', () => {
  it('renders worker batches at most once per frame', async () => {
    const frames = manualFrames();
    const { client, demo } = fakeClient();
    const store = createLabStore(client, SERVICES, frames.schedule);
    const updates = vi.fn();
    store.subscribe(updates);
    void store.getState().startDemo();
    await settle();
    updates.mockClear();
    demo.onBatch!(batch(1, [0, 1]));
    demo.onBatch!(batch(1, [2]));
    demo.onBatch!(batch(1, [3, 4]));
    expect(updates).not.toHaveBeenCalled();
    expect(store.getState().demo.points).toEqual([]);
    frames.frame();
    expect(updates).toHaveBeenCalledTimes(1);
    const { points, tokensPerS } = store.getState().demo;
    expect(points.map((p) => p.step)).toEqual([0, 1, 2, 3, 4]);
    expect(tokensPerS).toBe(104);
  });

  it('drops batches of an earlier run that arrive late', async () => {
    const frames = manualFrames();
    const { client, demo } = fakeClient();
    const store = createLabStore(client, SERVICES, frames.schedule);
    void store.getState().startDemo();
    await settle();
    const firstRunBatch = demo.onBatch!;
    demo.finish('done');
    await settle();
    expect(store.getState().demo.status).toBe('done');
    void store.getState().startDemo();
    await settle();
    expect(store.getState().demo.runId).toBe(2);
    firstRunBatch(batch(1, [7, 8]));
    demo.onBatch!(batch(2, [0]));
    frames.frame();
    expect(store.getState().demo.points.map((p) => p.step)).toEqual([0]);
  });

  it('shows the error of a failed run and is not busy afterwards', async () => {
    const { client, demo } = fakeClient();
    const store = createLabStore(client, SERVICES, manualFrames().schedule);
    void store.getState().startDemo();
    await settle();
    expect(selectBusy(store.getState())).toBe(true);
    demo.fail(new Error('memorise demo not implemented yet'));
    await settle();
    expect(store.getState().demo.status).toBe('failed');
    expect(store.getState().demo.error).toBe('memorise demo not implemented yet');
    expect(selectBusy(store.getState())).toBe(false);
  });

  it('stop asks the engine and ends in the stopped state', async () => {
    const { client } = fakeClient();
    const store = createLabStore(client, SERVICES, manualFrames().schedule);
    void store.getState().startDemo();
    await settle();
    await store.getState().stopDemo();
    await settle();
    expect(client.stopDemo).toHaveBeenCalledTimes(1);
    expect(store.getState().demo.status).toBe('stopped');
  });
});

describe('lab store: engine and self-test', () => {
  it('initialises once, however often it is asked (React StrictMode runs effects twice)', async () => {
    const { client } = fakeClient();
    const store = createLabStore(client, SERVICES, manualFrames().schedule);
    await Promise.all([store.getState().initDevice(), store.getState().initDevice()]);
    expect(client.init).toHaveBeenCalledTimes(1);
    expect(store.getState().device.adapter.status).toBe('ready');
  });

  it('keeps the reason when there is no WebGPU', async () => {
    const { client } = fakeClient({ ok: false, reason: 'no-webgpu', message: 'navigator.gpu is missing' });
    const store = createLabStore(client, SERVICES, manualFrames().schedule);
    await store.getState().initDevice();
    expect(store.getState().device.adapter).toEqual({ status: 'unavailable', reason: 'no-webgpu', message: 'navigator.gpu is missing' });
  });

  it('records device loss and GPU errors sent by the worker', async () => {
    const { client, emit } = fakeClient();
    const store = createLabStore(client, SERVICES, manualFrames().schedule);
    await store.getState().initDevice();
    emit({ type: 'gpu-error', message: 'validation failed' });
    emit({ type: 'device-lost', reason: 'destroyed', message: 'gone' });
    const { device } = store.getState();
    expect(device.gpuErrors).toEqual(['validation failed']);
    expect(device.deviceLost).toEqual({ reason: 'destroyed', message: 'gone' });
  });

  it('streams self-test rows and keeps the summary', async () => {
    const { client } = fakeClient();
    const store = createLabStore(client, SERVICES, manualFrames().schedule);
    await store.getState().runSelfTests();
    const st = store.getState().selfTest;
    expect(st.status).toBe('done');
    expect(st.names).toEqual(['a', 'b']);
    expect(st.rows.map((r) => r.ok)).toEqual([true, false]);
    expect(st.summary).toEqual({ passed: 1, failed: 1 });
  });
});
