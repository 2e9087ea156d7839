// A run's JSON export read back (the file exportRun.ts writes). The file is untrusted: every
// field is checked for shape, type, range and size, the config goes through the loop's own
// validator, and the first problem comes back as one message naming the file, the place and
// what is wrong (`run.json: metrics.step[12] is not a number`). Nothing here touches the store.
import type { EvalEvent, RecordsEvent, RunHalt, RunState, RunStatus, SamplesEvent } from '../lab/protocol';
import type { CurriculumRecord } from '../loops/events';
import { ConfigError } from '../util/errors';
import type { BaseLoopConfig } from '../loops/base_config';
import { LOOP_NAMES, isLoopName, loopNamed } from '../loops/registry';
import type { RunRecord } from './archive';
import { RUN_FILE_FORMAT } from './exportRun';
import { MAX_SAMPLE_EVENTS, type RunData } from './runData';
import { loopLabel } from './launcher';

/** Larger files are refused before they are read (a real run's export is a few MB at most). */
export const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;
const MAX_STEPS = 1_000_000;
const MAX_METRICS = 256;
const MAX_EVALS = 10_000;
const MAX_SAMPLE_EVENTS_IN_FILE = 1_000;
const MAX_SAMPLES_PER_EVENT = 1_000;
const MAX_K = 4_096;
const MAX_PROBLEMS = 100_000;
const MAX_NAME = 200;
const MAX_RECORD_EVENTS = 20_000;
const MAX_RECORDS_PER_EVENT = 50_000;
const MAX_RECORD_FIELDS = 64;
const MAX_RECORD_LIST = 1_000;
const MAX_TEXT = 10_000;

const RUN_STATE_SET: Readonly<Record<RunState, true>> = { starting: true, running: true, pausing: true, paused: true, stopping: true, done: true, stopped: true, failed: true };
const RUN_STATES = Object.keys(RUN_STATE_SET) as RunState[];
const FINISHED: readonly RunState[] = ['done', 'stopped', 'failed'];
// a Record, so that a new kind of halt fails to compile here until it is listed
const HALT_KIND_SET: Readonly<Record<RunHalt['kind'], true>> = { rejected: true, nonfinite: true, 'device-lost': true, 'storage-full': true, 'checkpoint-failed': true };
const HALT_KINDS = Object.keys(HALT_KIND_SET) as RunHalt['kind'][];

/** What a run file holds, checked; the page gives it a new id, number and label when it adds it. */
export interface ParsedRunFile {
  original: { id: string; index: number; label: string };
  loop: string;
  policy: string;
  config: BaseLoopConfig;
  createdAt: number;
  status: RunStatus;
  data: RunData;
}

export type ImportResult = { ok: true; run: ParsedRunFile } | { ok: false; message: string };

class Invalid extends Error {}

function fail(path: string, what: string): never {
  throw new Invalid(`${path} ${what}`);
}

const describeValue = (v: unknown): string => (v === undefined ? 'nothing: the field is missing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}` : typeof v === 'object' ? 'an object' : String(v));

function object(v: unknown, path: string, allowed?: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, `is not an object (found ${describeValue(v)})`);
  const o = v as Record<string, unknown>;
  if (allowed) for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(path, `has an unknown field "${k}" (known: ${allowed.join(', ')})`);
  return o;
}

function array(v: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(v)) fail(path, `is not an array (found ${describeValue(v)})`);
  if (v.length > max) fail(path, `has ${v.length} entries; at most ${max} are accepted`);
  return v;
}

function text(v: unknown, path: string, max: number, { empty = true } = {}): string {
  if (typeof v !== 'string') fail(path, `is not a string (found ${describeValue(v)})`);
  if (!empty && v === '') fail(path, 'is empty');
  if (v.length > max) fail(path, `is ${v.length} characters long; at most ${max} are accepted`);
  return v;
}

function number(v: unknown, path: string): number {
  if (typeof v !== 'number') fail(path, `is not a number (found ${describeValue(v)})`);
  if (!Number.isFinite(v)) fail(path, `is not a finite number`);
  return v;
}

/** A measured value: the exporter writes NaN and ±Infinity as null, which reads back as NaN. */
function measure(v: unknown, path: string): number {
  return v === null ? NaN : number(v, path);
}

function integer(v: unknown, path: string, min: number): number {
  const n = number(v, path);
  if (!Number.isSafeInteger(n)) fail(path, `= ${n} is not a whole number`);
  if (n < min) fail(path, `= ${n} is below ${min}`);
  return n;
}

function nullable<T>(v: unknown, read: (v: unknown) => T): T | null {
  return v === null ? null : read(v);
}

function oneOf<T extends string>(v: unknown, path: string, choices: readonly T[]): T {
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) fail(path, `is ${describeValue(v)}; expected one of ${choices.join(', ')}`);
  return v as T;
}

function measures(v: unknown, path: string, max: number): number[] {
  return array(v, path, max).map((x, i) => measure(x, `${path}[${i}]`));
}

/** `{ "1": 0.5, "4": 0.75 }`: k (a whole number ≥ 1) → value. */
function byK(v: unknown, path: string): Record<string, number> {
  const o = object(v, path);
  const keys = Object.keys(o);
  if (keys.length > MAX_K) fail(path, `has ${keys.length} entries; at most ${MAX_K} are accepted`);
  const out: Record<string, number> = {};
  for (const k of keys) {
    if (!/^[1-9][0-9]{0,5}$/.test(k)) fail(path, `has the key "${k}"; keys are k = 1, 2, 4…`);
    out[k] = measure(o[k], `${path}["${k}"]`);
  }
  return out;
}

function readStatus(v: unknown, path: string): RunStatus {
  // `phase` (what a computing run was doing when exported) is read past: an imported run computes nothing
  const o = object(v, path, ['state', 'step', 'totalSteps', 'stepsPerS', 'etaS', 'error', 'halts', 'phase']);
  const state = oneOf(o.state, `${path}.state`, RUN_STATES);
  const step = integer(o.step, `${path}.step`, 0);
  const totalSteps = integer(o.totalSteps, `${path}.totalSteps`, 1);
  if (step > totalSteps) fail(`${path}.step`, `= ${step} is beyond totalSteps = ${totalSteps}`);
  const status: RunStatus = {
    state,
    step,
    totalSteps,
    stepsPerS: nullable(o.stepsPerS, (x) => number(x, `${path}.stepsPerS`)),
    etaS: nullable(o.etaS, (x) => number(x, `${path}.etaS`)),
    error: nullable(o.error, (x) => text(x, `${path}.error`, MAX_TEXT)),
  };
  if (o.halts === undefined) return status;
  const halts = array(o.halts, `${path}.halts`, MAX_STEPS).map((h, i): RunHalt => {
    const at = `${path}.halts[${i}]`;
    const x = object(h, at, ['step', 'kind', 'message']);
    return { step: integer(x.step, `${at}.step`, 0), kind: oneOf(x.kind, `${at}.kind`, HALT_KINDS), message: text(x.message, `${at}.message`, MAX_TEXT) };
  });
  return { ...status, halts };
}

/** A run exported mid-way is not computing here: it is listed as stopped at its last step. */
function settled(s: RunStatus): RunStatus {
  return FINISHED.includes(s.state) ? s : { ...s, state: 'stopped', stepsPerS: null, etaS: null };
}

function readMetrics(v: unknown, path: string): Pick<RunData, 'step' | 'seconds' | 'series'> {
  const o = object(v, path, ['step', 'seconds', 'series']);
  const step = array(o.step, `${path}.step`, MAX_STEPS).map((x, i) => integer(x, `${path}.step[${i}]`, 0));
  for (let i = 1; i < step.length; i++) if (step[i] <= step[i - 1]) fail(`${path}.step[${i}]`, `= ${step[i]} does not come after ${step[i - 1]} (steps must increase)`);
  const seconds = array(o.seconds, `${path}.seconds`, MAX_STEPS).map((x, i) => measure(x, `${path}.seconds[${i}]`));
  if (seconds.length !== step.length) fail(`${path}.seconds`, `has ${seconds.length} values for ${step.length} steps`);
  const raw = object(o.series, `${path}.series`);
  const names = Object.keys(raw);
  if (names.length > MAX_METRICS) fail(`${path}.series`, `has ${names.length} metrics; at most ${MAX_METRICS} are accepted`);
  const series: Record<string, number[]> = {};
  for (const name of names) {
    const at = `${path}.series[${JSON.stringify(name)}]`;
    if (name === '' || name.length > MAX_NAME || name === '__proto__') fail(`${path}.series`, `has a metric named ${JSON.stringify(name.slice(0, MAX_NAME))}, which is not a metric name`);
    const values = measures(raw[name], at, MAX_STEPS);
    if (values.length !== step.length) fail(at, `has ${values.length} values for ${step.length} steps`);
    series[name] = values;
  }
  return { step, seconds, series };
}

function readEval(v: unknown, path: string): EvalEvent {
  const o = object(v, path);
  if (o.type !== 'eval') fail(`${path}.type`, `is ${describeValue(o.type)}; expected "eval"`);
  return {
    type: 'eval',
    step: integer(o.step, `${path}.step`, 0),
    set: text(o.set, `${path}.set`, MAX_NAME, { empty: false }),
    passAtK: byK(o.passAtK, `${path}.passAtK`),
    avgAtK: byK(o.avgAtK, `${path}.avgAtK`),
    majAtK: byK(o.majAtK, `${path}.majAtK`),
    meanEntropy: measure(o.meanEntropy, `${path}.meanEntropy`),
    meanLength: measure(o.meanLength, `${path}.meanLength`),
    histogram: array(o.histogram, `${path}.histogram`, MAX_K).map((x, i) => integer(x, `${path}.histogram[${i}]`, 0)),
    // per-problem counts: runs exported before they were recorded have none
    ...(o.n === undefined ? {} : { n: integer(o.n, `${path}.n`, 1) }),
    ...(o.correct === undefined ? {} : { correct: array(o.correct, `${path}.correct`, MAX_PROBLEMS).map((x, i) => integer(x, `${path}.correct[${i}]`, 0)) }),
  };
}

function readSamples(v: unknown, path: string): SamplesEvent {
  const o = object(v, path);
  if (o.type !== 'samples') fail(`${path}.type`, `is ${describeValue(o.type)}; expected "samples"`);
  const samples = array(o.samples, `${path}.samples`, MAX_SAMPLES_PER_EVENT).map((s, i) => {
    const at = `${path}.samples[${i}]`;
    const x = object(s, at);
    return {
      prompt: text(x.prompt, `${at}.prompt`, MAX_TEXT),
      response: text(x.response, `${at}.response`, MAX_TEXT),
      reward: measure(x.reward, `${at}.reward`),
      entropy: measures(x.entropy, `${at}.entropy`, MAX_TEXT),
      // the role that wrote it (files exported before samples named it carry none)
      ...(x.role === undefined ? {} : { role: text(x.role, `${at}.role`, MAX_NAME, { empty: false }) }),
    };
  });
  return { type: 'samples', step: integer(o.step, `${path}.step`, 0), samples };
}

/** A record field: plain JSON values only (text, numbers, flags, null, and lists of them). */
function recordValue(v: unknown, path: string): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return measure(v, path);
  if (typeof v === 'string') return text(v, path, MAX_TEXT);
  if (Array.isArray(v)) return array(v, path, MAX_RECORD_LIST).map((x, i) => {
    if (x !== null && typeof x === 'object') fail(`${path}[${i}]`, 'is an object; record lists hold text, numbers, flags or null');
    return recordValue(x, `${path}[${i}]`);
  });
  return fail(path, `is ${describeValue(v)}; record fields hold text, numbers, flags, null or lists of them`);
}

function readRecords(v: unknown, path: string, kinds: readonly string[]): RecordsEvent {
  const o = object(v, path, ['type', 'step', 'records']);
  if (o.type !== 'records') fail(`${path}.type`, `is ${describeValue(o.type)}; expected "records"`);
  const records = array(o.records, `${path}.records`, MAX_RECORDS_PER_EVENT).map((r, i) => {
    const at = `${path}.records[${i}]`;
    const x = object(r, at);
    const kind = text(x.kind, `${at}.kind`, MAX_NAME, { empty: false });
    if (!kinds.includes(kind)) fail(`${at}.kind`, `is "${kind}"; this loop's records are ${kinds.join(', ') || 'none'}`);
    const fields = Object.keys(x);
    if (fields.length > MAX_RECORD_FIELDS) fail(at, `has ${fields.length} fields; at most ${MAX_RECORD_FIELDS}`);
    return Object.fromEntries(fields.map((k) => [k, k === 'kind' ? kind : recordValue(x[k], `${at}.${k}`)])) as CurriculumRecord;
  });
  return { type: 'records', step: integer(o.step, `${path}.step`, 0), records };
}

function readConfig(loop: string, v: unknown): BaseLoopConfig {
  try {
    return loopNamed(loop).spec.validate(v, 'config');
  } catch (e) {
    if (e instanceof ConfigError) throw new Invalid(e.message);
    throw e;
  }
}

function readRunFile(body: unknown): ParsedRunFile {
  const top = object(body, 'the file', ['format', 'run', 'config', 'metrics', 'evals', 'samples', 'records']);
  if (top.format !== RUN_FILE_FORMAT) fail('format', `is ${describeValue(top.format)}; expected "${RUN_FILE_FORMAT}" (a run exported as JSON by RLVR Lab)`);
  const run = object(top.run, 'run', ['id', 'index', 'label', 'diff', 'loop', 'policy', 'createdAt', 'status']);
  const id = text(run.id, 'run.id', MAX_NAME, { empty: false });
  const index = integer(run.index, 'run.index', 1);
  const label = text(run.label, 'run.label', MAX_TEXT);
  text(run.diff, 'run.diff', MAX_TEXT);
  const loop = text(run.loop, 'run.loop', MAX_NAME, { empty: false });
  if (!isLoopName(loop)) fail('run.loop', `is "${loop}"; this page reads runs of ${LOOP_NAMES.join(', ')}`);
  const policy = text(run.policy, 'run.policy', MAX_NAME, { empty: false });
  const createdAt = Date.parse(text(run.createdAt, 'run.createdAt', 40));
  if (!Number.isFinite(createdAt)) fail('run.createdAt', `is ${describeValue(run.createdAt)}, not a date (ISO 8601)`);
  const status = readStatus(run.status, 'run.status');
  const config = readConfig(loop, top.config);
  const metrics = readMetrics(top.metrics, 'metrics');
  const evals = array(top.evals, 'evals', MAX_EVALS).map((e, i) => readEval(e, `evals[${i}]`));
  const samples = array(top.samples, 'samples', MAX_SAMPLE_EVENTS_IN_FILE).map((e, i) => readSamples(e, `samples[${i}]`));
  // files exported before loops had records carry none
  const kinds = loopNamed(loop).spec.records;
  const records = top.records === undefined ? [] : array(top.records, 'records', MAX_RECORD_EVENTS).map((e, i) => readRecords(e, `records[${i}]`, kinds));
  return { original: { id, index, label }, loop, policy, config, createdAt, status: settled(status), data: { ...metrics, evals, samples: samples.slice(-MAX_SAMPLE_EVENTS), records } };
}

/** Reads a run file's text; `fileName` starts every message. */
export function importRunText(fileName: string, body: string): ImportResult {
  const name = fileName || 'the file';
  if (body.length > MAX_RUN_FILE_BYTES) return { ok: false, message: `${name}: ${body.length} characters; run files of at most ${MAX_RUN_FILE_BYTES / 2 ** 20} MB are accepted` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    return { ok: false, message: `${name}: not JSON (${(e as Error).message})` };
  }
  try {
    return { ok: true, run: readRunFile(json) };
  } catch (e) {
    if (e instanceof Invalid) return { ok: false, message: `${name}: ${e.message}` };
    throw e;
  }
}

/** The record an imported run is listed under: a new id and number on this page, marked imported. */
export function importedRecord(p: ParsedRunFile, id: string, index: number, diff: string, importedAt: number): RunRecord {
  // listed where it was imported (the list is in creation order), its own creation kept in words
  const origin = `imported: #${p.original.index} of ${new Date(p.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return { id, index, label: `#${index} ${loopLabel(p.loop)} · ${p.policy} (imported)`, diff: `${origin}; ${diff}`, loop: p.loop, policy: p.policy, config: p.config, createdAt: importedAt, status: p.status };
}

