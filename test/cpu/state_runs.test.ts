// The runs slice with a fake client: batches of several runs reach the store at most once per
// frame, every applied batch is appended to the archive, a reload rebuilds the run list from
// the archive (a run that was computing becomes stopped, marked interrupted), and a run the
// worker refuses ends as failed with the worker's message.
import { describe, expect, it, vi } from 'vitest';
import type { AdapterReport, RunBatch, RunSpec, RunStatus } from '../../src/lab/protocol';
import { memoryArchive, type RunArchive } from '../../src/state/persist/archive';
import { createLabStore, selectBusy, type LabStore } from '../../src/state/store';
import { fakeLabClient } from '../helpers/labClient';

const READY: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} }, deviceLimits: {} };

function manualFrames() {
  let pending: (() => void)[] = [];
  return {
    schedule: (cb: () => void) => void pending.push(cb),
    frame() {
      const cbs = pending;
      pending = [];
      for (const cb of cbs) cb();
    },
  };
}

interface FakeRun {
  spec: RunSpec;
  onBatch: (b: RunBatch) => void;
  finish: (s: RunStatus) => void;
  fail: (e: Error) => void;
}

function fakeClient() {
  const runs: FakeRun[] = [];
  const client = fakeLabClient({
    init: async () => READY,
    startRun: (spec, onBatch) => new Promise((finish, fail) => void runs.push({ spec, onBatch, finish, fail })),
    pauseRun: vi.fn(async () => undefined),
    stepRun: async () => {
      throw new Error('run x is running; single steps need a paused run');
    },
  });
  return { client, runs };
}

const status = (state: RunStatus['state'], step: number): RunStatus => ({ state, step, totalSteps: 3, stepsPerS: null, etaS: null, error: null });

function batch(runId: string, steps: number[], state: RunStatus['state']): RunBatch {
  return {
    runId, step: Float64Array.from(steps), seconds: Float64Array.from(steps, () => 1), keys: ['reward'], metrics: Float64Array.from(steps, (s) => s / 10),
    samples: [], records: [], evals: [], status: status(state, steps[steps.length - 1] ?? 0),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

async function readyStore(archive: RunArchive | null, prefix = 'run', frames = manualFrames()): Promise<{ store: LabStore; runs: FakeRun[]; frames: ReturnType<typeof manualFrames> }> {
  const { client, runs } = fakeClient();
  let n = 0;
  const store = createLabStore(client, {
    fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
    archive, newRunId: () => `${prefix}${++n}`, now: () => 1000 + n,
  }, frames.schedule);
  await store.getState().initDevice();
  await store.getState().loadCatalog();
  store.getState().setField('loop', 'steps', 3);
  return { store, runs, frames };
}

describe('runs slice', () => {
  it('applies the batches of several runs once per frame and archives each', async () => {
    const archive = memoryArchive();
    const { store, runs, frames } = await readyStore(archive);
    void store.getState().startRun();
    store.getState().setField('loop', 'seed', 5);
    void store.getState().startRun();
    await settle();
    expect(runs.map((r) => r.spec.runId)).toEqual(['run1', 'run2']);
    expect(runs[1].spec.config).toMatchObject({ seed: 5, steps: 3 });
    // described against a named run: the last one of its loop
    expect(store.getState().runs.byId.run2.diff).toBe('vs #1: seed 5');
    expect(store.getState().runs.byId.run1.diff).toBe('the GRPO defaults, but steps 3');
    expect(selectBusy(store.getState())).toBe(true);

    const updates = vi.fn();
    store.subscribe(updates);
    runs[0].onBatch(batch('run1', [1], 'running'));
    runs[1].onBatch(batch('run2', [1], 'running'));
    runs[0].onBatch(batch('run1', [2], 'running'));
    expect(updates).not.toHaveBeenCalled();
    frames.frame();
    expect(updates).toHaveBeenCalledTimes(1);
    expect(store.getState().runs.byId.run1.data.series.reward).toEqual([0.1, 0.2]);
    expect(store.getState().runs.byId.run2.data.step).toEqual([1]);

    runs[0].onBatch(batch('run1', [3], 'running'));
    runs[0].finish(status('done', 3));
    runs[1].finish(status('stopped', 1));
    await settle();
    expect(store.getState().runs.byId.run1.status.state).toBe('done');
    expect(store.getState().runs.byId.run1.data.step).toEqual([1, 2, 3]);
    expect(selectBusy(store.getState())).toBe(false);
    await settle();
    const saved = await archive.loadRuns();
    expect(saved.map((r) => [r.record.id, r.record.status.state, r.chunks.length])).toEqual([['run1', 'done', 3], ['run2', 'stopped', 1]]);
  });

  it('rebuilds the run list from the archive; a run cut off by the reload is marked interrupted', async () => {
    const archive = memoryArchive();
    const first = await readyStore(archive);
    void first.store.getState().startRun();
    await settle();
    first.runs[0].onBatch(batch('run1', [1, 2], 'running'));
    first.frames.frame();
    await settle();

    const second = await readyStore(archive, 'later');
    await second.store.getState().loadArchive();
    const runs = second.store.getState().runs;
    expect(runs.order).toEqual(['run1']);
    expect(runs.selected).toBe('run1');
    expect(runs.byId.run1.live).toBe(false);
    expect(runs.byId.run1.status).toMatchObject({ state: 'stopped', step: 2, error: expect.stringMatching(/interrupted/) as unknown });
    expect(runs.byId.run1.data.series.reward).toEqual([0.1, 0.2]);
    expect(selectBusy(second.store.getState())).toBe(false);
    // the next run is numbered after the archived ones
    void second.store.getState().startRun();
    await settle();
    expect(second.store.getState().runs.byId.run1.index).toBe(1);
    expect(second.store.getState().runs.byId[second.runs[0].spec.runId].label).toBe('#2 GRPO · tiny');
  });

  it('shows a run finished only once the archive holds it finished: a reload on seeing it done finds it done', async () => {
    const inner = memoryArchive();
    // the archive's writes wait until the test lets them land: records and chunks apart (separate
    // stores, whose transactions may land in either order)
    const gates: (() => void)[] = [];
    const chunkGates: (() => void)[] = [];
    const archive: RunArchive = {
      ...inner,
      putRun: (r) => new Promise<void>((land) => void gates.push(() => void inner.putRun(r).then(land))),
      appendChunk: (id, c) => new Promise<void>((land) => void chunkGates.push(() => void inner.appendChunk(id, c).then(land))),
    };
    const openGates = async (which = [gates, chunkGates]) => {
      for (const g of which) while (g.length) g.shift()?.();
      await settle();
    };
    const first = await readyStore(archive);
    void first.store.getState().startRun();
    await settle();
    await openGates();
    first.runs[0].onBatch(batch('run1', [1, 2], 'running'));
    first.frames.frame();
    await openGates();
    expect(first.store.getState().runs.byId.run1.status.state).toBe('running');

    // the worker's last batch says done, then its start call returns
    first.runs[0].onBatch(batch('run1', [3], 'done'));
    first.frames.frame();
    first.runs[0].finish(status('done', 3));
    await settle();
    // written but not yet landed: the page still shows it running (its data is in)
    expect(gates.length).toBeGreaterThan(0);
    expect(first.store.getState().runs.byId.run1.data.step).toEqual([1, 2, 3]);
    expect(first.store.getState().runs.byId.run1.status.state).toBe('running');
    expect((await inner.loadRuns())[0].record.status.state).toBe('running');
    // the record lands first: the last chunk has not, so the run is not shown done yet
    await openGates([gates]);
    await openGates([gates]);
    expect((await inner.loadRuns())[0].record.status.state).toBe('done');
    expect(chunkGates.length).toBeGreaterThan(0);
    expect(first.store.getState().runs.byId.run1.status.state).toBe('running');
    await openGates();
    await openGates();
    expect(first.store.getState().runs.byId.run1.status).toMatchObject({ state: 'done', step: 3 });
    expect((await inner.loadRuns())[0].chunks.map((c) => c.step)).toEqual([[1, 2], [3]]);

    // a page opened now (the reload a user makes on seeing it done) finds it done, not interrupted
    const second = await readyStore(inner, 'later');
    await second.store.getState().loadArchive();
    expect(second.store.getState().runs.byId.run1.status).toMatchObject({ state: 'done', step: 3, error: null });
  });

  it('ends a run the worker refuses as failed, with its message, and shows a refused command', async () => {
    const { store, runs } = await readyStore(null);
    void store.getState().startRun();
    await settle();
    runs[0].fail(new Error('grpo.evalSet = "x": unknown data set'));
    await settle();
    expect(store.getState().runs.byId.run1.status).toMatchObject({ state: 'failed', error: 'grpo.evalSet = "x": unknown data set' });
    await store.getState().stepRun('run1');
    expect(store.getState().runs.message).toMatch(/single steps need a paused run/);
    await store.getState().deleteRun('run1');
    expect(store.getState().runs.order).toEqual([]);
  });

  it('does not start an invalid set-up', async () => {
    const { store, runs } = await readyStore(null);
    store.getState().setField('loop', 'groupSize', 0);
    await store.getState().startRun();
    expect(runs).toHaveLength(0);
    expect(store.getState().runs.message).toMatch(/groupSize = 0/);
  });
});
