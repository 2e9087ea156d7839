// Advantage estimators (LOOPS.md §0). Groups are keyed by role and groupId, so two roles that
// reuse a groupId never share a baseline; batch_std pools per role, never across roles.
import type { AdvantageEstimator, RlCoreConfig, SingletonAdvantage } from './config';
import type { Trajectory } from './trajectory';
import { mean } from '../metrics/mean';

export interface AdvantageOptions {
  estimator: AdvantageEstimator;
  /**
   * A group of one: 'zero' (default, TRL) gives A = 0, it has no baseline to compare with;
   * 'verl' takes veRL's mean 0 and std 1 for it, so A = r (scaled as the estimator scales).
   */
  singleton?: SingletonAdvantage;
  /** ε added to the std (group_std, batch_std) */
  eps: number;
  /** n − 1 denominator for the std */
  bessel: boolean;
}

export function groupKey(tr: Pick<Trajectory, 'role' | 'groupId'>): string {
  return `${tr.role}\u0000${tr.groupId}`;
}

/** Indices of the trajectories of each group, in order of first appearance. */
export function groupIndices(trajs: readonly Pick<Trajectory, 'role' | 'groupId'>[], key: (tr: Pick<Trajectory, 'role' | 'groupId'>) => string = groupKey): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  trajs.forEach((tr, i) => {
    const k = key(tr);
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  return groups;
}

/** Standard deviation; 0 for fewer than two values (one sample has no spread to measure). */
export function std(xs: readonly number[], bessel: boolean): number {
  const n = xs.length;
  if (n < 2) return 0;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (bessel ? n - 1 : n));
}

/**
 * One scalar advantage per trajectory:
 *   group_std  A = (r − mean_g)/(std_g + ε)
 *   none       A = r − mean_g                       (Dr. GRPO)
 *   batch_std  A = (r − mean_g)/(std_role + ε), std_role over every reward of the role in the batch
 * A group of size 1 gets A = 0 (a deliberate difference from veRL, which gives it mean 0 and
 * std 1, so A = r; `singleton: 'verl'` does that). `external` has nothing to compute: use
 * assignAdvantages.
 */
export function computeAdvantages(trajs: readonly Pick<Trajectory, 'role' | 'groupId' | 'reward'>[], opts: AdvantageOptions): Float64Array {
  if (opts.estimator === 'external') throw new Error("computeAdvantages: estimator 'external' takes the loop's advantages; call assignAdvantages");
  for (const [i, tr] of trajs.entries()) {
    if (!Number.isFinite(tr.reward)) throw new Error(`trajectory ${i} (role ${tr.role}, group ${tr.groupId}): reward ${tr.reward} is not finite`);
  }
  const out = new Float64Array(trajs.length);
  const roleStd = new Map<string, number>();
  if (opts.estimator === 'batch_std') {
    for (const [role, idx] of groupIndices(trajs, (tr) => tr.role)) roleStd.set(role, std(idx.map((i) => trajs[i].reward), opts.bessel));
  }
  for (const idx of groupIndices(trajs).values()) {
    const rewards = idx.map((i) => trajs[i].reward);
    const lone = idx.length < 2;
    if (lone && opts.singleton !== 'verl') continue; // no baseline from one sample: A = 0
    const m = lone ? 0 : mean(rewards);
    let scale = 1;
    if (opts.estimator === 'group_std') scale = 1 / ((lone ? 1 : std(rewards, opts.bessel)) + opts.eps);
    else if (opts.estimator === 'batch_std') scale = 1 / ((roleStd.get(trajs[idx[0]].role) as number) + opts.eps);
    idx.forEach((i, j) => (out[i] = (rewards[j] - m) * scale));
  }
  return out;
}

/** Copies of the trajectories with `advantage` set by the configured estimator. */
export function assignAdvantages(trajs: readonly Trajectory[], cfg: Pick<RlCoreConfig, 'advantage' | 'advEps' | 'bessel'> & Partial<Pick<RlCoreConfig, 'singletonAdvantage'>>): Trajectory[] {
  if (cfg.advantage === 'external') {
    trajs.forEach((tr, i) => {
      if (tr.advantage === undefined) throw new Error(`trajectory ${i} (role ${tr.role}, group ${tr.groupId}): advantage 'external' but the loop supplied none`);
    });
    return trajs.slice();
  }
  const adv = computeAdvantages(trajs, { estimator: cfg.advantage, eps: cfg.advEps, bessel: cfg.bessel, singleton: cfg.singletonAdvantage });
  return trajs.map((tr, i) => ({ ...tr, advantage: adv[i] }));
}
