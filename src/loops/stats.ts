// Small figures every loop's step reports the same way: the mean sampling entropy of trajectories,
// means and rates of a step's values, and the update's metrics with the loss head's entropy
// renamed (one name per quantity, LOOPS.md §0: `entropy` is the sampling entropy).
import type { Trajectory } from '../rl/trajectory';

/** Mean per-token sampling entropy over every response token of `trajs` (0 for none). */
export function meanEntropy(trajs: readonly Pick<Trajectory, 'entropy'>[]): number {
  let s = 0, n = 0;
  for (const t of trajs) for (let i = 0; i < t.entropy.length; i++) (s += t.entropy[i]), n++;
  return n ? s / n : 0;
}

/** The mean (0 for none: a caller leaves a quantity out when it has nothing to measure). */
export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : 0);

/** The share of true values (0 for none). */
export const rateOf = (xs: readonly boolean[]): number => mean(xs.map((x) => (x ? 1 : 0)));

/** The update's metrics with the loss head's entropy under `update/entropy`. */
export function renameEntropy(m: Record<string, number>): Record<string, number> {
  const { entropy, ...rest } = m;
  return entropy === undefined ? rest : { ...rest, 'update/entropy': entropy };
}

/** Cosine similarity of two vectors (0 when either is zero). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
