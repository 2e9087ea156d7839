// The grid's queue (src/explore/queue.ts reconcile) against a fake run list: runs start as slots
// free up, none while paused; a failed, halted or stopped run is marked and the grid goes on; a
// run a reload cut off is resumed, a finished one never started again; a control run waits for
// its matched run and takes its generated tokens as budget; progress and ETA from the step time.
import { describe, expect, it } from 'vitest';
import { expandGrid, type GridForm } from '../../src/explore/grid';
import { defaultConcurrency, estimateSeconds, gridProgress, measuredStepSeconds, newEntries, reconcile, type GridState, type QueueAction, type RunLook } from '../../src/explore/queue';
import { DEFAULT_LAUNCHER, setField, setLoop, setSetup } from '../../src/state/launcher';

const CATALOG = { names: ['small'], defaultPolicy: 'small' };
const base = setField(setSetup(setLoop(DEFAULT_LAUNCHER, 'grpo'), 'lab'), 'loop', 'steps', 4);

function grid(form: Partial<GridForm>, concurrency = 1): GridState {
  const e = expandGrid({ knobs: [{ key: 'lr', values: '1e-4, 3e-5' }], seeds: '1, 2', control: null, concurrency: null, ...form }, base, CATALOG);
  if (!e.ok) throw new Error(e.message);
  return { id: 'g', createdAt: 0, title: 't', arms: e.arms, runs: e.runs, entries: newEntries(e.runs), paused: false, concurrency };
}

/** A fake run list and the runner the queue drives: a start adds a run, the test moves it on. */
class FakeRuns {
  readonly runs = new Map<string, RunLook>();
  started: string[] = [];
  private n = 0;
  g: GridState;
  constructor(g: GridState) {
    this.g = g;
  }
  look = (id: string) => this.runs.get(id);
  /** One reconcile, carrying out its start actions as the driver does; the other actions returned. */
  tick(opts = { ready: true, listed: true }): QueueAction[] {
    const { grid, actions } = reconcile(this.g, this.look, opts);
    this.g = grid;
    for (const a of actions) {
      if (a.kind !== 'start') continue;
      const id = `run${++this.n}`;
      this.g = { ...this.g, entries: { ...this.g.entries, [a.key]: { key: a.key, state: 'running', runId: id } } };
      this.runs.set(id, { state: 'running', interrupted: false, step: 0, totalSteps: a.plan.config.steps, error: null, halts: [], tokens: 0 });
      this.started.push(`${a.key}${a.plan.config.tokenBudget ? `@${a.plan.config.tokenBudget}` : ''}`);
    }
    return actions.filter((a) => a.kind !== 'start');
  }
  runOf(key: string): string {
    return this.g.entries[key].runId!;
  }
  set(key: string, p: Partial<RunLook>) {
    const id = this.runOf(key);
    this.runs.set(id, { ...this.runs.get(id)!, ...p });
  }
  states() {
    return Object.fromEntries(Object.values(this.g.entries).map((e) => [e.key, e.state]));
  }
}

describe('explore/queue: reconcile', () => {
  it('starts runs as slots free up, seed by seed', () => {
    const q = new FakeRuns(grid({}, 2));
    q.tick();
    expect(q.started).toEqual(['arm1/1', 'arm2/1']);
    q.tick();
    expect(q.started).toHaveLength(2);
    q.set('arm1/1', { state: 'done', step: 4 });
    q.tick();
    expect(q.started).toEqual(['arm1/1', 'arm2/1', 'arm1/2']);
    expect(q.states()).toEqual({ 'arm1/1': 'done', 'arm2/1': 'running', 'arm1/2': 'running', 'arm2/2': 'queued' });
  });

  it('nothing starts until runs can start and the run list has loaded', () => {
    const q = new FakeRuns(grid({}));
    q.tick({ ready: false, listed: true });
    q.tick({ ready: true, listed: false });
    expect(q.started).toEqual([]);
  });

  it('a failed, a halted and a stopped run are marked and the grid goes on', () => {
    const q = new FakeRuns(grid({}));
    q.tick();
    q.set('arm1/1', { state: 'failed', error: 'out of memory' });
    q.tick();
    // a halt pauses the run waiting for the user: the queue stops it and goes on
    q.set('arm2/1', { state: 'paused', step: 2, halts: [{ step: 2, kind: 'nonfinite', message: 'Step 2: loss = NaN is not finite.' }] });
    expect(q.tick()).toEqual([{ kind: 'stop', runId: q.runOf('arm2/1') }]);
    q.set('arm1/2', { state: 'stopped', step: 1 });
    q.tick();
    expect(q.states()).toEqual({ 'arm1/1': 'failed', 'arm2/1': 'halted', 'arm1/2': 'stopped', 'arm2/2': 'running' });
    expect(q.g.entries['arm1/1'].note).toBe('out of memory');
    expect(q.g.entries['arm2/1'].note).toMatch(/not finite/);
    // the stopped halted run is not asked again
    q.set('arm2/1', { state: 'stopped' });
    expect(q.tick()).toEqual([]);
    expect(q.states()['arm2/1']).toBe('halted');
  });

  it('paused: nothing new starts and running runs are paused; resumed: they continue', () => {
    const q = new FakeRuns(grid({}));
    q.tick();
    q.g = { ...q.g, paused: true };
    q.set('arm1/1', { state: 'done' });
    expect(q.tick()).toEqual([]);
    expect(q.started).toEqual(['arm1/1']);
    q.g = { ...q.g, paused: false };
    q.tick();
    q.g = { ...q.g, paused: true };
    expect(q.tick()).toEqual([{ kind: 'pause', runId: q.runOf('arm2/1') }]);
    q.set('arm2/1', { state: 'paused' });
    q.g = { ...q.g, paused: false };
    expect(q.tick()).toEqual([{ kind: 'unpause', runId: q.runOf('arm2/1') }]);
  });

  it('after a reload: an interrupted run resumes under its id, a finished one is never started again, one that never reached the list starts again', () => {
    const q = new FakeRuns(grid({}, 2));
    q.tick();
    q.set('arm1/1', { state: 'done', step: 4 });
    q.tick();
    // the reload: arm2/1 was cut off; arm1/2's run was saved in the grid but never in the run list
    q.set('arm2/1', { state: 'stopped', interrupted: true, step: 2 });
    q.runs.delete(q.runOf('arm1/2'));
    const before = q.runOf('arm2/1');
    expect(q.tick({ ready: false, listed: false })).toEqual([]);
    expect(q.tick()).toEqual([{ kind: 'resume', key: 'arm2/1', runId: before }]);
    expect(q.states()).toEqual({ 'arm1/1': 'done', 'arm2/1': 'running', 'arm1/2': 'running', 'arm2/2': 'queued' });
    expect(q.started).toEqual(['arm1/1', 'arm2/1', 'arm1/2', 'arm1/2']);
    expect(q.runOf('arm1/1')).toBe('run1');
    // a finished run deleted from the run list afterwards: marked, not recomputed
    q.runs.delete('run1');
    q.tick();
    expect(q.g.entries['arm1/1']).toMatchObject({ state: 'failed', note: 'its run was deleted from the run list' });
    expect(q.started.filter((k) => k === 'arm1/1')).toHaveLength(1);
  });

  it('a control run waits for its matched run and takes its generated tokens as its budget', () => {
    const q = new FakeRuns(grid({ knobs: [{ key: 'lr', values: '1e-4' }], seeds: '1', control: { loop: 'grpo', setup: 'paper', matchArm: 0, steps: 40 } }, 2));
    q.tick();
    expect(q.started).toEqual(['arm1/1']);
    q.set('arm1/1', { state: 'done', tokens: 5123.4 });
    q.tick();
    expect(q.started).toEqual(['arm1/1', 'control/1@5123']);
  });

  it('a control whose matched run failed is marked failed', () => {
    const q = new FakeRuns(grid({ knobs: [], seeds: '1', control: { loop: 'grpo', setup: 'paper', matchArm: 0, steps: 40 } }));
    q.tick();
    q.set('arm1/1', { state: 'failed', error: 'x' });
    q.tick();
    expect(q.g.entries['control/1']).toMatchObject({ state: 'failed', note: expect.stringMatching(/matched run arm1\/1 is failed/) as unknown });
  });
});

describe('explore/queue: progress, estimates and defaults', () => {
  it('ETA: the steps left at the measured step time, over the runs that compute at once', () => {
    const q = new FakeRuns(grid({}, 2));
    q.tick();
    q.set('arm1/1', { step: 3 });
    const p = gridProgress(q.g, q.look, 10);
    expect(p).toMatchObject({ runs: 4, steps: 16, stepsDone: 3, running: 2, ended: 0 });
    expect(p.etaS).toBe((13 * 10) / 2);
    expect(gridProgress(q.g, q.look, null).etaS).toBeNull();
    expect(estimateSeconds(q.g.runs, 2, 1)).toBe(32);
    expect(estimateSeconds(q.g.runs, null, 1)).toBeNull();
  });
  it('the step time measured on this adapter: the median of earlier steps of the loop on the policy', () => {
    const runs = [{ loop: 'grpo', policy: 'small', data: { seconds: [1, 9, 2, NaN] } }, { loop: 'svs', policy: 'small', data: { seconds: [100] } }];
    expect(measuredStepSeconds(runs, 'grpo', 'small')?.seconds).toBe(2);
    expect(measuredStepSeconds(runs, 'datpo', 'small')?.seconds).toBe(9);
    expect(measuredStepSeconds(runs, 'grpo', 'tiny')).toBeNull();
  });
  it('one run at a time on a CPU adapter or in CPU mode, two on a GPU', () => {
    const a = (name: string) => ({ name, vendor: 'google', architecture: '', description: '' });
    expect(defaultConcurrency(a('SwiftShader Device (Subzero)'), false)).toBe(1);
    expect(defaultConcurrency(a('NVIDIA H200'), false)).toBe(2);
    expect(defaultConcurrency(a('NVIDIA H200'), true)).toBe(1);
  });
});
