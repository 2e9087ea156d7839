// Group filtering (LOOPS.md §0): zero-variance groups carry no signal; DAPO's dynamic sampling
// keeps generating until enough informative groups are kept.
import { groupIndices, std } from './advantages';
import { mean } from '../metrics/mean';
import type { Trajectory } from './trajectory';

type Grouped = Pick<Trajectory, 'role' | 'groupId' | 'reward'>;

export interface GroupStats {
  role: Trajectory['role'];
  groupId: number;
  indices: number[];
  mean: number;
  /** population std (for display; zero-variance is decided by exact equality) */
  std: number;
  /** all rewards equal (a group of one included) */
  zeroVariance: boolean;
}

export function groupStats(trajs: readonly Grouped[]): GroupStats[] {
  return [...groupIndices(trajs).values()].map((idx) => {
    const r = idx.map((i) => trajs[i].reward);
    return {
      role: trajs[idx[0]].role,
      groupId: trajs[idx[0]].groupId,
      indices: idx,
      mean: mean(r),
      std: std(r, false),
      zeroVariance: r.every((x) => x === r[0]),
    };
  });
}

export interface FilterResult<T> {
  kept: T[];
  keptGroups: number;
  droppedGroups: number;
  /** TRL's frac_reward_zero_std: dropped groups / all groups (0 for no groups) */
  fracZeroStd: number;
}

/** Drops every group whose rewards are all equal; the order of the kept trajectories is kept. */
export function filterZeroVariance<T extends Grouped>(trajs: readonly T[]): FilterResult<T> {
  const stats = groupStats(trajs);
  const keep = new Uint8Array(trajs.length);
  let dropped = 0;
  for (const g of stats) {
    if (g.zeroVariance) dropped++;
    else for (const i of g.indices) keep[i] = 1;
  }
  return {
    kept: trajs.filter((_, i) => keep[i] === 1),
    keptGroups: stats.length - dropped,
    droppedGroups: dropped,
    fracZeroStd: stats.length ? dropped / stats.length : 0,
  };
}

/** The trajectories of the first `n` groups, in order of first appearance (DAPO trims the surplus). */
export function takeGroups<T extends Grouped>(trajs: readonly T[], n: number): T[] {
  const chosen = new Set([...groupIndices(trajs).values()].slice(0, Math.max(0, n)).flat());
  return trajs.filter((_, i) => chosen.has(i));
}

export interface DynamicSamplingState {
  /** non-zero-variance groups kept so far this step */
  keptGroups: number;
  /** groups the step trains on */
  targetGroups: number;
  /** generation batches run so far this step, the first included (≥ 1) */
  genBatches: number;
  /** extra generation batches allowed after the first */
  maxGenBatches: number;
}

export type DynamicSamplingDecision =
  | { action: 'train'; take: number } // enough: train on the first `take` groups
  | { action: 'sample_more'; missing: number }
  | { action: 'exhausted'; missing: number; message: string }; // the loop trains on fewer or skips

/** What DAPO's dynamic sampling does next. */
export function dynamicSamplingDecision(s: DynamicSamplingState): DynamicSamplingDecision {
  for (const k of ['keptGroups', 'targetGroups', 'genBatches', 'maxGenBatches'] as const) {
    if (!Number.isInteger(s[k]) || s[k] < 0) throw new Error(`dynamicSamplingDecision: ${k} = ${s[k]} must be an integer ≥ 0`);
  }
  if (s.genBatches < 1) throw new Error('dynamicSamplingDecision: decide after the first generation batch (genBatches ≥ 1)');
  if (s.keptGroups >= s.targetGroups) return { action: 'train', take: s.targetGroups };
  const missing = s.targetGroups - s.keptGroups;
  if (s.genBatches - 1 < s.maxGenBatches) return { action: 'sample_more', missing };
  return {
    action: 'exhausted',
    missing,
    message: `dynamic sampling kept ${s.keptGroups} of ${s.targetGroups} groups after ${s.genBatches - 1} extra generation batches (maxGenBatches = ${s.maxGenBatches}): the prompts are too easy or too hard for the policy`,
  };
}
