// Importing a run's JSON export: a file exported by the page reads back to the same run (NaN
// included), every malformed file of a corpus is refused with a message naming the file, the
// place and the problem, and the store adds a good file as a new, finished, archived run while a
// bad one changes nothing.
import { describe, expect, it } from 'vitest';
import type { EvalEvent, LabClient, RunStatus } from '../../src/lab/protocol';
import { memoryArchive } from '../../src/state/persist/archive';
import { runFile } from '../../src/state/files/exportRun';
import { importRunText, MAX_RUN_FILE_BYTES } from '../../src/state/files/importRun';
import { chunkOfData } from '../../src/state/runData';
import { defaultConfig } from '../../src/state/launcher';
import { appendChunk, EMPTY_RUN_DATA, type RunData } from '../../src/state/runData';
import { createLabStore } from '../../src/state/store';
import { validateGrpoConfig } from '../../src/loops/grpo/config';

const EVAL: EvalEvent = {
  type: 'eval', step: 0, set: 'eval-mixed', passAtK: { '1': 0.25, '2': 0.4, '4': 0.5 }, avgAtK: { '1': 0.25 }, majAtK: { '1': 0.25, '4': NaN },
  meanEntropy: 1.5, meanLength: 12, histogram: [2, 0, 1, 1],
};

function sampleRun(status: Partial<RunStatus> = {}) {
  let data: RunData = appendChunk(EMPTY_RUN_DATA, {
    step: [1, 2], seconds: [0.5, 0.25], keys: ['reward', 'kl'], metrics: [0.5, NaN, 0.75, 0.01],
    samples: [{ type: 'samples', step: 1, samples: [{ prompt: '3+4', response: '3+4=7;#7', reward: 1, entropy: [0.5, NaN] }] }],
    evals: [EVAL],
  });
  data = appendChunk(data, { step: [3], seconds: [0.3], keys: ['reward', 'lr'], metrics: [1, 1e-4], samples: [], evals: [{ ...EVAL, step: 3 }] });
  const config = validateGrpoConfig({ steps: 3, seed: 4, rl: { clipHigh: 0.2 } });
  const st: RunStatus = { state: 'done', step: 3, totalSteps: 3, stepsPerS: 0.5, etaS: 0, error: null, halts: [{ step: 2, kind: 'nonfinite', message: 'step 2: kl is NaN' }], ...status };
  return { id: 'abc', index: 2, label: '#2 GRPO · tiny', diff: 'seed 4', loop: 'grpo', policy: 'tiny', config, createdAt: Date.UTC(2025, 4, 6, 7, 8, 9), status: st, data };
}

const goodText = () => runFile(sampleRun(), 'json').text;

describe('run import: round trip', () => {
  it('reads back exactly what the page exported (missing values stay NaN)', () => {
    const run = sampleRun();
    const r = importRunText('run.json', runFile(run, 'json').text);
    if (!r.ok) throw new Error(r.message);
    expect(r.run.data).toEqual(run.data);
    expect(Number.isNaN(r.run.data.series.kl[0])).toBe(true);
    expect(r.run.config).toEqual(run.config);
    expect(r.run.status).toEqual(run.status);
    expect(r.run).toMatchObject({ loop: 'grpo', policy: 'tiny', createdAt: run.createdAt, original: { id: 'abc', index: 2, label: '#2 GRPO · tiny' } });
  });

  it('an SvS run: its curriculum records, the samples\' roles and the evaluations\' per-problem counts come back', () => {
    const data = appendChunk(EMPTY_RUN_DATA, {
      step: [1], seconds: [1], keys: ['reward', 'mix/vps'], metrics: [0.5, 8],
      samples: [{ type: 'samples', step: 1, samples: [{ prompt: 'p', response: 'r', reward: 1, entropy: [0.5], role: 'vary' }] }],
      evals: [{ ...EVAL, n: 4, correct: [1, 0, 4] }],
      records: [{ type: 'records', step: 1, records: [{ kind: 'svs.variant', variant: '35+1', pHat: 0.375, reward: 1, kept: true, value: null, flags: [true, false] }] }],
    });
    const run = { ...sampleRun(), loop: 'svs', label: '#2 SVS · tiny', config: defaultConfig('svs'), data };
    const r = importRunText('run.json', runFile(run, 'json').text);
    if (!r.ok) throw new Error(r.message);
    expect(r.run.data).toEqual(data);
    // a record of a kind the loop does not make is refused, saying which it makes
    const body = JSON.parse(runFile(run, 'json').text) as { records: { records: { kind: string }[] }[] };
    body.records[0].records[0].kind = 'grpo.thing';
    const bad = importRunText('run.json', JSON.stringify(body));
    expect(bad.ok ? '' : bad.message).toMatch(/records\[0\]\.records\[0\]\.kind is "grpo\.thing"; this loop's records are svs\.variant/);
  });

  it('lists a run exported while it computed as stopped at its last step', () => {
    const r = importRunText('run.json', runFile(sampleRun({ state: 'running', stepsPerS: 0.5, etaS: 10 }), 'json').text);
    expect(r.ok && r.run.status).toMatchObject({ state: 'stopped', step: 3, stepsPerS: null, etaS: null });
  });

  it('reads back a run exported with a saved checkpoint and a phase (the page once refused its own export)', () => {
    const saved = sampleRun({ checkpointStep: 3 });
    const r = importRunText('run.json', runFile(saved, 'json').text);
    if (!r.ok) throw new Error(r.message);
    // the checkpoint stays with the page that saved it: the imported run has none here
    expect(r.run.status).toEqual({ ...saved.status, checkpointStep: undefined });
    expect('checkpointStep' in r.run.status).toBe(false);
    const busy = sampleRun({ state: 'running', checkpointStep: 2, phase: { kind: 'evaluating', step: 2, detail: '50 problems × 16 samples', progress: { done: 3, total: 50 } } });
    const b = importRunText('run.json', runFile(busy, 'json').text);
    if (!b.ok) throw new Error(b.message);
    expect(b.run.status).toEqual({ state: 'stopped', step: 3, totalSteps: 3, stepsPerS: null, etaS: null, error: null, halts: busy.status.halts });
  });

  it('turns run data into one archive chunk that rebuilds it', () => {
    const { data } = sampleRun();
    expect(appendChunk(EMPTY_RUN_DATA, chunkOfData(data))).toEqual(data);
  });
});

type Body = Record<string | number, unknown>;
const corpus: [string, (b: Body) => unknown, RegExp][] = [
  ['a top-level array', () => [], /^run\.json: the file: expected a run \(a JSON object\), got an array$/],
  ['another format', (b) => ({ ...b, format: 'rlvr-lab run 2' }), /^run\.json: format: expected "rlvr-lab run 1", got "rlvr-lab run 2"$/],
  ['an unknown top-level field', (b) => ({ ...b, extra: 1 }), /^run\.json: extra: unknown field$/],
  ['no run', (b) => ({ ...b, run: undefined }), /^run\.json: run: missing$/],
  ['index 0', (b) => set(b, ['run', 'index'], 0), /^run\.json: run\.index: expected >=1, got 0$/],
  ['a fractional index', (b) => set(b, ['run', 'index'], 1.5), /^run\.json: run\.index: expected a whole number, got 1\.5$/],
  ['a loop this page cannot read', (b) => set(b, ['run', 'loop'], 'sppo'), /^run\.json: run\.loop is "sppo"; this page reads runs of grpo, svs, spice, opensir, datpo, ttsp$/],
  ['an undated run', (b) => set(b, ['run', 'createdAt'], 'yesterday'), /^run\.json: run\.createdAt: "yesterday" is not a date/],
  ['an unknown state', (b) => set(b, ['run', 'status', 'state'], 'exploded'), /^run\.json: run\.status\.state: expected \("starting" \| "running" .*, got "exploded"$/],
  ['a step beyond the total', (b) => set(b, ['run', 'status', 'step'], 9), /^run\.json: run\.status: step 9 is beyond totalSteps = 3$/],
  ['an unknown halt kind', (b) => set(b, ['run', 'status', 'halts', 0, 'kind'], 'boom'), /^run\.json: run\.status\.halts\[0\]\.kind: expected .*"nonfinite".*, got "boom"$/],
  ['a config value of the wrong type', (b) => set(b, ['config', 'lr'], 'fast'), /^run\.json: config\.lr = "fast": must be a number$/],
  ['an unknown config key', (b) => set(b, ['config', 'lrr'], 1), /^run\.json: config: unknown key "lrr".*lr/],
  ['a config the loop refuses', (b) => set(b, ['config', 'rl', 'miniBatches'], 1000), /^run\.json: config\.rl\.miniBatches = 1000 exceeds the \d+ trajectories per step/],
  ['a step as text', (b) => set(b, ['metrics', 'step', 1], '2'), /^run\.json: metrics\.step\[1\]: expected number, got "2"$/],
  ['steps out of order', (b) => set(b, ['metrics', 'step', 2], 1), /^run\.json: metrics\.step: step\[2\] = 1 does not come after 2/],
  ['a negative step', (b) => set(b, ['metrics', 'step', 0], -1), /^run\.json: metrics\.step\[0\]: expected >=0, got -1$/],
  ['too few seconds', (b) => set(b, ['metrics', 'seconds'], [1]), /^run\.json: metrics: seconds has 1 values for 3 steps$/],
  ['a metric value as text', (b) => set(b, ['metrics', 'series', 'reward', 0], 'x'), /^run\.json: metrics\.series\.reward\[0\]: expected number, got "x"$/],
  ['a metric of the wrong length', (b) => set(b, ['metrics', 'series', 'reward'], [1]), /^run\.json: metrics: series "reward" has 1 values for 3 steps$/],
  ['a metric as an object', (b) => set(b, ['metrics', 'series', 'lr'], { a: 1 }), /^run\.json: metrics\.series\.lr: expected Array, got \{"a":1\}$/],
  ['too many metrics', (b) => set(b, ['metrics', 'series'], Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`m${i}`, [0, 0, 0]]))), /^run\.json: metrics\.series: has 300 metrics; at most 256/],
  ['an evaluation of another type', (b) => set(b, ['evals', 0, 'type'], 'step'), /^run\.json: evals\[0\]\.type: expected "eval", got "step"$/],
  ['a k of 0', (b) => set(b, ['evals', 1, 'passAtK'], { '0': 1 }), /^run\.json: evals\[1\]\.passAtK\["0"\]: keys are k = 1, 2, 4/],
  ['a negative histogram count', (b) => set(b, ['evals', 0, 'histogram', 1], -1), /^run\.json: evals\[0\]\.histogram\[1\]: expected >=0, got -1$/],
  ['a prompt that is a number', (b) => set(b, ['samples', 0, 'samples', 0, 'prompt'], 5), /^run\.json: samples\[0\]\.samples\[0\]\.prompt: expected string, got 5$/],
  ['evals that are not a list', (b) => ({ ...b, evals: {} }), /^run\.json: evals: expected Array, got \{\}$/],
];

function set(b: Body, path: (string | number)[], v: unknown): Body {
  const copy = structuredClone(b);
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k] as Body;
  o[path[path.length - 1]] = v;
  return copy;
}

describe('run import: malformed files', () => {
  it.each(corpus)('refuses %s, saying where', (_name, mutate, message) => {
    const r = importRunText('run.json', JSON.stringify(mutate(JSON.parse(goodText()) as Body)));
    expect(r.ok ? 'accepted' : r.message).toMatch(message);
  });

  it('refuses text that is not JSON, and numbers beyond float range', () => {
    expect(importRunText('run.json', '{"format": ')).toMatchObject({ ok: false, message: expect.stringMatching(/^run\.json: not JSON \(/) as unknown });
    const huge = goodText().replace('"index": 2', '"index": 1e999');
    expect(importRunText('run.json', huge)).toMatchObject({ ok: false, message: 'run.json: run.index: expected a whole number, got Infinity' });
  });

  it('refuses a metric named __proto__', () => {
    const text = goodText().replace('"series": {', '"series": { "__proto__": [0, 0, 0],');
    expect(importRunText('run.json', text)).toMatchObject({ ok: false, message: 'run.json: a field is named "__proto__", which no file of the lab has' });
  });
});

/** A LabClient whose every command resolves with nothing. */
const idleClient = new Proxy({}, { get: () => async () => undefined }) as LabClient;

async function storeWithRuns() {
  const archive = memoryArchive();
  let n = 0;
  const store = createLabStore(idleClient, {
    fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
    archive, newRunId: () => `id${++n}`, now: () => IMPORTED_AT,
  }, () => undefined);
  await store.getState().loadCatalog();
  // an existing run of this page, as the archive keeps one
  // created here after the imported file's run was created elsewhere
  const existing = { ...sampleRun(), id: 'old', index: 1, label: '#1 GRPO · tiny', diff: '', config: defaultConfig('grpo'), createdAt: Date.UTC(2025, 6, 1) };
  const { data, ...record } = existing;
  await archive.putRun(record);
  await archive.appendChunk('old', chunkOfData(data));
  await store.getState().loadArchive();
  return { store, archive };
}

const IMPORTED_AT = Date.UTC(2026, 0, 2);

const file = (name: string, text: string, size = text.length) => ({ name, size, text: async () => text });

describe('run import: the store', () => {
  it('adds a good file as a new finished run, selected and archived, leaving the others as they were', async () => {
    const { store, archive } = await storeWithRuns();
    const before = store.getState().runs.byId.old;
    expect(await store.getState().importRunFile(file('run.json', goodText()))).toBeNull();
    const runs = store.getState().runs;
    expect(runs.order).toEqual(['old', 'id1']);
    expect(runs.byId.old).toBe(before);
    expect(runs.selected).toBe('id1');
    // listed where it was imported (its import time), its origin and its difference from a named run in words
    expect(runs.byId.id1).toMatchObject({ index: 2, label: '#2 GRPO · tiny (imported)', live: false, createdAt: IMPORTED_AT, diff: 'imported: #2 of 2025-05-06 07:08 UTC; vs #1: seed 4, steps 3, rl.clipHigh 0.2', status: { state: 'done' } });
    expect(store.getState().runImport).toEqual({ error: null, imported: '#2 GRPO · tiny (imported)' });
    store.getState().toggleCompare('old');
    store.getState().toggleCompare('id1');
    expect(store.getState().runs.compared).toEqual(['old', 'id1']);
    const saved = await archive.loadRuns();
    expect(saved.map((s) => s.record.id)).toEqual(['old', 'id1']);
    expect(saved[1].chunks.reduce(appendChunk, EMPTY_RUN_DATA)).toEqual(runs.byId.id1.data);
  });

  it('refuses a bad file with its message and changes nothing', async () => {
    const { store, archive } = await storeWithRuns();
    const runs = store.getState().runs;
    const bad = JSON.stringify(set(JSON.parse(goodText()) as Body, ['metrics', 'step', 1], 'two'));
    expect(await store.getState().importRunFile(file('lesson.json', bad))).toBe('lesson.json: metrics.step[1]: expected number, got "two"');
    expect(store.getState().runs).toBe(runs);
    expect(store.getState().runImport.error).toMatch(/^lesson\.json: metrics\.step\[1\]/);
    expect(await store.getState().importRunFile(file('big.json', '', MAX_RUN_FILE_BYTES + 1))).toMatch(/^big\.json: 64 MB; run files of at most 64 MB/);
    expect((await archive.loadRuns()).map((s) => s.record.id)).toEqual(['old']);
  });
});
