// The explorer in the store with a fake engine: a grid's runs are ordinary runs of the run list,
// started one at a time on a CPU adapter; a refused grid queues nothing; a reload mid-grid resumes
// the cut-off run under its id and starts nothing finished again; the grid's runs become a Sweep
// that draws like a file (src/explore/live.ts), and a sweep export read back is the same sweep;
// a malformed file is refused naming the field and leaves the explorer as it was.
import { describe, expect, it } from 'vitest';
import type { AdapterReport, RunBatch, RunSpec, RunStatus } from '../../src/lab/protocol';
import { memoryArchive, type RunArchive } from '../../src/state/persist/archive';
import { memoryGridArchive, type GridArchive } from '../../src/state/persist/gridArchive';
import { createLabStore, type LabStore } from '../../src/state/store';
import { sweepOfGrid } from '../../src/explore/live';
import { readSweepText, sweepText } from '../../src/explore/format';
import { armLine, armViews, chartDefs, kCurve } from '../../src/explore/draw';
import { tableRows } from '../../src/explore/table';
import { fakeLabClient } from '../helpers/labClient';

const READY: AdapterReport = { ok: true, adapter: { name: 'SwiftShader Device', vendor: 'Google', architecture: 'swiftshader', description: '', features: [], limits: {} }, deviceLimits: {} };
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

interface FakeRun {
  spec: RunSpec;
  onBatch: (b: RunBatch) => void;
  finish: (s: RunStatus) => void;
}

const status = (state: RunStatus['state'], step: number): RunStatus => ({ state, step, totalSteps: 2, stepsPerS: null, etaS: null, error: null });

/** Steps with reward and tokens; evaluations (4 problems × 4 samples) at step 0 and the last step. */
function batch(runId: string, steps: number[], st: RunStatus, reward: number): RunBatch {
  const ev = (step: number, c: number[]) => ({ type: 'eval' as const, step, set: 'eval-mixed', passAtK: { '1': c.reduce((a, x) => a + x, 0) / 16, '4': 0.9 }, avgAtK: {}, majAtK: { '1': 0.4 }, meanEntropy: 1, meanLength: 9, histogram: [], n: 4, correct: c });
  return {
    runId, step: Float64Array.from(steps), seconds: Float64Array.from(steps, () => 2), keys: ['reward', 'tokens/generated'], metrics: Float64Array.from(steps.flatMap((s) => [reward + s / 10, 100])),
    samples: [], records: [], status: st,
    evals: [...(steps[0] === 1 ? [ev(0, [1, 2, 2, 3])] : []), ...(steps.includes(2) ? [ev(2, [2, 2, 3, 3])] : [])],
  };
}

async function lab(archive: RunArchive, grids: GridArchive, first = 1, checkpoints: string[] = []) {
  const runs: FakeRun[] = [];
  const client = fakeLabClient({
    init: async () => READY,
    startRun: (spec, onBatch) => new Promise((finish) => void runs.push({ spec, onBatch, finish })),
    listCheckpoints: async () => checkpoints.map((runId) => ({ runId, step: 1, bytes: 1, savedAt: 1 })),
  });
  let n = first - 1;
  const store: LabStore = createLabStore(client, {
    fetchCatalog: async () => ({ defaultPolicy: 'small', policies: [{ name: 'small', description: '', params: null }] }),
    archive, grids, newRunId: () => `id${++n}`, now: () => 1000 + n,
  }, (cb) => void cb());
  await store.getState().initDevice();
  await store.getState().loadCatalog();
  await store.getState().loadArchive();
  await store.getState().loadGrid();
  store.getState().setSetup('lab');
  store.getState().setField('loop', 'steps', 2);
  return { store, runs };
}

describe('the explorer in the store', () => {
  it('a refused grid names the arm and the field and queues nothing', async () => {
    const { store, runs } = await lab(memoryArchive(), memoryGridArchive());
    store.getState().setGridForm({ knobs: [{ key: 'rl.clipLow', values: '0.2, -1' }] });
    const r = await store.getState().startGrid();
    expect(r).toMatchObject({ arm: 'rl.clipLow -1 (seed 1)', field: 'rl.clipLow' });
    expect(store.getState().explorer.refusal?.message).toMatch(/^arm rl.clipLow -1 \(seed 1\): grpo\.rl\.clipLow = -1/);
    await settle();
    expect(store.getState().explorer.grid).toBeNull();
    expect(store.getState().runs.order).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('runs one at a time on a CPU adapter as ordinary runs; a reload resumes the cut-off run and recomputes nothing finished', async () => {
    const archive = memoryArchive();
    const grids = memoryGridArchive();
    const a = await lab(archive, grids);
    a.store.getState().setGridForm({ knobs: [{ key: 'lr', values: '1e-4, 3e-5' }], seeds: '1, 2' });
    expect(await a.store.getState().startGrid()).toBeNull();
    await settle();
    const g = a.store.getState().explorer.grid!;
    expect(g.concurrency).toBe(1);
    expect(a.runs.map((r) => r.spec.runId)).toEqual(['id2']);
    expect(a.store.getState().runs.byId.id2.label).toMatch(/^#1 GRPO · small · grid lr 1e-4 · seed 1$/);
    expect(a.runs[0].spec.config).toMatchObject({ lr: 1e-4, seed: 1, steps: 2 });
    // the grid knows whose run it is before the run starts
    expect(grids.saved()?.entries['arm1/1'].runId).toBe('id2');

    a.runs[0].onBatch(batch('id2', [1, 2], status('running', 2), 0.1));
    a.runs[0].finish(status('done', 2));
    await settle();
    expect(a.store.getState().explorer.grid!.entries['arm1/1'].state).toBe('done');
    expect(a.runs.map((r) => r.spec.runId)).toEqual(['id2', 'id3']);
    expect(a.runs[1].spec.config).toMatchObject({ lr: 3e-5, seed: 1 });
    a.runs[1].onBatch(batch('id3', [1], status('running', 1), 0.3));
    await settle();

    // the live sweep: arm 1 whole, arm 2 with its one seed so far; seeds planned 2 each
    const live = sweepOfGrid(a.store.getState().explorer.grid!, (id) => a.store.getState().runs.byId[id]);
    expect(live.planned).toEqual({ arm1: 2, arm2: 2 });
    const arms = armViews(live.sweep!, { order: ['arm1', 'arm2'], planned: live.planned });
    expect(arms.map((x) => [x.label, x.seeds.length, x.planned])).toEqual([['lr 1e-4', 1, 2], ['lr 3e-5', 1, 2]]);
    expect(chartDefs(arms).map((c) => c.id)).toEqual(['reward', 'tokens-generated']);
    expect(armLine(arms[0], 'reward', 'step', 'se').map((p) => [p.step, p.mean])).toEqual([[1, 0.2], [2, 0.30000000000000004]]);
    expect(armLine(arms[0], 'reward', 'tokens', 'se').map((p) => p.x)).toEqual([100, 200]);
    expect(armLine(arms[1], 'reward', 'time', 'se').map((p) => p.x)).toEqual([2]);

    // the page reloads while arm 2's first seed computes
    const b = await lab(archive, grids, 10, ['id3']);
    await settle();
    const st = b.store.getState();
    expect(st.explorer.grid!.entries['arm1/1']).toMatchObject({ state: 'done', runId: 'id2' });
    // resumed under its own id from its checkpoint; the finished run was not started again
    expect(b.runs.map((r) => [r.spec.runId, r.spec.resume])).toEqual([['id3', true]]);
    expect(st.runs.order).toEqual(['id2', 'id3']);
    b.runs[0].onBatch(batch('id3', [1, 2], status('running', 2), 0.3));
    b.runs[0].finish(status('done', 2));
    await settle();
    expect(b.runs.map((r) => r.spec.runId)).toEqual(['id3', 'id10']);
    expect(b.runs[1].spec.config).toMatchObject({ lr: 1e-4, seed: 2 });
  });

  it('a pause is kept across a reload: the cut-off run waits until the grid is resumed', async () => {
    const archive = memoryArchive();
    const grids = memoryGridArchive();
    const a = await lab(archive, grids);
    a.store.getState().setGridForm({ knobs: [{ key: 'lr', values: '1e-4, 3e-5' }], seeds: '1' });
    await a.store.getState().startGrid();
    await settle();
    a.runs[0].onBatch(batch('id2', [1], status('running', 1), 0.1));
    a.store.getState().pauseGrid();
    await settle();
    expect(grids.saved()?.paused).toBe(true);
    const b = await lab(archive, grids, 10, ['id2']);
    await settle();
    expect(b.store.getState().explorer.grid!.paused).toBe(true);
    expect(b.runs).toEqual([]);
    b.store.getState().resumeGrid();
    await settle();
    expect(b.runs.map((r) => [r.spec.runId, r.spec.resume])).toEqual([['id2', true]]);
    expect(grids.saved()?.paused).toBe(false);
  });

  it('the table pairs by problem, and an exported sweep imported again draws the same numbers', async () => {
    const { store, runs } = await lab(memoryArchive(), memoryGridArchive());
    store.getState().setGridForm({ knobs: [{ key: 'lr', values: '1e-4, 3e-5' }], seeds: '1', concurrency: 2 });
    await store.getState().startGrid();
    await settle();
    expect(runs).toHaveLength(2);
    runs.forEach((r, i) => {
      r.onBatch(batch(r.spec.runId, [1, 2], status('running', 2), i / 10));
      r.finish(status('done', 2));
    });
    await settle();
    const live = sweepOfGrid(store.getState().explorer.grid!, (id) => store.getState().runs.byId[id]).sweep!;
    const rows = tableRows(armViews(live), ['reward'], 'arm1');
    // per problem (2−1, 2−2, 3−2, 3−3)/4 = mean 0.125, s.e. of [0.25, 0, 0.25, 0] = 0.0722
    expect(rows[0].change!.mean).toBeCloseTo(0.125, 12);
    expect(rows[0].change!.se).toBeCloseTo(Math.sqrt((4 * 0.125 ** 2) / 3 / 4), 12);
    expect(rows[0].change!.withinTwoSe).toBe(true);
    expect(rows[1].vsControl!.mean).toBe(0);
    expect(rows[0].vsControl).toBeNull();
    expect(rows[1].metrics.reward.mean).toBeCloseTo(0.3, 12);

    const back = readSweepText('grid.json', sweepText(live));
    const [x, y] = [armViews(live), armViews(back)];
    expect(armLine(y[1], 'reward', 'step', 'se')).toEqual(armLine(x[1], 'reward', 'step', 'se'));
    expect(kCurve(y[0], 'end', 'pass')).toEqual(kCurve(x[0], 'end', 'pass'));
    expect(tableRows(y, ['reward'], 'arm1').map((r) => r.change?.mean)).toEqual(rows.map((r) => r.change?.mean));
  });

  it('a shown sweep file runs live: the same arms, configs and seeds queued on this GPU', async () => {
    const { store, runs } = await lab(memoryArchive(), memoryGridArchive());
    const ablation = (lr: number) => JSON.stringify({ loop: 'grpo', base: 'public/models/small', config: { steps: 2, lr, evalProblems: 4, evalN: 4 }, partial: false, results: [{ seed: 7, start: { type: 'eval', step: 0, set: 'e', passAtK: { 1: 0.5 }, meanEntropy: 1 }, end: { type: 'eval', step: 2, set: 'e', passAtK: { 1: 0.6 }, meanEntropy: 1 }, steps: 2, generatedTokens: 10, seconds: 1, report: {} }] });
    const file = (name: string, text: string) => ({ name, size: text.length, text: async () => text });
    await store.getState().importSweepFiles([file('fast.json', ablation(1e-4)), file('slow.json', ablation(3e-5))]);
    store.getState().setGridForm({ concurrency: 2 });
    expect(await store.getState().startSweepLive()).toBeNull();
    await settle();
    expect(store.getState().explorer.source.kind).toBe('grid');
    expect(runs.map((r) => [r.spec.policy, (r.spec.config as { lr: number; seed: number }).lr, (r.spec.config as { seed: number }).seed])).toEqual([['small', 1e-4, 7], ['small', 3e-5, 7]]);
    expect(store.getState().explorer.grid!.arms.map((a) => a.label)).toEqual(['grpo · fast', 'grpo · slow']);
  });

  it('a malformed file is refused with the field path and the explorer is unchanged', async () => {
    const { store } = await lab(memoryArchive(), memoryGridArchive());
    const file = (name: string, text: string) => ({ name, size: text.length, text: async () => text });
    const good = JSON.stringify({ loop: 'grpo', base: 'public/models/small', config: {}, partial: false, results: [{ seed: 1, start: { type: 'eval', step: 0, set: 'e', passAtK: { 1: 0.5 }, meanEntropy: 1 }, end: { type: 'eval', step: 2, set: 'e', passAtK: { 1: 0.6 }, meanEntropy: 1 }, steps: 2, generatedTokens: 10, seconds: 1, report: {} }] });
    expect(await store.getState().importSweepFiles([file('a.json', good)])).toBeNull();
    const shown = store.getState().explorer.source;
    expect(shown).toMatchObject({ kind: 'file', name: 'a.json' });
    const bad = good.replace('"seed":1', '"seed":-1');
    const m = await store.getState().importSweepFiles([file('b.json', good), file('c.json', bad)]);
    expect(m).toMatch(/^c\.json: results\[0\]\.seed: /);
    expect(store.getState().explorer.source).toBe(shown);
    expect(await store.getState().importSweepFiles([{ name: 'big.json', size: 2 ** 30, text: async () => '' }])).toMatch(/big\.json: 1024 MB/);
    expect(store.getState().explorer.source).toBe(shown);
  });
});
