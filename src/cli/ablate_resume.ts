// What lets a long ablation (issue 27: hours of seeds) be stopped and continued: `--resume` reads
// the seeds its --json already holds (kept whole: their step series and every evaluation) and
// skips them; `--work DIR` keeps each running seed's checkpoints (the lab's checkpoint store on
// disk, as `rlvr-lab run` keeps them), so a seed cut short by a signal or a kill continues from its
// last checkpoint; the recorder rebuilds that seed's evaluations, series and token count from the
// checkpoint's history, so its result reads as the uninterrupted seed's.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './args';
import { fileCheckpointStore, type CheckpointStore, type RunHistory } from '../lab/worker/checkpoints';
import { nodeCheckpointFs } from '../lab/worker/storage/nodeFs';
import { readSweepText, SWEEP_FORMAT, SweepFileError } from '../explore/format';
import { SeriesRecorder } from '../explore/series';
import type { LoopEvent } from '../loops/events';
import type { SeedResult } from './ablate';

type EvalEvent = Extract<LoopEvent, { type: 'eval' }>;
type StepEvent = Extract<LoopEvent, { type: 'step' }>;

/** The run id of a seed's run (its checkpoints' folder in --work). */
export const seedRunId = (seed: number) => `ablate-${seed}`;

/** The checkpoint store of --work DIR: one run per seed, under DIR/checkpoints/ablate-<seed>/. */
export const workStore = (dir: string): CheckpointStore => fileCheckpointStore(nodeCheckpointFs(dir));

/** Config fields that do not change a run's numbers: a resumed ablation may differ in them. */
const BOOKKEEPING = ['seed', 'checkpointEvery'];
export const comparable = (c: unknown) => JSON.stringify(Object.fromEntries(Object.entries(c as object).filter(([k]) => !BOOKKEEPING.includes(k)).sort(([a], [b]) => a.localeCompare(b))));

/**
 * The finished seeds an interrupted ablation's --json holds, for `--resume` (none when the file
 * does not exist yet). Refused when it was written for another loop, base or config: its seeds
 * would then be mixed with runs of another set-up.
 */
export async function priorSeeds(file: string, want: { loop: string; base: string; config: unknown }): Promise<SeedResult[]> {
  if (!existsSync(file)) return [];
  let doc;
  try {
    const body = await readFile(file, 'utf8');
    const sweep = readSweepText(file, body);
    if ((JSON.parse(body) as { format?: unknown }).format === SWEEP_FORMAT) throw new SweepFileError(`${file}: a sweep, not an ablation's --json`);
    doc = sweep.arms[0].ablation;
  } catch (e) {
    if (e instanceof SweepFileError) throw new CliError(`--resume: ${e.message}`);
    throw e;
  }
  if (doc.loop !== want.loop) throw new CliError(`--resume: ${file} holds ${doc.loop} runs, not ${want.loop}; give its own --loop or another --json`);
  if (doc.base !== want.base) throw new CliError(`--resume: ${file} was run from ${doc.base}, not ${want.base}`);
  if (comparable(doc.config) !== comparable(want.config)) throw new CliError(`--resume: ${file} was run with another config (steps, evaluation size or --config differ); give the flags it was run with`);
  // NaN is written as null; the tables read a missing figure as NaN
  return doc.results as unknown as SeedResult[];
}

/** A seed's wall time before this invocation (kept beside its checkpoints, since the checkpoint holds step times only). */
const secondsFile = (dir: string, seed: number) => join(dir, `${seedRunId(seed)}.seconds.json`);
export async function priorSeconds(dir: string, seed: number): Promise<number> {
  try {
    const s = (JSON.parse(await readFile(secondsFile(dir, seed), 'utf8')) as { seconds?: unknown }).seconds;
    return typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : 0;
  } catch {
    return 0;
  }
}
/** Saves it; a failure only loses the wall time of the steps before a resume (said on stderr), never the run. */
export async function saveSeconds(dir: string, seed: number, seconds: number): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(secondsFile(dir, seed), JSON.stringify({ seconds }));
  } catch (e) {
    process.stderr.write(`seed ${seed}: cannot keep its wall time in ${secondsFile(dir, seed)} (${(e as Error).message})\n`);
  }
}
export const forgetSeconds = (dir: string, seed: number) => rm(secondsFile(dir, seed), { force: true });

/** One seed's evaluations, step series, generated tokens and `--report` values, live or rebuilt from a checkpoint's history. */
export class SeedRecorder {
  readonly evals: EvalEvent[] = [];
  readonly series = new SeriesRecorder();
  /** every reported metric's values by step; summarised per `--report` entry at the end */
  readonly seen: Record<string, number[]> = {};
  tokens = 0;
  steps = 0;

  constructor(private readonly report: readonly string[], private readonly upToOf: (r: string) => number | null) {}

  step(e: StepEvent): void {
    this.steps = e.step;
    this.tokens += e.metrics['tokens/generated'] ?? 0;
    this.series.add(e.step, e.seconds, this.tokens, e.metrics);
    for (const r of this.report) {
      const k = r.split('@')[0];
      if (Number.isFinite(e.metrics[k]) && e.step <= (this.upToOf(r) ?? Infinity)) (this.seen[r] ??= []).push(e.metrics[k]);
    }
  }

  /** What a resumed seed recorded up to its checkpoint's step (the run continues after it). */
  replay(history: RunHistory, step: number): void {
    for (const e of history.evals) if (e.step <= step) this.evals.push(e);
    for (const e of history.steps) if (e.step <= step) this.step(e);
  }
}
