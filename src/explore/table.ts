// The explorer's results table, one row per arm: chosen metrics at the end (each seed's last
// recorded value; mean ± s.e. over seeds), pass@1 at the last evaluation, its change from the
// start paired by problem (as `ablate` computes it), and the difference to the control arm paired
// by problem with its standard error; a difference within two standard errors is marked as such.
import { meanSe, pairedDifference, type PairedDifference, type ProblemCountsEval } from '../metrics/bands';
import { evalsAt, type ArmView } from './draw';
import type { SweepEval } from './format';

export interface Estimate {
  mean: number;
  se: number;
  n: number;
}

export interface TableRow {
  arm: ArmView;
  metrics: Record<string, Estimate>;
  pass1: Estimate;
  /** pass@1 at the end minus at the start, paired by problem; null without per-problem counts */
  change: PairedDifference | null;
  /** pass@1 minus the control arm's at the end, paired by problem; null for the control or without one */
  vsControl: PairedDifference | null;
  /** why a paired difference could not be computed (different problems, no counts) */
  note?: string;
}

/** The last finite value of a seed's metric. */
function lastValue(ys: readonly (number | null)[] | undefined): number {
  if (!ys) return NaN;
  for (let i = ys.length - 1; i >= 0; i--) if (ys[i] !== null && Number.isFinite(ys[i])) return ys[i] as number;
  return NaN;
}

const counts = (evals: readonly SweepEval[]): ProblemCountsEval[] | null =>
  evals.every((e) => e.n !== undefined && e.correct !== undefined) ? evals.map((e) => ({ n: e.n as number, correct: e.correct as number[] })) : null;

/** A paired difference, or the reason there is none (per-problem counts missing, problems differ). */
function paired(a: readonly SweepEval[], b: readonly SweepEval[]): { d: PairedDifference | null; note?: string } {
  const ca = counts(a), cb = counts(b);
  if (!ca || !cb || ca.length === 0 || cb.length === 0) return { d: null, note: 'no per-problem counts' };
  try {
    return { d: pairedDifference(ca, cb, 1) };
  } catch (e) {
    return { d: null, note: (e as Error).message };
  }
}

/** The table's rows, in the arms' order; `control` is the arm the others are compared with (null: none). */
export function tableRows(arms: readonly ArmView[], metricKeys: readonly string[], controlId: string | null): TableRow[] {
  const control = arms.find((a) => a.id === controlId) ?? null;
  return arms.map((arm) => {
    const ends = evalsAt(arm, 'end');
    const metrics = Object.fromEntries(metricKeys.map((k) => [k, meanSe(arm.seeds.map((s) => lastValue(s.series?.metrics[k])))]));
    const change = paired(ends, evalsAt(arm, 'start'));
    const vs = control && control !== arm ? paired(ends, evalsAt(control, 'end')) : { d: null };
    const note = [change.note, vs.note].filter(Boolean).join('; ') || undefined;
    return { arm, metrics, pass1: meanSe(ends.map((e) => e.passAtK['1'])), change: change.d, vsControl: vs.d, ...(note ? { note } : {}) };
  });
}

export type SortColumn = 'arm' | 'pass1' | 'change' | 'vsControl' | `metric:${string}`;

/** The value a column sorts by (NaN last whichever the direction). */
function sortValue(r: TableRow, c: SortColumn): number | string {
  if (c === 'arm') return r.arm.colour;
  if (c === 'pass1') return r.pass1.mean;
  if (c === 'change') return r.change?.mean ?? NaN;
  if (c === 'vsControl') return r.vsControl?.mean ?? NaN;
  return r.metrics[c.slice('metric:'.length)]?.mean ?? NaN;
}

export function sortRows(rows: readonly TableRow[], column: SortColumn, dir: 'asc' | 'desc'): TableRow[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = sortValue(a, column), y = sortValue(b, column);
    if (typeof x === 'number' && typeof y === 'number') {
      if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
      return Number.isNaN(x) ? 0 : sign * (x - y);
    }
    return sign * String(x).localeCompare(String(y));
  });
}

/** The end metrics the table shows by default: those of the shared charts every loop has, that the arms recorded. */
export const TABLE_METRICS = ['reward', 'entropy/solve', 'completions/mean_length'];

/** "0.412 ± 0.031" (three decimals; "—" when unknown). */
export function pmText(e: { mean: number; se: number }, digits = 3): string {
  if (!Number.isFinite(e.mean)) return '—';
  const m = e.mean.toFixed(digits);
  return Number.isFinite(e.se) ? `${m} ± ${e.se.toFixed(digits)}` : m;
}
