// The one file format of ablations, headless and in the page (docs/sweep-format.md):
//   an ablation (`rlvr-lab ablate --json`): one loop and set-up, several seeds, each seed's start
//   and end evaluations, its summaries, and (version 2) its step series and every evaluation;
//   a sweep (the explorer's export, the gallery's entries): arms, each an ablation with a label,
//   the knob values that define it, and whether it is the control arm.
// Types and checks come from one valibot schema each, so the reader and the writer cannot drift;
// a refused file says what and where (the field path) and loads nothing.
import * as v from 'valibot';
import { issueLine } from '../util/valibot';

export const ABLATION_FORMAT = 'rlvr-lab.ablation';
export const SWEEP_FORMAT = 'rlvr-lab.sweep';
/** Version 1: files without `format` (summaries only); 2 adds `series` and `evals` to every seed. */
export const ABLATION_VERSION = 2;
export const SWEEP_VERSION = 1;

/** Files larger than this are refused before they are parsed (as run files are). */
export const MAX_SWEEP_FILE_BYTES = 64 * 1024 * 1024;
const MAX_STEPS = 100_000;
/** Seeds of one ablation: `ablate --seeds` takes at most this many, so every file it writes reads back. */
export const MAX_SEEDS = 1000;
const MAX_ARMS = 256;
const MAX_EVALS = 10_000;
const MAX_PROBLEMS = 100_000;
const MAX_TEXT = 4_000;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const finiteNumber = v.pipe(v.number(), v.finite());
/** JSON writes NaN (a quantity not measured) as null. */
const measure = v.nullable(v.number());
const text = v.pipe(v.string(), v.maxLength(MAX_TEXT));
const atK = v.record(v.pipe(v.string(), v.regex(/^[1-9]\d*$/, 'a k (positive integer)')), measure);

export const EvalSchema = v.object({
  type: v.literal('eval'),
  step: count,
  set: text,
  passAtK: atK,
  avgAtK: v.optional(atK),
  majAtK: v.optional(atK),
  meanEntropy: measure,
  meanLength: v.optional(measure),
  histogram: v.optional(v.pipe(v.array(count), v.maxLength(MAX_PROBLEMS))),
  /** samples per problem and the correct count of each problem: what pairs differences by problem */
  n: v.optional(v.pipe(count, v.minValue(1))),
  correct: v.optional(v.pipe(v.array(count), v.maxLength(MAX_PROBLEMS))),
});
export type SweepEval = v.InferOutput<typeof EvalSchema>;

/** A seed's step metrics, aligned with `step`: one value per step, null where not reported. */
export const SeriesSchema = v.pipe(
  v.strictObject({
    step: v.pipe(v.array(count), v.maxLength(MAX_STEPS)),
    seconds: v.pipe(v.array(measure), v.maxLength(MAX_STEPS)),
    /** cumulative generated tokens after each step */
    tokens: v.pipe(v.array(measure), v.maxLength(MAX_STEPS)),
    metrics: v.record(v.pipe(v.string(), v.maxLength(200)), v.pipe(v.array(measure), v.maxLength(MAX_STEPS))),
  }),
  v.check((s) => s.seconds.length === s.step.length && s.tokens.length === s.step.length && Object.values(s.metrics).every((m) => m.length === s.step.length), 'every series has one value per step'),
);
export type SweepSeries = v.InferOutput<typeof SeriesSchema>;

const MAX_SNAPSHOTS = 256;
const rateOrNull = v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1)));

/** A SPICE cross-play matrix (`ablate --cross-play`): pass rates of reasoner i (row) on challenger j's questions, by each grading. */
export const CrossPlaySchema = v.pipe(
  v.object({
    steps: v.pipe(v.array(count), v.minLength(1), v.maxLength(MAX_SNAPSHOTS)),
    passRate: v.record(v.pipe(v.string(), v.maxLength(64)), v.pipe(v.array(v.pipe(v.array(rateOrNull), v.maxLength(MAX_SNAPSHOTS))), v.maxLength(MAX_SNAPSHOTS))),
    valid: v.pipe(v.array(count), v.maxLength(MAX_SNAPSHOTS)),
    documents: count,
    answers: count,
    withDocuments: v.boolean(),
  }),
  v.check((c) => c.valid.length === c.steps.length && Object.values(c.passRate).every((m) => m.length === c.steps.length && m.every((row) => row.length === c.steps.length)), 'one row and one column per checkpoint step'),
);

export const SeedResultSchema = v.object({
  seed: count,
  start: EvalSchema,
  end: EvalSchema,
  steps: count,
  generatedTokens: finiteNumber,
  seconds: finiteNumber,
  /** `--report` figures: each metric's mean over the run (null: never reported) */
  report: v.record(v.string(), measure),
  /** why the run stopped itself before its end, if it did */
  halted: v.optional(text),
  series: v.optional(SeriesSchema),
  evals: v.optional(v.pipe(v.array(EvalSchema), v.maxLength(MAX_EVALS))),
  /** SPICE's cross-play matrix of the seed's checkpoints (`ablate --cross-play`) */
  crossPlay: v.optional(CrossPlaySchema),
});
export type SweepSeed = v.InferOutput<typeof SeedResultSchema>;

export const AblationSchema = v.object({
  format: v.optional(v.literal(ABLATION_FORMAT)),
  version: v.optional(v.pipe(count, v.maxValue(ABLATION_VERSION))),
  command: v.optional(text),
  loop: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  base: text,
  config: v.record(v.string(), v.unknown()),
  partial: v.boolean(),
  results: v.pipe(v.array(SeedResultSchema), v.minLength(1), v.maxLength(MAX_SEEDS)),
});
export type Ablation = v.InferOutput<typeof AblationSchema>;

export const ArmSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  label: text,
  /** the knob values that make this arm (`rl.lr`: 3e-5); empty for a single-arm grid */
  knobs: v.record(v.string(), v.unknown()),
  /** the control arm (another loop, matched in generated tokens to `matchedTo`'s seeds) */
  control: v.optional(v.boolean()),
  matchedTo: v.optional(v.string()),
  ablation: AblationSchema,
});
export type SweepArm = v.InferOutput<typeof ArmSchema>;

export const SweepSchema = v.object({
  format: v.literal(SWEEP_FORMAT),
  version: v.pipe(count, v.minValue(1), v.maxValue(SWEEP_VERSION)),
  title: text,
  /** the paper's claim this grid asks about, and what the lab measured (one sentence each) */
  claim: v.optional(text),
  measured: v.optional(text),
  /** whether the paper's direction holds here, in a line (a gallery entry's answer before its numbers) */
  verdict: v.optional(text),
  /** the x-axis its comparison is made on (equal generated tokens: 'tokens'); the explorer opens it so */
  xAxis: v.optional(v.picklist(['step', 'tokens', 'time'])),
  /** the step metrics its question is about (TTSP's target): the explorer draws them first and puts them in the table */
  lead: v.optional(v.pipe(v.array(text), v.maxLength(MAX_ARMS))),
  commit: v.optional(text),
  /** the base policy every arm starts from */
  base: v.optional(text),
  /** the commands that reproduce it */
  commands: v.optional(v.pipe(v.array(text), v.maxLength(MAX_ARMS))),
  /** false when the seeds carry start and end evaluations only (converted older runs) */
  curvesRecorded: v.boolean(),
  arms: v.pipe(v.array(ArmSchema), v.minLength(1), v.maxLength(MAX_ARMS)),
});
export type Sweep = v.InferOutput<typeof SweepSchema>;

export class SweepFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepFileError';
  }
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The first problem of a refused file in one short line (src/util/valibot.ts words it). */
const issueText = (name: string, issues: readonly v.BaseIssue<unknown>[]): string => `${cut(name, 60)}: ${issueLine(issues)}`;

/** An ablation (`ablate --json`, any version) or a sweep, from a file's text; throws SweepFileError naming the field. */
export function readSweepText(name: string, body: string): Sweep {
  if (body.length > MAX_SWEEP_FILE_BYTES) throw new SweepFileError(`${name}: ${body.length} characters; sweep and ablation files of at most ${MAX_SWEEP_FILE_BYTES / 2 ** 20} MB are accepted`);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    throw new SweepFileError(`${name}: not JSON (${(e as Error).message.slice(0, 120)})`);
  }
  const isSweep = typeof json === 'object' && json !== null && (json as { format?: unknown }).format === SWEEP_FORMAT;
  if (isSweep) {
    const r = v.safeParse(SweepSchema, json);
    if (!r.success) throw new SweepFileError(issueText(name, r.issues));
    return r.output;
  }
  const r = v.safeParse(AblationSchema, json);
  if (!r.success) throw new SweepFileError(issueText(name, r.issues));
  return sweepOfAblations(name.replace(/\.json$/, ''), [{ name, ablation: r.output }]);
}

/** The label of an arm made from an ablation: its loop and the name it was loaded under. */
const armLabel = (loop: string, name: string) => `${loop} · ${name.replace(/^.*\//, '').replace(/\.json$/, '')}`;

/** Ablation files, one arm each (the explorer's "import several files, one per arm"). */
export function sweepOfAblations(title: string, files: readonly { name: string; ablation: Ablation }[]): Sweep {
  return {
    format: SWEEP_FORMAT,
    version: SWEEP_VERSION,
    title,
    base: files[0]?.ablation.base,
    commands: files.map((f) => f.ablation.command).filter((c): c is string => !!c),
    curvesRecorded: files.every((f) => f.ablation.results.every((r) => r.series !== undefined)),
    arms: files.map((f, i) => ({ id: `arm${i + 1}`, label: armLabel(f.ablation.loop, f.name), knobs: {}, ablation: f.ablation })),
  };
}

/** Several files read as one sweep: sweeps' arms and ablations' arms, in the order given, ids renumbered. */
export function mergeSweeps(title: string, sweeps: readonly Sweep[]): Sweep {
  if (sweeps.length === 0) throw new SweepFileError('no files to merge');
  const arms = sweeps.flatMap((s) => s.arms).map((a, i) => ({ ...a, id: `arm${i + 1}` }));
  if (arms.length > MAX_ARMS) throw new SweepFileError(`${arms.length} arms; at most ${MAX_ARMS}`);
  const one = sweeps.length === 1 ? sweeps[0] : null;
  return {
    ...(one ?? {}),
    format: SWEEP_FORMAT,
    version: SWEEP_VERSION,
    title: one?.title ?? title,
    curvesRecorded: sweeps.every((s) => s.curvesRecorded),
    arms,
  };
}

/** The text a sweep is saved as (NaN becomes null, as JSON has no NaN). */
export const sweepText = (s: Sweep): string => JSON.stringify(s, null, 1) + '\n';
