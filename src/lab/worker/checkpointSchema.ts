// The stored run state as one schema, checked whole when a checkpoint is read back, before any
// GPU work: state.json's fields, history.json's events, and the values of the model, the
// optimiser and the adapter sets. A checkpoint edited by hand or damaged on disk (a history
// entry of null, no loop, NaN in the optimiser, a step past the config's steps, a fractional
// step) is refused in one line, "damaged checkpoint: <where>: <path>: <what>", instead of
// failing in a kernel or resuming silently wrong. Objects are loose: a field a later version
// adds does not make an older lab call the checkpoint damaged.
import * as v from 'valibot';
import { CheckpointError } from '../../model/safetensors';
import { parseOr } from '../../util/valibot';

/** A run of more steps than this is no run the lab made (a day at 10 steps a second is 864,000). */
export const MAX_STORED_STEP = 10_000_000;
const MAX_HISTORY = 1_000_000;

const step = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(MAX_STORED_STEP));
const name = v.pipe(v.string(), v.minLength(1));
/** a metric: a number, or one a halted step made non-finite (history keeps those) */
const metric = v.custom<number>((x) => typeof x === 'number', 'a number');
const list = <S extends v.GenericSchema>(item: S, max: number) => v.pipe(v.array(item), v.maxLength(max));
const metrics = v.record(v.string(), metric);

const StepEvent = v.looseObject({ type: v.literal('step'), step, seconds: metric, metrics });
const EvalEvent = v.looseObject({ type: v.literal('eval'), step, set: name, passAtK: metrics, avgAtK: metrics, majAtK: metrics, meanEntropy: metric, meanLength: metric });
const RecordsEvent = v.looseObject({ type: v.literal('records'), step, records: list(v.looseObject({}), MAX_HISTORY) });

const StoredHistorySchema = v.looseObject({
  steps: list(StepEvent, MAX_HISTORY),
  evals: list(EvalEvent, MAX_HISTORY),
  records: v.optional(list(RecordsEvent, MAX_HISTORY)),
});

const StoredStateSchema = v.looseObject({
  format: name, runId: name, policy: name, step, savedAt: metric,
  // the run manager knows its loops (tests register fakes): the name is checked where it is looked up
  loop: name,
  /** the loop's own validator checks its fields when the run resumes */
  config: v.looseObject({ steps: v.optional(v.unknown()) }),
  adapters: v.optional(list(name, 16)),
});

const damaged = (where: string) => (line: string): never => {
  throw new CheckpointError(`damaged checkpoint: ${where}: ${line}`);
};

/** state.json: its fields, and a step no later than the config's last one. */
export function checkStoredState(s: unknown, where: string): void {
  const o = parseOr(StoredStateSchema, s, damaged(where), 'state.json');
  if (typeof o.config.steps === 'number' && o.step > o.config.steps) throw new CheckpointError(`damaged checkpoint: ${where}: state.json step ${o.step} is past config.steps = ${o.config.steps}`);
}

/** history.json: steps, evaluations and records, each event whole, none past the checkpoint's step. */
export function checkStoredHistory(h: unknown, at: number, where: string): void {
  const o = parseOr(StoredHistorySchema, h, damaged(where), 'history.json');
  const late = o.steps.findIndex((e) => e.step > at);
  if (late >= 0) throw new CheckpointError(`damaged checkpoint: ${where}: history.json steps[${late}].step = ${o.steps[late].step} is past the checkpoint's step ${at}`);
}

/** The first NaN or ±Inf of a stored float buffer (the model, its optimiser moments, an adapter's). */
export function checkStoredValues(values: Float32Array, what: string, where: string): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw new CheckpointError(`damaged checkpoint: ${where}: ${what} holds ${values[i]} at index ${i}`);
  }
}
