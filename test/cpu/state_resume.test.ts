// Resuming runs from checkpoints, page side, with a fake client: a run cut off by a reload comes
// back interrupted and resumes under its own id from the worker's latest checkpoint (its charts
// then come from the checkpoint's record, samples after it dropped, in the archive too); a run halted by a lost GPU resumes once a new device is ready,
// its earlier halts kept, and not after three losses; deleting a run deletes its checkpoint;
// checkpoints of active runs cannot be pruned.
import { describe, expect, it, vi } from 'vitest';
import type { AdapterReport, CheckpointInfo, LabClient, RunBatch, RunHalt, RunSpec, RunStatus } from '../../src/lab/protocol';
import { memoryArchive, type RunArchive } from '../../src/state/persist/archive';
import { command } from '../../src/state/commands';
import { INTERRUPTED } from '../../src/state/resume';
import { createLabStore, type LabStore } from '../../src/state/store';
import { fakeLabClient } from '../helpers/labClient';
import type { RunOwnership } from '../../src/state/ownership';

/** Run ownership shared by the "tabs" of a test: claims in a set, as Web Locks would hold them. */
function sharedLocks() {
  const held = new Map<string, symbol>();
  return (tab: symbol): RunOwnership => ({
    claim(id) {
      held.set(id, tab);
      return () => void (held.get(id) === tab && held.delete(id));
    },
    heldElsewhere: async () => new Set([...held].filter(([, t]) => t !== tab).map(([id]) => id)),
  });
}

const READY: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} }, deviceLimits: {} };

interface FakeRun {
  spec: RunSpec;
  onBatch: (b: RunBatch) => void;
  finish: (s: RunStatus) => void;
}

function fakeClient(checkpoints: CheckpointInfo[]) {
  const runs: FakeRun[] = [];
  let onEvent: Parameters<LabClient['init']>[0] = () => undefined;
  const client = fakeLabClient({
    init: async (cb) => ((onEvent = cb), READY),
    startRun: (spec, onBatch) => new Promise((finish) => void runs.push({ spec, onBatch, finish })),
    debugLoseDevice: async () => onEvent({ type: 'device-lost', reason: 'destroyed', message: '' }),
    reconnect: vi.fn(async () => READY),
    listCheckpoints: async () => checkpoints,
    deleteCheckpoints: vi.fn(async () => undefined),
    exportCheckpoint: async (runId, format) => ({ filename: `${runId}.${format}`, mime: 'application/octet-stream', bytes: new Uint8Array([1, 2]) }),
  });
  return { client, runs };
}

const status = (state: RunStatus['state'], step: number, extra: Partial<RunStatus> = {}): RunStatus => ({ state, step, totalSteps: 5, stepsPerS: null, etaS: null, error: null, ...extra });
const lostHalt = (step: number): RunHalt => ({ step, kind: 'device-lost', message: `The GPU device was lost after step ${step}.` });

function batch(runId: string, steps: number[], st: RunStatus): RunBatch {
  return {
    runId, step: Float64Array.from(steps), seconds: Float64Array.from(steps, () => 1), keys: ['reward'], metrics: Float64Array.from(steps, (s) => s / 10),
    samples: steps.map((step) => ({ type: 'samples' as const, step, samples: [] })),
    records: [],
    // evaluations at step 0 (with the first step) and every even step
    evals: [...(steps[0] === 1 ? [0] : []), ...steps].filter((s) => s % 2 === 0).map((step) => ({ type: 'eval' as const, step, set: 'e', passAtK: {}, avgAtK: {}, majAtK: {}, meanEntropy: 0, meanLength: 0, histogram: [] })),
    status: st,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

async function store(archive: RunArchive, checkpoints: CheckpointInfo[] = [], ownership: RunOwnership | null = null, firstId = 1): Promise<{ store: LabStore; runs: FakeRun[]; client: LabClient }> {
  const { client, runs } = fakeClient(checkpoints);
  let n = firstId - 1;
  const s = createLabStore(client, {
    fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
    archive, newRunId: () => `run${++n}`, now: () => 1000 + n, ownership,
  }, (cb) => void cb());
  await s.getState().initDevice();
  await s.getState().loadCatalog();
  s.getState().setField('loop', 'steps', 5);
  return { store: s, runs, client };
}

/** A run that streamed steps 1–3 (evals at 0 and 2) and was computing when the page closed. */
async function interruptedArchive(): Promise<RunArchive> {
  const archive = memoryArchive();
  const first = await store(archive);
  void first.store.getState().startRun();
  await settle();
  first.runs[0].onBatch(batch('run1', [1, 2, 3], status('running', 3)));
  await settle();
  await first.store.getState().loadArchive();
  return archive;
}

describe('resume from a checkpoint', () => {
  it('an interrupted run resumes under its id from the worker\'s checkpoint; its charts are rebuilt from the checkpoint, archive included', async () => {
    const archive = await interruptedArchive();
    const { store: s, runs } = await store(archive, [{ runId: 'run1', step: 2, bytes: 10, savedAt: 1 }]);
    await s.getState().loadArchive();
    const run = s.getState().runs.byId.run1;
    expect(run.status).toMatchObject({ state: 'stopped', error: INTERRUPTED });
    expect(command('resume').enabled(s.getState())).toBe(true);

    command('resume').run(s.getState());
    await settle();
    await settle();
    expect(runs[0].spec).toMatchObject({ runId: 'run1', loop: 'grpo', policy: 'tiny', resume: true });
    const resumed = s.getState().runs.byId.run1;
    expect(resumed).toMatchObject({ live: true, status: { state: 'starting', step: 2, error: null } });
    expect(resumed.data.step).toEqual([]);
    expect(resumed.data.evals).toEqual([]);
    expect(resumed.data.samples.map((e) => e.step)).toEqual([1, 2]);
    const saved = (await archive.loadRuns())[0];
    expect(saved.chunks.flatMap((c) => Array.from(c.step))).toEqual([]);
    expect(saved.chunks.flatMap((c) => c.samples.map((e) => e.step))).toEqual([1, 2]);

    // the worker sends the checkpoint's record (steps 1–2, evaluations 0 and 2), then the new steps
    runs[0].onBatch({ ...batch('run1', [1, 2], status('running', 2)), samples: [] });
    runs[0].onBatch(batch('run1', [3, 4, 5], status('running', 5)));
    runs[0].finish(status('done', 5, { checkpointStep: 5 }));
    await settle();
    expect(s.getState().runs.byId.run1.data.step).toEqual([1, 2, 3, 4, 5]);
    expect(s.getState().runs.byId.run1.data.evals.map((e) => e.step)).toEqual([0, 2, 4]);
    expect((await archive.loadRuns())[0].chunks.flatMap((c) => Array.from(c.step))).toEqual([1, 2, 3, 4, 5]);
    expect(s.getState().runs.byId.run1.status).toMatchObject({ state: 'done', checkpointStep: 5 });
  });

  it('without a checkpoint the run starts again from its base policy', async () => {
    const archive = await interruptedArchive();
    const { store: s, runs } = await store(archive, []);
    await s.getState().loadArchive();
    // resolves when the run ends: let it start
    void s.getState().resumeFromCheckpoint('run1');
    await settle();
    await settle();
    expect(runs[0].spec.resume).toBe(false);
    expect(s.getState().runs.byId.run1.data.step).toEqual([]);
  });

  it('a run halted by a lost GPU resumes once a new device is ready, keeps its halts, and not after three losses', async () => {
    const { store: s, runs, client } = await store(memoryArchive(), [{ runId: 'run1', step: 1, bytes: 10, savedAt: 1 }]);
    void s.getState().startRun();
    await settle();
    const lose = async (i: number, step: number) => {
      await s.getState().debugLoseDevice();
      runs[i].finish(status('failed', step, { halts: [lostHalt(step)], error: 'lost' }));
      await settle();
    };
    await lose(0, 1);
    expect(command('resume').enabled(s.getState())).toBe(false);
    await s.getState().reconnectDevice();
    expect(client.reconnect).toHaveBeenCalledTimes(1);
    expect(s.getState().device.deviceLost).toBeNull();
    expect(command('resume').enabled(s.getState())).toBe(true);

    for (let i = 1; i <= 2; i++) {
      void s.getState().resumeFromCheckpoint('run1');
      await settle();
      await settle();
      expect(runs[i].spec).toMatchObject({ runId: 'run1', resume: true });
      await lose(i, 2);
      await s.getState().reconnectDevice();
    }
    const halts = s.getState().runs.byId.run1.status.halts ?? [];
    expect(halts.map((h) => h.step)).toEqual([1, 2, 2]);
    expect(command('resume').enabled(s.getState())).toBe(false);
    await s.getState().resumeFromCheckpoint('run1');
    expect(runs).toHaveLength(3);
    expect(s.getState().runs.message).toMatch(/cannot be resumed from a checkpoint/);
  });

  it('deleting a run deletes its checkpoint; an active run\'s checkpoint is not pruned; export hands back the file', async () => {
    const { store: s, runs, client } = await store(memoryArchive(), [{ runId: 'run1', step: 1, bytes: 10, savedAt: 1 }]);
    void s.getState().startRun();
    await settle();
    await s.getState().pruneCheckpoints(['run1']);
    expect(s.getState().checkpoints.message).toMatch(/is still active; stop it before deleting its checkpoint/);
    expect(client.deleteCheckpoints).not.toHaveBeenCalled();
    expect((await s.getState().exportCheckpoint('run1', 'onnx'))?.filename).toBe('run1.onnx');
    runs[0].finish(status('done', 5));
    await settle();
    await s.getState().deleteRun('run1');
    expect(client.deleteCheckpoints).toHaveBeenCalledWith(['run1']);
  });
});

describe('runs of other tabs, and resuming every cut-off run at once', () => {
  it('a run another tab computes is shown as running there, untouched; once that tab lets go, the run is its own again', async () => {
    const locks = sharedLocks();
    const archive = memoryArchive();
    const first = await store(archive, [], locks(Symbol('tab 1')));
    void first.store.getState().startRun();
    await settle();
    first.runs[0].onBatch(batch('run1', [1, 2], status('running', 2)));
    await settle();

    // a second tab opens while run1 computes in the first
    const second = await store(archive, [{ runId: 'run1', step: 2, bytes: 10, savedAt: 1 }], locks(Symbol('tab 2')), 100);
    await second.store.getState().loadArchive();
    const there = second.store.getState().runs.byId.run1;
    expect(there).toMatchObject({ live: false, elsewhere: true, status: { state: 'running', step: 2, error: null } });
    expect(command('resume').enabled(second.store.getState())).toBe(false);
    expect(second.store.getState().resumeInterrupted()).toBe(0);
    // nothing was written over the first tab's record
    expect((await archive.loadRuns())[0].record.status).toMatchObject({ state: 'running', step: 2 });

    // the first tab's run ends: its claim is released; a third tab sees it finished
    first.runs[0].finish(status('done', 5));
    await settle();
    const third = await store(archive, [], locks(Symbol('tab 3')), 200);
    await third.store.getState().loadArchive();
    expect(third.store.getState().runs.byId.run1.status.state).toBe('done');
    expect(third.store.getState().runs.byId.run1.elsewhere).toBeUndefined();
  });

  it('Resume all starts every run a reload cut off, side by side, each from its checkpoint', async () => {
    const archive = memoryArchive();
    const first = await store(archive);
    void first.store.getState().startRun();
    void first.store.getState().startRun();
    await settle();
    first.runs[0].onBatch(batch('run1', [1], status('running', 1)));
    first.runs[1].onBatch(batch('run2', [1, 2], status('running', 2)));
    await settle();
    const { store: s, runs } = await store(archive, [{ runId: 'run1', step: 1, bytes: 10, savedAt: 1 }, { runId: 'run2', step: 2, bytes: 10, savedAt: 1 }], null, 100);
    await s.getState().loadArchive();
    expect(s.getState().resumeInterrupted()).toBe(2);
    await settle();
    await settle();
    expect(runs.map((r) => [r.spec.runId, r.spec.resume])).toEqual([['run1', true], ['run2', true]]);
    expect(s.getState().runs.byId.run2.status).toMatchObject({ state: 'starting', step: 2 });
    expect(s.getState().resumeInterrupted()).toBe(0);
  });
});
