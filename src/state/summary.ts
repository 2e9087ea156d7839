// What a finished run did, in one line for its status: how many steps and how much compute,
// the training reward and the policy entropy over the first and last few steps, and held-out
// pass@1 and the largest pass@k from its first to its last evaluation.
import type { RunData } from './runData';

/** Steps averaged at each end of the run for "from → to". */
export const SUMMARY_WINDOW = 5;

export interface RunSummary {
  steps: number;
  /** seconds of compute over the recorded steps (evaluations excluded) */
  seconds: number;
  /** mean over the first and the last SUMMARY_WINDOW steps (null: not reported) */
  reward: { from: number; to: number } | null;
  entropy: { from: number; to: number } | null;
  /** first and last evaluation (null: fewer than two) */
  pass1: { from: number; to: number; fromStep: number; toStep: number } | null;
  passMax: { k: string; from: number; to: number } | null;
}

function ends(ys: readonly number[] | undefined): { from: number; to: number } | null {
  const v = (ys ?? []).filter(Number.isFinite);
  if (v.length === 0) return null;
  const mean = (a: readonly number[]) => a.reduce((s, x) => s + x, 0) / a.length;
  return { from: mean(v.slice(0, SUMMARY_WINDOW)), to: mean(v.slice(-SUMMARY_WINDOW)) };
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
