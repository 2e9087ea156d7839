// The part of an RL update both engines share, before any mini-batch: advantages, the
// zero-variance count and filter, and the statistics an update reports. The WebGPU trainer
// (src/engines/webgpu/trainer.ts) and the CPU engine's (src/engines/cpu/trainer.ts) start here.
import { assignAdvantages } from './advantages';
import { filterZeroVariance } from './filter';
import type { Trajectory } from './trajectory';
import type { RlCoreConfig } from './config';

export interface TrainStats {
  /** the update's loss-head metrics over its optimiser steps (rl/update_metrics.ts) */
  metrics: Record<string, number>;
  keptGroups: number;
  droppedGroups: number;
  fracZeroStd: number;
  trajectories: number;
  optimiserSteps: number;
  rejectedSteps: number;
}

/**
 * The part of an RL update before any mini-batch: advantages (unless external), the
 * zero-variance count, and the trajectories kept; `stats` starts with no optimiser steps.
 * Shared by both engines' trainers.
 */
export function prepareUpdate(trajs: readonly Trajectory[], rl: RlCoreConfig): { kept: Trajectory[]; stats: TrainStats } {
  const withAdv = assignAdvantages(trajs, rl);
  // zero-variance groups are always counted (frac_reward_zero_std); dropped only when filtering
  const filtered = filterZeroVariance(withAdv);
  const kept = rl.filterZeroVariance ? filtered.kept : withAdv;
  const stats: TrainStats = {
    metrics: {},
    keptGroups: rl.filterZeroVariance ? filtered.keptGroups : filtered.keptGroups + filtered.droppedGroups,
    droppedGroups: rl.filterZeroVariance ? filtered.droppedGroups : 0,
    fracZeroStd: filtered.fracZeroStd,
    trajectories: kept.length, optimiserSteps: 0, rejectedSteps: 0,
  };
  return { kept, stats };
}
