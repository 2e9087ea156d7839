// The GRPO control's step (LOOPS.md §1), engine-free: the problems it draws, the rollout's
// seeds and reward (1 iff the answer is the gold one), DAPO's dynamic sampling, and the step's
// metrics under TRL's names.
import { answerOf } from '../../eval/score';
import type { Rollout, RolloutOptions, RolloutPrompt } from '../../rl/rollout';
import type { TrainStats } from '../../rl/update';
import { EOS, makeRng, solvePrompt } from '../../world/index';
import { groupIndices, std } from '../../rl/advantages';
import { dynamicSamplingDecision, filterZeroVariance, takeGroups } from '../../rl/filter';
import { meanEntropy } from '../../metrics/entropy';
import type { GrpoConfig } from './config';

export interface StepRollout {
  prompts: RolloutPrompt<number>[];
  opts: RolloutOptions;
  reward: (gold: number, response: readonly number[]) => { reward: number; text: string };
}

/** A 32-bit hash of integers (seeds of dynamic sampling's extra generation batches). */
export function mixSeed(...xs: number[]): number {
  let h = 0x9e3779b9;
  for (const x of xs) {
    h = Math.imul(h ^ (x >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/**
 * Generation batch `batch` of step `step`: problemsPerStep problems, G samples each, reward 1 iff
 * the answer is the gold one. Batch 0 draws its problems from the run's `rand` (so a resumed
 * run fast-forwards it by problemsPerStep draws a step) with the step's sampling seed; the extra
 * batches of dynamic sampling draw from a generator and seed of their own.
 */
export function stepRollout(
  c: GrpoConfig, step: number, train: readonly { text: string; answer: number }[], rand: () => number, batch = 0,
): StepRollout {
  const draw = batch === 0 ? rand : makeRng(mixSeed(c.seed, step, batch, 1));
  const problems = Array.from({ length: c.problemsPerStep }, () => train[Math.floor(draw() * train.length)]);
  const seed = batch === 0 ? (c.seed * 7777 + step) >>> 0 : mixSeed(c.seed, step, batch, 2);
  return {
    prompts: problems.map((p) => ({ prompt: solvePrompt(p.text), payload: p.answer })),
    // group ids only need to differ within the step's update
    opts: { groupSize: c.groupSize, role: 'solve', groupIdBase: batch * c.problemsPerStep, seed, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew: c.maxNewTokens },
    reward: (gold, response) => {
      const { answer, text } = answerOf(response);
      return { reward: answer === gold ? 1 : 0, text };
    },
  };
}

/** What a step sampled: every rollout, the ones it trains on, and how many generation batches it took. */
export interface StepSample {
  /** every rollout of the step, all generation batches (the sampling metrics are over these) */
  all: Rollout<number>[];
  /** what the update gets: `all`, or with dynamic sampling the first problemsPerStep informative groups */
  train: Rollout<number>[];
  genBatches: number;
  /** dynamic sampling ran out of extra batches before it had problemsPerStep informative groups */
  exhausted: boolean;
  /** dynamic sampling was on */
  dynamic: boolean;
}

/**
 * The step's rollouts (LOOPS.md §0). Without dynamic sampling: one generation batch. With it
 * (DAPO): more batches of new problems until problemsPerStep groups with non-zero reward
 * variance are kept, at most maxGenBatches extra ones; the step then trains on the first
 * problemsPerStep of them (all it has when the batches ran out).
 */
export async function sampleStep(
  c: GrpoConfig, step: number, train: readonly { text: string; answer: number }[], rand: () => number,
  sample: (r: StepRollout) => Promise<Rollout<number>[]>,
): Promise<StepSample> {
  const all = await sample(stepRollout(c, step, train, rand, 0));
  if (!c.rl.dynamicSampling) return { all, train: all, genBatches: 1, exhausted: false, dynamic: false };
  let genBatches = 1;
  for (;;) {
    const kept = filterZeroVariance(all);
    const d = dynamicSamplingDecision({ keptGroups: kept.keptGroups, targetGroups: c.problemsPerStep, genBatches, maxGenBatches: c.rl.maxGenBatches });
    if (d.action === 'train') return { all, train: takeGroups(kept.kept, d.take), genBatches, exhausted: false, dynamic: true };
    if (d.action === 'exhausted') return { all, train: kept.kept, genBatches, exhausted: true, dynamic: true };
    all.push(...(await sample(stepRollout(c, step, train, rand, genBatches))));
    genBatches++;
  }
}

/** TRL's reward_std: the mean over groups of each group's reward std (Bessel, as torch.std). */
export function rewardStd(trajs: readonly Pick<Rollout<number>, 'role' | 'groupId' | 'reward'>[]): number {
  const groups = [...groupIndices(trajs).values()];
  if (groups.length === 0) return 0;
  return groups.reduce((a, idx) => a + std(idx.map((i) => trajs[i].reward), true), 0) / groups.length;
}

/**
 * The step event's metrics under TRL's names. `entropy/solve` is the sampling entropy over every
 * rollout of the step (what the papers plot); every GRPO token solves, so `entropy/all` (every
 * token of every role, the name every loop shares) is the same number. The loss head's entropy
 * of the tokens it trained on is `update/entropy`, a different quantity when filtering drops groups.
 */
export function stepMetrics(s: StepSample, stats: TrainStats): Record<string, number> {
  const trajs = s.all;
  const rewards = trajs.map((t) => t.reward);
  const mean = rewards.reduce((a, x) => a + x, 0) / rewards.length;
  const lengths = trajs.map((t) => t.responseTokens.length);
  const entropy = meanEntropy(trajs);
  const { entropy: updateEntropy, ...update } = stats.metrics;
  return {
    reward: mean,
    reward_std: rewardStd(trajs),
    // over every rollout of the step (TRL), not the update's groups: dynamic sampling keeps only groups with signal
    frac_reward_zero_std: filterZeroVariance(s.all).fracZeroStd,
    'entropy/solve': entropy,
    'entropy/all': entropy,
    // only with dynamic sampling: a constant 1 would be a chart of nothing
    ...(s.dynamic ? { gen_batches: s.genBatches, 'dynamic_sampling/exhausted': s.exhausted ? 1 : 0 } : {}),
    'completions/mean_length': lengths.reduce((a, x) => a + x, 0) / lengths.length,
    // every response token sampled this step (all generation batches): the cost loops are compared at
    'tokens/generated': lengths.reduce((a, x) => a + x, 0),
    'completions/clipped_ratio': trajs.filter((t) => t.truncated).length / trajs.length,
    kept_groups: stats.keptGroups,
    dropped_groups: stats.droppedGroups,
    optimiser_steps: stats.optimiserSteps,
    rejected_steps: stats.rejectedSteps,
    ...update,
    ...(updateEntropy !== undefined ? { 'update/entropy': updateEntropy } : {}),
  };
}
