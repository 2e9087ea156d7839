// A run's JSON export (`rlvr-lab run 1`), declared once: exportRun.ts writes the schema's input
// type and importRun.ts reads the file through the schema, so a field the page adds to a run's
// status either appears here or fails to compile (the importer once refused the page's own
// export for a `checkpointStep` its hand-kept list of fields did not know).
import * as v from 'valibot';
import type { EvalEvent, RunHalt, RunState, RunStatus } from '../../lab/protocol';
import type { RunPhaseKind, SampleRecord } from '../../loops/events';

/** The JSON export's `format` field; importRun.ts reads files of this format only. */
export const RUN_FILE_FORMAT = 'rlvr-lab run 1';

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

// Records, so that a new state or halt kind fails to compile here until it is listed
const RUN_STATE_SET: Readonly<Record<RunState, true>> = { starting: true, running: true, pausing: true, paused: true, stopping: true, done: true, stopped: true, failed: true };
const HALT_KIND_SET: Readonly<Record<RunHalt['kind'], true>> = { rejected: true, nonfinite: true, 'device-lost': true, 'storage-full': true, 'checkpoint-failed': true };
const PHASE_KIND_SET: Readonly<Record<RunPhaseKind, true>> = { step: true, evaluating: true, saving: true };
const keysOf = <K extends string>(o: Readonly<Record<K, true>>) => Object.keys(o) as K[];

const finite = v.pipe(v.number(), v.finite());
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
/** A measured value: the exporter writes NaN and ±Infinity as null, which reads back as NaN. */
const measure = v.pipe(v.nullable(finite), v.transform((x) => x ?? NaN));
const list = <S extends v.GenericSchema>(item: S, max: number) => v.pipe(v.array(item), v.maxLength(max));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const name = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_NAME));
/** `{ "1": 0.5, "4": 0.75 }`: k (a whole number ≥ 1) → value. */
const byK = v.pipe(v.record(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,5}$/, 'keys are k = 1, 2, 4…')), measure), v.check((o) => Object.keys(o).length <= MAX_K, `has more than ${MAX_K} entries`));

const HaltSchema = v.strictObject({ step: count, kind: v.picklist(keysOf(HALT_KIND_SET)), message: text(MAX_TEXT) });

const PhaseSchema = v.strictObject({
  kind: v.picklist(keysOf(PHASE_KIND_SET)),
  step: count,
  detail: text(MAX_TEXT),
  progress: v.optional(v.strictObject({ done: count, total: count })),
});

const StatusSchema = v.pipe(
  v.strictObject({
    state: v.picklist(keysOf(RUN_STATE_SET)),
    step: count,
    totalSteps: v.pipe(count, v.minValue(1)),
    stepsPerS: v.nullable(finite),
    etaS: v.nullable(finite),
    error: v.nullable(text(MAX_TEXT)),
    halts: v.optional(list(HaltSchema, MAX_STEPS)),
    checkpointStep: v.optional(count),
    phase: v.optional(PhaseSchema),
  }),
  v.check((s) => s.step <= s.totalSteps, (i) => `step ${String((i.input as RunStatus).step)} is beyond totalSteps = ${String((i.input as RunStatus).totalSteps)}`),
);

const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]);
const firstDecrease = (xs: number[]) => xs.findIndex((x, i) => i > 0 && x <= xs[i - 1]);

const MetricsSchema = v.pipe(
  v.strictObject({
    step: v.pipe(list(count, MAX_STEPS), v.check(increasing, (i) => {
      const xs = i.input as number[], at = firstDecrease(xs);
      return `step[${at}] = ${xs[at]} does not come after ${xs[at - 1]} (steps must increase)`;
    })),
    seconds: list(measure, MAX_STEPS),
    series: v.pipe(
      v.record(name, list(measure, MAX_STEPS)),
      v.check((o) => Object.keys(o).length <= MAX_METRICS, (i) => `has ${Object.keys(i.input as object).length} metrics; at most ${MAX_METRICS} are accepted`),
    ),
  }),
  v.check((m) => m.seconds.length === m.step.length, (i) => `seconds has ${(i.input as { seconds: unknown[] }).seconds.length} values for ${(i.input as { step: unknown[] }).step.length} steps`),
  v.check((m) => Object.values(m.series).every((s) => s.length === m.step.length), (i) => {
    const m = i.input as { step: unknown[]; series: Record<string, unknown[]> };
    const [metric, values] = Object.entries(m.series).find(([, s]) => s.length !== m.step.length) ?? ['', []];
    return `series ${JSON.stringify(metric.slice(0, 60))} has ${values.length} values for ${m.step.length} steps`;
  }),
);

const EvalSchema = v.strictObject({
  type: v.literal('eval'),
  step: count,
  set: name,
  passAtK: byK,
  avgAtK: byK,
  majAtK: byK,
  meanEntropy: measure,
  meanLength: measure,
  histogram: list(count, MAX_K),
  // per-problem counts: runs exported before they were recorded have none
  n: v.optional(v.pipe(count, v.minValue(1))),
  correct: v.optional(list(count, MAX_PROBLEMS)),
});

const SampleSchema = v.strictObject({
  prompt: text(MAX_TEXT),
  response: text(MAX_TEXT),
  reward: measure,
  entropy: list(measure, MAX_TEXT),
  // the role that wrote it (files exported before samples named it carry none)
  role: v.optional(name),
});

const SamplesSchema = v.strictObject({ type: v.literal('samples'), step: count, samples: list(SampleSchema, MAX_SAMPLES_PER_EVENT) });

/** A record field: plain JSON values only (text, numbers, flags, null, and lists of them). */
const scalar = v.union([v.null(), v.boolean(), v.pipe(v.number(), v.finite()), text(MAX_TEXT)]);
const RecordSchema = v.pipe(
  v.objectWithRest({ kind: name }, v.union([scalar, list(scalar, MAX_RECORD_LIST)])),
  v.check((r) => Object.keys(r).length <= MAX_RECORD_FIELDS, `has more than ${MAX_RECORD_FIELDS} fields`),
);
/** The loop's record kinds are checked by the importer, which knows the loop. */
const RecordsSchema = v.strictObject({ type: v.literal('records'), step: count, records: list(RecordSchema, MAX_RECORDS_PER_EVENT) });

export const RunFileSchema = v.strictObject({
  format: v.literal(RUN_FILE_FORMAT, `"${RUN_FILE_FORMAT}" (a run exported as JSON by RLVR Lab)`),
  run: v.strictObject({
    id: name,
    index: v.pipe(count, v.minValue(1)),
    label: text(MAX_TEXT),
    diff: text(MAX_TEXT),
    loop: name,
    policy: name,
    createdAt: v.pipe(text(40), v.check((d) => Number.isFinite(Date.parse(d)), (i) => `${JSON.stringify(i.input)} is not a date (ISO 8601)`)),
    status: StatusSchema,
  }),
  /** checked by the loop's own validator, which knows its fields */
  config: v.unknown(),
  metrics: MetricsSchema,
  evals: list(EvalSchema, MAX_EVALS),
  samples: list(SamplesSchema, MAX_SAMPLE_EVENTS_IN_FILE),
  // files exported before loops had records carry none
  records: v.optional(list(RecordsSchema, MAX_RECORD_EVENTS)),
});

/** What the exporter writes (numbers where the file has null are NaN before JSON writes them). */
export type RunFileJson = v.InferInput<typeof RunFileSchema>;
export type RunFileRead = v.InferOutput<typeof RunFileSchema>;

// The page's types and the file's declarations have the same fields: adding one to RunStatus,
// an evaluation or a sample without declaring it above fails to compile here.
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
const fieldsDeclared: [SameKeys<RunStatus, v.InferInput<typeof StatusSchema>>, SameKeys<EvalEvent, v.InferInput<typeof EvalSchema>>, SameKeys<SampleRecord, v.InferInput<typeof SampleSchema>>] = [true, true, true];
void fieldsDeclared;
