// A second tab follows a run another tab computes (issue 28 §4): chunks come over the channel
// (those it read from the archive are not added twice, a missed one makes it read the run again),
// the final status ends it there too, and if the owning tab goes away without one, the run reads
// as cut off once its lock frees.
import { describe, expect, it } from 'vitest';
import type { AdapterReport, RunBatch, RunSpec, RunStatus } from '../../src/lab/protocol';
import { memoryArchive, type RunArchive } from '../../src/state/persist/archive';
import { INTERRUPTED } from '../../src/state/resume';
import { memoryRunChannels, type RunChannel } from '../../src/state/runChannel';
import type { RunOwnership } from '../../src/state/ownership';
import { createLabStore, type LabStore } from '../../src/state/store';
import { fakeLabClient } from '../helpers/labClient';

/** Web Locks as the tabs of a test share them: a claim until released, and waiters for a free lock. */
function sharedLocks() {
  const held = new Map<string, symbol>();
  const waiting = new Map<string, (() => void)[]>();
  const free = (id: string) => {
    held.delete(id);
    for (const w of waiting.get(id) ?? []) w();
    waiting.delete(id);
  };
  return {
    tab(tab: symbol): RunOwnership {
      return {
        claim(id) {
          held.set(id, tab);
          return () => void (held.get(id) === tab && free(id));
        },
        heldElsewhere: async () => new Set([...held].filter(([, t]) => t !== tab).map(([id]) => id)),
        whenFree: (id) => (held.has(id) ? new Promise<void>((r) => waiting.set(id, [...(waiting.get(id) ?? []), r])) : Promise.resolve()),
      };
    },
    /** the owner's tab closes: the browser drops its locks */
    close: (id: string) => free(id),
  };
}

const READY: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} }, deviceLimits: {} };
const status = (state: RunStatus['state'], step: number): RunStatus => ({ state, step, totalSteps: 4, stepsPerS: null, etaS: 3, error: null });
const batch = (runId: string, step: number, st: RunStatus): RunBatch => ({
  runId, step: Float64Array.of(step), seconds: Float64Array.of(1), keys: ['reward'], metrics: Float64Array.of(step / 10), samples: [], records: [], evals: [], status: st,
});
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

async function tab(archive: RunArchive, ownership: RunOwnership, channel: RunChannel) {
  const runs: { spec: RunSpec; onBatch: (b: RunBatch) => void; finish: (s: RunStatus) => void }[] = [];
  const client = fakeLabClient({ init: async () => READY, startRun: (spec, onBatch) => new Promise((finish) => void runs.push({ spec, onBatch, finish })) });
  const store: LabStore = createLabStore(client, {
    fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
    archive, ownership, channel, newRunId: () => 'r1', now: () => 1,
  }, (cb) => void cb());
  await store.getState().initDevice();
  await store.getState().loadCatalog();
  store.getState().setField('loop', 'steps', 4);
  return { store, runs };
}

/** The first tab runs `before` steps, then the second opens (its archive and channel as `follower` wraps them). */
async function twoTabs(before = 2, follower: { archive?: (x: RunArchive) => RunArchive; channel?: (x: RunChannel) => RunChannel } = {}) {
  const archive = memoryArchive();
  const locks = sharedLocks();
  const channels = memoryRunChannels();
  const a = await tab(archive, locks.tab(Symbol('a')), channels());
  void a.store.getState().startRun();
  await settle();
  for (let step = 1; step <= before; step++) a.runs[0].onBatch(batch('r1', step, status('running', step)));
  await settle();
  // the second tab opens mid-run: the steps so far from the archive
  const b = await tab(follower.archive?.(archive) ?? archive, locks.tab(Symbol('b')), follower.channel?.(channels()) ?? channels());
  await b.store.getState().loadArchive();
  return { a, b, locks, run: () => b.store.getState().runs.byId.r1 };
}

describe('a run another tab computes', () => {
  it('is followed live to its end: each chunk once, then the final status', async () => {
    const { a, run } = await twoTabs();
    expect(run()).toMatchObject({ elsewhere: true, status: { state: 'running', step: 2 } });
    expect(run().data.step).toEqual([1, 2]);
    a.runs[0].onBatch(batch('r1', 3, status('running', 3)));
    await settle();
    expect(run().data.step).toEqual([1, 2, 3]);
    expect(run().status.step).toBe(3);
    a.runs[0].onBatch(batch('r1', 4, status('running', 4)));
    a.runs[0].finish(status('done', 4));
    await settle();
    expect(run().data.step).toEqual([1, 2, 3, 4]);
    expect(run().data.series.reward).toEqual([0.1, 0.2, 0.3, 0.4]);
    expect(run().status.state).toBe('done');
    expect(run().elsewhere).toBeUndefined();
  });

  it('ends with every step when a chunk was missed and the end overtakes the read it caused', async () => {
    // the follower's channel loses the step-3 chunk: step 4's then shows a gap, and the run is read
    // again from the archive; the final status arrives while that read is under way (the follower's
    // archive reads are slow, as IndexedDB's on a busy machine: the channel is faster)
    let dropped = 0;
    let slow = false;
    const { a, run } = await twoTabs(1, {
      channel: (inner) => ({ post: (m) => inner.post(m), listen: (f) => inner.listen((m) => (m.type === 'chunk' && m.seq === 1 && dropped++ === 0 ? undefined : f(m))) }),
      archive: (x) => ({ ...x, loadRuns: async () => (slow && (await new Promise((r) => setTimeout(r, 30))), x.loadRuns()) }),
    });
    slow = true;
    expect(run().data.step).toEqual([1]);
    a.runs[0].onBatch(batch('r1', 2, status('running', 2)));
    a.runs[0].onBatch(batch('r1', 3, status('running', 3)));
    a.runs[0].onBatch(batch('r1', 4, status('running', 4)));
    a.runs[0].finish(status('done', 4));
    await settle();
    await new Promise((r) => setTimeout(r, 100));
    expect(dropped).toBe(1);
    expect(run().status).toMatchObject({ state: 'done', step: 4 });
    expect(run().elsewhere).toBeUndefined();
    expect(run().data.step).toEqual([1, 2, 3, 4]);
  });

  it('reads as cut off, resumable, once its tab closes without finishing it', async () => {
    const { locks, run } = await twoTabs();
    locks.close('r1');
    await settle();
    expect(run().elsewhere).toBeUndefined();
    expect(run().status).toMatchObject({ state: 'stopped', error: INTERRUPTED, step: 2 });
    expect(run().data.step).toEqual([1, 2]);
  });
});
