// Sampling metrics of a problem set (LOOPS.md §7): unbiased pass@k, avg@k, maj@k and the
// per-problem accuracy histogram. Every estimator is the exact expectation over a uniformly
// random k-subset of the n samples drawn for a problem (never a bootstrap max), then the
// mean over problems. Pure and browser-safe.

/** The sample counts of one problem: n answers sampled, c of them correct. */
export interface ProblemCounts {
  n: number;
  c: number;
}

/** An extracted answer; null when the response has none (it never votes in maj@k). */
export type AnswerKey = number | string;

/** The sampled answers of one problem and its gold answer, for maj@k. */
export interface ProblemAnswers {
  answers: readonly (AnswerKey | null)[];
  gold: AnswerKey;
}

function checkCounts(n: number, c: number, k: number, what: string): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what}: n must be a positive integer, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c > n) throw new RangeError(`${what}: c must be an integer in [0, n=${n}], got ${c}`);
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`${what}: k must be an integer in [1, n=${n}], got ${k}`);
}

/**
 * Unbiased pass@k (Chen et al. 2021): the probability that a random k-subset of the n
 * samples holds at least one of the c correct ones, 1 − C(n−c, k)/C(n, k), evaluated as the
 * product 1 − Π_{i=n−c+1..n} (1 − k/i), which never forms a large binomial.
 * k > n is an error with a message, a deliberate difference: Chen et al.'s code returns 1 there
 * (n − c < k holds), which would report pass@k = 1 for a problem never solved.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k, 'passAtK');
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/**
 * avg@k: the mean accuracy of k samples. Its expectation over random k-subsets is c/n for
 * every k (each sample is equally likely to be in the subset); k is validated, not used.
 */
export function avgAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k, 'avgAtK');
  return c / n;
}

/** C(n, k) as a float64: each partial product is C(n−m+i, i), exact while below 2^53. */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const m = Math.min(k, n - k);
  let r = 1;
  for (let i = 1; i <= m; i++) r = (r * (n - m + i)) / i;
  return r;
}

/** Above this n the binomial sums of the exact maj@k would overflow float64. */
export const MAJ_MAX_SAMPLES = 1000;

/**
 * maj@k, exact: over a uniformly random k-subset of the samples, the probability that the
 * gold answer is the most frequent valid answer, a tie among m answers counting 1/m (ties
 * broken uniformly). Null answers do not vote; a subset with no valid answer scores 0.
 * Computed by a dynamic program per gold count t in the subset over (samples drawn from the
 * other answers, other answers also drawn exactly t times): O(n·k²·log k) per call.
 */
export function majAtK(answers: readonly (AnswerKey | null)[], gold: AnswerKey, k: number): number {
  const n = answers.length;
  if (n > MAJ_MAX_SAMPLES) throw new RangeError(`majAtK: exact computation supports at most ${MAJ_MAX_SAMPLES} samples, got ${n}`);
  const counts = new Map<AnswerKey, number>();
  let invalid = 0;
  for (const a of answers) {
    if (a === null) invalid++;
    else counts.set(a, (counts.get(a) ?? 0) + 1);
  }
  const c = counts.get(gold) ?? 0;
  checkCounts(n, c, k, 'majAtK');
  const others = [...counts.entries()].filter(([key]) => key !== gold).map(([, m]) => m);
  let favourable = 0;
  for (let t = 1; t <= Math.min(c, k); t++) favourable += binomial(c, t) * tiedWays(others, invalid, k - t, t);
  return favourable / binomial(n, k);
}

/**
 * Σ over ways to draw `rest` samples from the other answers (each drawn at most t times) and
 * the invalid ones, of 1/(1 + number of other answers drawn exactly t times).
 */
function tiedWays(others: readonly number[], invalid: number, rest: number, t: number): number {
  const maxTies = Math.floor(rest / t);
  const width = maxTies + 1;
  let dp = new Float64Array((rest + 1) * width);
  dp[0] = 1; // dp[j * width + e]: j samples drawn so far, e answers at exactly t
  for (const m of others) {
    const next = new Float64Array(dp.length);
    const top = Math.min(m, t);
    const w = Array.from({ length: top + 1 }, (_, x) => binomial(m, x));
    for (let j = 0; j <= rest; j++) {
      for (let e = 0; e <= maxTies; e++) {
        const v = dp[j * width + e];
        if (v === 0) continue;
        for (let x = 0; x <= top && j + x <= rest; x++) {
          const e2 = x === t ? e + 1 : e;
          if (e2 <= maxTies) next[(j + x) * width + e2] += v * w[x];
        }
      }
    }
    dp = next;
  }
  // The invalid samples fill whatever the other answers left: j from them, rest − j invalid.
  let sum = 0;
  for (let j = 0; j <= rest; j++) {
    const fill = binomial(invalid, rest - j);
    if (fill === 0) continue;
    for (let e = 0; e <= maxTies; e++) sum += (dp[j * width + e] * fill) / (1 + e);
  }
  return sum;
}

/** Keys of the metric records: k as a decimal string, in the order given. */
export type MetricAtK = Record<string, number>;

function checkKs(ks: readonly number[], what: string): void {
  if (ks.length === 0) throw new RangeError(`${what}: no k given`);
}

function meanOver<T>(items: readonly T[], ks: readonly number[], what: string, f: (item: T, k: number) => number): MetricAtK {
  if (items.length === 0) throw new RangeError(`${what}: no problems`);
  checkKs(ks, what);
  const out: MetricAtK = {};
  for (const k of ks) {
    let s = 0;
    for (const item of items) s += f(item, k);
    out[String(k)] = s / items.length;
  }
  return out;
}

/** pass@k for each k, averaged over problems. */
export const meanPassAtK = (problems: readonly ProblemCounts[], ks: readonly number[]): MetricAtK =>
  meanOver(problems, ks, 'meanPassAtK', (p, k) => passAtK(p.n, p.c, k));

/** avg@k for each k, averaged over problems. */
export const meanAvgAtK = (problems: readonly ProblemCounts[], ks: readonly number[]): MetricAtK =>
  meanOver(problems, ks, 'meanAvgAtK', (p, k) => avgAtK(p.n, p.c, k));

/** maj@k for each k, averaged over problems. */
export const meanMajAtK = (problems: readonly ProblemAnswers[], ks: readonly number[]): MetricAtK =>
  meanOver(problems, ks, 'meanMajAtK', (p, k) => majAtK(p.answers, p.gold, k));

export interface AccuracyHistogram {
  /** bin i covers [edges[i], edges[i+1]); the last bin includes 1 */
  edges: number[];
  counts: number[];
  /** problems never solved (c = 0) and always solved (c = n): the zero-variance groups of GRPO */
  zero: number;
  full: number;
}

/** Histogram of per-problem accuracy c/n over `bins` equal bins of [0, 1]. */
export function accuracyHistogram(problems: readonly ProblemCounts[], bins = 10): AccuracyHistogram {
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`accuracyHistogram: bins must be a positive integer, got ${bins}`);
  const counts = new Array<number>(bins).fill(0);
  let zero = 0;
  let full = 0;
  for (const { n, c } of problems) {
    checkCounts(n, c, 1, 'accuracyHistogram');
    counts[Math.min(Math.floor((c * bins) / n), bins - 1)]++;
    if (c === 0) zero++;
    if (c === n) full++;
  }
  return { edges: Array.from({ length: bins + 1 }, (_, i) => i / bins), counts, zero, full };
}
