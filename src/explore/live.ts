// A Sweep (the format `ablate --json` writes and the explorer imports) built from the runs the page
// holds: a grid running live and an imported file then draw through the same code. A seed counts
// once it has its first evaluation (the step-0 one, before its first step); its series grows as
// it trains, so an arm's band at a step uses the seeds that reached it.
import type { EvalEvent, RunStatus } from '../lab/protocol';
import type { RunData } from '../state/runData';
import { TOKENS_METRIC } from '../state/charts/wallTime';
import { ABLATION_FORMAT, ABLATION_VERSION, SWEEP_FORMAT, SWEEP_VERSION, type Sweep, type SweepArm, type SweepEval, type SweepSeed, type SweepSeries } from './format';
import type { GridState } from './queue';
import { ablateCommands } from './commands';

/** What a sweep needs of a run in the run list. */
export interface RunLike {
  loop: string;
  policy: string;
  config: { seed: number };
  data: RunData;
  status: RunStatus;
}

const orNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** A run's step metrics as the format keeps them (NaN → null; tokens summed over the steps). */
export function seriesOfRun(d: RunData): SweepSeries {
  const gen = d.series[TOKENS_METRIC];
  let sum = 0;
  const tokens = d.step.map((_, i) => {
    const t = gen?.[i];
    if (!Number.isFinite(t)) return null;
    sum += t as number;
    return sum;
  });
  return {
    step: [...d.step],
    seconds: d.seconds.map(orNull),
    tokens,
    metrics: Object.fromEntries(Object.entries(d.series).map(([k, ys]) => [k, ys.map(orNull)])),
  };
}

const evalOf = (e: EvalEvent): SweepEval => ({ ...e });

/** The halt that ended a run (or a failure), as a seed's `halted` says it. */
function haltedOf(s: RunStatus): string | undefined {
  const last = s.halts?.[s.halts.length - 1];
  if (s.state === 'failed') return s.error ?? last?.message ?? 'failed';
  if (last && (last.kind === 'rejected' || last.kind === 'nonfinite') && last.step >= s.step) return last.message;
  return undefined;
}

const seedCache = new WeakMap<RunData, { status: RunStatus; seed: SweepSeed | null }>();

/**
 * One run as a seed of an arm; null until it has an evaluation (the format needs its start).
 * Computed once per version of the run's data and status: a live grid rebuilds its sweep on every
 * batch, and only the runs that changed are converted again.
 */
export function seedOfRun(r: RunLike): SweepSeed | null {
  const hit = seedCache.get(r.data);
  if (hit && hit.status === r.status) return hit.seed;
  const seed = convert(r);
  seedCache.set(r.data, { status: r.status, seed });
  return seed;
}

function convert(r: RunLike): SweepSeed | null {
  const evals = r.data.evals;
  if (evals.length === 0) return null;
  const series = seriesOfRun(r.data);
  const lastTokens = [...series.tokens].reverse().find((t) => t !== null) ?? 0;
  const halted = haltedOf(r.status);
  return {
    seed: r.config.seed,
    start: evalOf(evals[0]),
    end: evalOf(evals[evals.length - 1]),
    steps: r.data.step.length ? r.data.step[r.data.step.length - 1] : 0,
    generatedTokens: lastTokens,
    seconds: r.data.seconds.reduce((a, x) => (Number.isFinite(x) ? a + x : a), 0),
    report: {},
    ...(halted ? { halted } : {}),
    series,
    evals: evals.map(evalOf),
  };
}

export interface LiveSweep {
  sweep: Sweep | null;
  /** seeds planned per arm (the legend's "n = 2 of 3"), every arm of the grid */
  planned: Record<string, number>;
  /** every arm's label, including those with no seed drawn yet */
  labels: Record<string, string>;
}

/**
 * The grid's runs as a sweep: each arm with the seeds that have run far enough to be drawn (arms
 * with none are left out until they have one). `partial` while any of its seeds has not ended.
 */
export function sweepOfGrid(g: GridState, runOf: (runId: string) => RunLike | undefined, meta: { commit?: string } = {}): LiveSweep {
  const planned: Record<string, number> = {};
  const labels: Record<string, string> = {};
  const arms: SweepArm[] = [];
  for (const arm of g.arms) {
    const plans = g.runs.filter((r) => r.armId === arm.id);
    planned[arm.id] = plans.length;
    labels[arm.id] = arm.label;
    const seeds: SweepSeed[] = [];
    let partial = false;
    for (const p of plans) {
      const e = g.entries[p.key];
      const run = e?.runId ? runOf(e.runId) : undefined;
      const seed = run ? seedOfRun(run) : null;
      if (e?.state !== 'done' && e?.state !== 'halted') partial = true;
      if (seed) seeds.push(seed);
    }
    if (seeds.length === 0) continue;
    const { seed: _seed, ...config } = arm.config as unknown as Record<string, unknown>;
    arms.push({
      id: arm.id, label: arm.label, knobs: arm.knobs, ...(arm.control ? { control: true, matchedTo: arm.matchedTo } : {}),
      ablation: { format: ABLATION_FORMAT, version: ABLATION_VERSION, loop: arm.loop, base: arm.policy, config: { ...config, seed: plans[0]?.seed ?? 0 }, partial, results: seeds },
    });
  }
  if (arms.length === 0) return { sweep: null, planned, labels };
  const sweep: Sweep = {
    format: SWEEP_FORMAT, version: SWEEP_VERSION, title: g.title, base: g.arms[0]?.policy, ...(meta.commit ? { commit: meta.commit } : {}),
    commands: ablateCommands(g), curvesRecorded: true, arms,
  };
  return { sweep, planned, labels };
}
