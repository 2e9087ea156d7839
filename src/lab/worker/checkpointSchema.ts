// The stored run state as one schema, checked whole when a checkpoint is read back, before any
// GPU work: state.json's fields, history.json's events, and the values of the model, the
// optimiser and the adapter sets. A checkpoint edited by hand or damaged on disk (a history
// entry of null, no loop, NaN in the optimiser, a step past the config's steps, a fractional
// step) is refused in one line, "damaged checkpoint: <where>: <what>", instead of failing in a
// kernel or resuming silently wrong.
import { CheckpointError } from '../../model/safetensors';
import { showValue } from '../../util/show';

/** A run of more steps than this is no run the lab made (a day at 10 steps a second is 864,000). */
export const MAX_STORED_STEP = 10_000_000;
const MAX_HISTORY = 1_000_000;

type Check = (v: unknown, path: string) => void;
class Damaged extends Error {}
const bad = (path: string, v: unknown, want: string): never => {
  throw new Damaged(`${path} = ${showValue(v)}: must be ${want}`);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (lo: number, hi: number): Check => (v, p) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) bad(p, v, `an integer from ${lo} to ${hi}`);
};
const str: Check = (v, p) => {
  if (typeof v !== 'string' || v === '') bad(p, v, 'a non-empty string');
};
/** a metric: a number, or one a halted step made non-finite (history keeps those) */
const metric: Check = (v, p) => {
  if (typeof v !== 'number') bad(p, v, 'a number');
};
const literal = (want: string): Check => (v, p) => {
  if (v !== want) bad(p, v, JSON.stringify(want));
};
const record = (value: Check): Check => (v, p) => {
  if (!isObject(v)) return bad(p, v, 'an object');
  for (const [k, x] of Object.entries(v)) value(x, `${p}.${k}`);
};
const shape = (fields: Record<string, Check>, optional: readonly string[] = []): Check => (v, p) => {
  if (!isObject(v)) return bad(p, v, 'an object');
  for (const [k, check] of Object.entries(fields)) if (!(optional.includes(k) && v[k] === undefined)) check(v[k], `${p}.${k}`);
};
const list = (item: Check, max: number): Check => (v, p) => {
  if (!Array.isArray(v)) return bad(p, v, 'a list');
  if (v.length > max) bad(`${p}.length`, v.length, `at most ${max}`);
  v.forEach((x, i) => item(x, `${p}[${i}]`));
};

const step = int(0, MAX_STORED_STEP);
const STEP_EVENT = shape({ type: literal('step'), step, seconds: metric, metrics: record(metric) });
const EVAL_EVENT = shape({ type: literal('eval'), step, set: str, passAtK: record(metric), avgAtK: record(metric), majAtK: record(metric), meanEntropy: metric, meanLength: metric });
const RECORDS_EVENT = shape({ type: literal('records'), step, records: list((v, p) => void (isObject(v) || bad(p, v, 'an object')), MAX_HISTORY) });
const HISTORY = shape({ steps: list(STEP_EVENT, MAX_HISTORY), evals: list(EVAL_EVENT, MAX_HISTORY), records: list(RECORDS_EVENT, MAX_HISTORY) }, ['records']);
const STATE = shape({
  format: str, runId: str, policy: str, step, savedAt: metric,
  // the run manager knows its loops (tests register fakes): the name is checked where it is looked up
  loop: str,
  config: (v, p) => void (isObject(v) || bad(p, v, "the loop's config object")),
  adapters: list(str, 16),
}, ['adapters']);

function run(check: Check, v: unknown, where: string, path: string): void {
  try {
    check(v, path);
  } catch (e) {
    if (e instanceof Damaged) throw new CheckpointError(`damaged checkpoint: ${where}: ${e.message}`);
    throw e;
  }
}

/** state.json: its fields, and a step no later than the config's last one. */
export function checkStoredState(s: unknown, where: string): void {
  run(STATE, s, where, 'state.json');
  const o = s as { step: number; config: { steps?: unknown } };
  if (typeof o.config.steps === 'number' && o.step > o.config.steps) throw new CheckpointError(`damaged checkpoint: ${where}: state.json step ${o.step} is past config.steps = ${o.config.steps}`);
}

/** history.json: steps, evaluations and records, each event whole, none past the checkpoint's step. */
export function checkStoredHistory(h: unknown, at: number, where: string): void {
  run(HISTORY, h, where, 'history.json');
  const o = h as { steps: { step: number }[] };
  const late = o.steps.findIndex((e) => e.step > at);
  if (late >= 0) throw new CheckpointError(`damaged checkpoint: ${where}: history.json steps[${late}].step = ${o.steps[late].step} is past the checkpoint's step ${at}`);
}

/** The first NaN or ±Inf of a stored float buffer (the model, its optimiser moments, an adapter's). */
export function checkStoredValues(values: Float32Array, what: string, where: string): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw new CheckpointError(`damaged checkpoint: ${where}: ${what} holds ${values[i]} at index ${i}`);
  }
}
