// What a finished run did, in one line for its status: how many steps and how much compute,
// the training reward and the policy entropy over the first and last few steps, and held-out
// pass@1 and the largest pass@k from its first to its last evaluation.
import type { RunData } from './runData';
import { mean } from '../metrics/mean';

/** Steps averaged at each end of the run for "from → to"; a run of fewer than twice as many uses its halves (windowOf). */
export const SUMMARY_WINDOW = 5;

/** How many steps each end averages: SUMMARY_WINDOW, or half the run when it is short (the two never overlap); 0 for a single value. */
export function windowOf(n: number): number {
  return Math.min(SUMMARY_WINDOW, Math.floor(n / 2));
}

export interface RunSummary {
  steps: number;
  /** seconds of compute over the recorded steps (evaluations excluded) */
  seconds: number;
  /** mean over the first and the last `window` of its `of` reported steps (null: not reported) */
  reward: Ends | null;
  entropy: Ends | null;
  /** first and last evaluation (null: fewer than two) */
  pass1: { from: number; to: number; fromStep: number; toStep: number } | null;
  passMax: { k: string; from: number; to: number } | null;
}

export interface Ends {
  from: number;
  to: number;
  /** steps averaged at each end (0: one value only, from = to) */
  window: number;
  /** reported values in all */
  of: number;
}

function ends(ys: readonly number[] | undefined): Ends | null {
  const v = (ys ?? []).filter(Number.isFinite);
  if (v.length === 0) return null;
  const w = windowOf(v.length);
  if (w === 0) return { from: v[0], to: v[0], window: 0, of: v.length };
  return { from: mean(v.slice(0, w)), to: mean(v.slice(-w)), window: w, of: v.length };
}

/** How a summary names the steps it averaged: "first and last 5 steps", "first and last 3 of 7 steps", "one step". */
export function endsText(e: Ends): string {
  if (e.window === 0) return 'one step';
  if (e.window === SUMMARY_WINDOW) return `first and last ${e.window} steps`;
  return `first and last ${e.window} of ${e.of} step${e.of === 1 ? '' : 's'}`;
}

export function runSummary(d: RunData): RunSummary {
  const first = d.evals[0];
  const last = d.evals[d.evals.length - 1];
  const two = d.evals.length >= 2;
  const kMax = last ? Object.keys(last.passAtK).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  return {
    steps: d.step.length,
    seconds: d.seconds.filter(Number.isFinite).reduce((s, x) => s + x, 0),
    reward: ends(d.series.reward),
    entropy: ends(d.series['entropy/solve']),
    pass1: two && first.passAtK['1'] !== undefined && last.passAtK['1'] !== undefined ? { from: first.passAtK['1'], to: last.passAtK['1'], fromStep: first.step, toStep: last.step } : null,
    passMax: two && kMax !== undefined && kMax !== '1' && first.passAtK[kMax] !== undefined ? { k: kMax, from: first.passAtK[kMax], to: last.passAtK[kMax] } : null,
  };
}
