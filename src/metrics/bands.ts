// Statistics of a grid of runs grouped into arms (the ablation explorer and `ablate`): the mean of
// an arm's seeds at every step with a band (standard error, min–max, or a seeded bootstrap 95 %
// interval), end-of-run figures with their standard errors, and differences paired by problem.
// One implementation, used by the page and the CLI, tested against hand-computed values.
//
// Rules every function keeps: a NaN or missing value is left out, never counted as 0; an arm's band
// at a point of the x-axis uses the seeds whose values span it (a halted or still-running seed stops
// contributing where its series ends), and says how many did; runs that differ in more than their
// seed are never one arm.
import { passAtK } from './passk';
import { mulberry32 } from '../util/rng';

export type BandKind = 'se' | 'minmax' | 'bootstrap';

export const BAND_KINDS: readonly BandKind[] = ['se', 'minmax', 'bootstrap'];

/** What a legend says a band is. */
export const BAND_LABEL: Readonly<Record<BandKind, string>> = {
  se: '± 1 standard error across seeds',
  minmax: 'min–max across seeds',
  bootstrap: '95 % bootstrap interval across seeds',
};

export interface Band {
  mean: number;
  lo: number;
  hi: number;
  /** seeds with a finite value here */
  n: number;
}

const finite = (xs: readonly (number | null | undefined)[]): number[] => xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** Mean and standard error (sample std / √n; 0 for one value, NaN for none) of the finite values. */
export function meanSe(xs: readonly (number | null | undefined)[]): { mean: number; se: number; n: number } {
  const v = finite(xs);
  if (v.length === 0) return { mean: NaN, se: NaN, n: 0 };
  const m = v.reduce((a, x) => a + x, 0) / v.length;
  if (v.length === 1) return { mean: m, se: 0, n: 1 };
  const ss = v.reduce((a, x) => a + (x - m) ** 2, 0);
  return { mean: m, se: Math.sqrt(ss / (v.length - 1) / v.length), n: v.length };
}

/** Resamples of the bootstrap interval: enough for a stable 2.5 / 97.5 % percentile. */
export const BOOTSTRAP_RESAMPLES = 2000;

/**
 * 95 % percentile bootstrap interval of the mean, from `BOOTSTRAP_RESAMPLES` resamples drawn with a
 * generator seeded by `seed` (so a test can pin it). One value: the interval is that value.
 */
export function bootstrapInterval(xs: readonly number[], seed = 1, resamples = BOOTSTRAP_RESAMPLES): { lo: number; hi: number } {
  const v = finite(xs);
  if (v.length === 0) return { lo: NaN, hi: NaN };
  if (v.length === 1) return { lo: v[0], hi: v[0] };
  const rng = mulberry32(seed >>> 0);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[Math.floor(rng() * v.length)];
    means[r] = s / v.length;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))];
  return { lo: at(0.025), hi: at(0.975) };
}

/** The band of one step's values across seeds (NaN and missing values left out). */
export function bandOf(values: readonly (number | null | undefined)[], kind: BandKind, seed = 1): Band {
  const v = finite(values);
  const { mean, se, n } = meanSe(v);
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN, n: 0 };
  if (kind === 'se') return { mean, lo: mean - se, hi: mean + se, n };
  if (kind === 'minmax') return { mean, lo: Math.min(...v), hi: Math.max(...v), n };
  const { lo, hi } = bootstrapInterval(v, seed);
  return { mean, lo, hi, n };
}

/** One seed's step series of one metric: x values (step, generated tokens or seconds) and y values. */
export interface SeedSeries {
  x: readonly number[];
  y: readonly number[];
}

export interface BandPoint extends Band {
  /** where the band is drawn on the x-axis (a step, generated tokens or seconds; the same as x) */
  step: number;
  x: number;
}

/** A seed's finite points sorted by x (a repeated x keeps its last value). */
function finitePoints(s: SeedSeries): { x: number; y: number }[] {
  const pts: { x: number; y: number }[] = [];
  for (let i = 0; i < Math.min(s.x.length, s.y.length); i++) if (Number.isFinite(s.x[i]) && Number.isFinite(s.y[i])) pts.push({ x: s.x[i], y: s.y[i] });
  pts.sort((a, b) => a.x - b.x);
  return pts.filter((p, i) => i === pts.length - 1 || pts[i + 1].x !== p.x);
}

/**
 * An arm's band along the x-axis (step, generated tokens or seconds): at every x where any seed has
 * a value, each seed whose own values span that x counts with its value there, read off the straight
 * line between its neighbouring points (what its own line draws), so seeds that spend different
 * tokens a step are compared at the same tokens; n says how many seeds span it. A seed stops counting
 * past its last value (halted, still running, or stopped at a budget); NaN values are left out.
 */
export function armBand(seeds: readonly SeedSeries[], kind: BandKind, seed = 1): BandPoint[] {
  const series = seeds.map(finitePoints).filter((p) => p.length > 0);
  const xs = [...new Set(series.flatMap((p) => p.map((q) => q.x)))].sort((a, b) => a - b);
  const at = series.map(() => 0); // each seed's segment, advanced as x grows
  return xs.map((x, k) => {
    const values: number[] = [];
    series.forEach((p, s) => {
      if (x < p[0].x || x > p[p.length - 1].x) return;
      while (p[at[s] + 1] !== undefined && p[at[s] + 1].x <= x) at[s]++;
      const a = p[at[s]], b = p[at[s] + 1];
      values.push(a.x === x || b === undefined ? a.y : a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x));
    });
    return { ...bandOf(values, kind, seed + k), step: x, x };
  });
}

/** One evaluation's per-problem counts: n samples each, correct[i] right for problem i. */
export interface ProblemCountsEval {
  n: number;
  correct: readonly number[];
}

/** pass@k per problem of an evaluation. */
export const passPerProblem = (e: ProblemCountsEval, k: number): number[] => e.correct.map((c) => passAtK(e.n, c, k));

/**
 * pass@k of an arm at one evaluation: every seed's per-problem pass@k averaged over the seeds, then
 * over problems; its standard error across seeds (each seed's mean over problems). The seeds must
 * have evaluated the same problems.
 */
export function armPassAtK(evals: readonly ProblemCountsEval[], k: number): { mean: number; se: number; n: number } {
  return meanSe(evals.map((e) => mean(passPerProblem(e, k))));
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : NaN);

function sameProblems(evals: readonly ProblemCountsEval[], what: string): number {
  const len = evals[0]?.correct.length ?? 0;
  if (evals.some((e) => e.correct.length !== len)) throw new RangeError(`${what}: the evaluations differ in their number of problems (${evals.map((e) => e.correct.length).join(', ')}); a paired difference needs the same problems`);
  return len;
}

export interface PairedDifference {
  /** mean over problems of (arm's pass@k − the other's), each side averaged over its seeds */
  mean: number;
  /** standard error across problems */
  se: number;
  problems: number;
  /** the same difference within each seed pair (seed i of each side), for the sign rule */
  perSeed: number[];
  /** |mean| within two standard errors: not distinguishable from no difference */
  withinTwoSe: boolean;
}

/**
 * The difference of pass@k between two sets of evaluations of the same problems, paired by problem:
 * per problem, the mean over `a`'s seeds minus the mean over `b`'s, then mean and standard error
 * across problems. Used both for an arm's change from its start (a = end, b = start) and for an arm
 * against the control arm. NaN when a side has no evaluation.
 */
export function pairedDifference(a: readonly ProblemCountsEval[], b: readonly ProblemCountsEval[], k: number): PairedDifference {
  if (a.length === 0 || b.length === 0) return { mean: NaN, se: NaN, problems: 0, perSeed: [], withinTwoSe: true };
  const problems = sameProblems([...a, ...b], 'pairedDifference');
  const pa = a.map((e) => passPerProblem(e, k)), pb = b.map((e) => passPerProblem(e, k));
  const d = Array.from({ length: problems }, (_, i) => mean(pa.map((p) => p[i])) - mean(pb.map((p) => p[i])));
  const { mean: m, se } = meanSe(d);
  const perSeed = Array.from({ length: Math.min(a.length, b.length) }, (_, s) => mean(pa[s].map((x, i) => x - pb[s][i])));
  return { mean: m, se, problems, perSeed, withinTwoSe: !(Math.abs(m) > 2 * se) };
}

/**
 * A difference measured on one problem a seed (a TTSP target's mean@n, arm − control or end − base),
 * the seeds as the units: mean and standard error over the seeds, for the same effect rule.
 */
export function seedDifference(perSeed: readonly number[]): PairedDifference {
  const { mean: m, se } = meanSe(perSeed);
  return { mean: m, se, problems: 1, perSeed: [...perSeed], withinTwoSe: !(Math.abs(m) > 2 * se) };
}

/**
 * The effect rule of the results (issue 27): the pooled difference beyond two standard errors and
 * the same sign in at least two seed pairs.
 */
export function isEffect(d: PairedDifference): boolean {
  if (!Number.isFinite(d.mean) || d.withinTwoSe) return false;
  return d.perSeed.filter((x) => Math.sign(x) === Math.sign(d.mean) && x !== 0).length >= 2;
}

/**
 * The keys in which two configurations differ (nested objects compared key by key, as `rl.lr`);
 * used to refuse drawing runs that differ in more than `ignore` (the seed) as one arm.
 */
export function configDiff(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>, prefix = ''): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const out: string[] = [];
  for (const k of keys) {
    const x = a[k], y = b[k], path = prefix ? `${prefix}.${k}` : k;
    const objects = x !== null && y !== null && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y);
    if (objects) out.push(...configDiff(x as Record<string, unknown>, y as Record<string, unknown>, path));
    else if (JSON.stringify(x) !== JSON.stringify(y)) out.push(path);
  }
  return out;
}

/** Throws unless every configuration equals the first but for the keys in `ignore` (default: the seed). */
export function assertOneArm(label: string, configs: readonly Readonly<Record<string, unknown>>[], ignore: readonly string[] = ['seed']): void {
  for (let i = 1; i < configs.length; i++) {
    const diff = configDiff(configs[0], configs[i]).filter((k) => !ignore.includes(k));
    if (diff.length) throw new RangeError(`arm ${label}: its runs differ in ${diff.slice(0, 4).join(', ')} as well as the seed; runs that differ in more than their seed are never averaged into one line`);
  }
}
