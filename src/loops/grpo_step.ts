// The engine-free pieces of a GRPO step, shared by the GPU loop (loops/grpo.ts) and CPU mode's
// twin (cpu/grpo.ts) so the two stay event for event the same: evaluation ks and options, live
// knob changes, the step's rollout (problem draw, seeds, reward), its metrics under TRL's names,
// and the samples and evaluation events.
import type { EvalOptions, EvalResult } from '../eval/evaluate';
import { answerOf } from '../eval/score';
import type { Rollout, RolloutOptions, RolloutPrompt } from '../rl/rollout';
import type { TrainStats } from '../rl/trainer';
import { EOS, decode, solvePrompt } from '../world/index';
import { validateGrpoConfig, type GrpoConfig } from './grpo_config';
import type { LoopEvent } from './events';

/** Knobs that are safe to change while a run trains; they apply from the next step. */
export interface LiveKnobs {
  lr: number;
  temperature: number;
  beta: number;
  entCoef: number;
  clipLow: number;
  clipHigh: number;
}

/** The k of pass@k: powers of two up to n, and n. */
export function kList(n: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (ks[ks.length - 1] !== n) ks.push(n);
  return ks;
}

/** Applies live changes; returns the config they produce (validated like any other). */
export function applyKnobs(c: GrpoConfig, k: Partial<LiveKnobs>): GrpoConfig {
  const { lr, ...rl } = k;
  return validateGrpoConfig({ ...c, ...(lr !== undefined ? { lr } : {}), rl: { ...c.rl, ...rl } }, 'live change');
}

/** The held-out evaluation's options: the same seed at every evaluation point. */
export function evalOptions(c: GrpoConfig): EvalOptions {
  return { n: c.evalN, ks: kList(c.evalN), seed: (c.seed * 1000 + 7) >>> 0, temperature: c.rl.temperature, maxNew: c.maxNewTokens };
}

export function evalEvent(c: GrpoConfig, step: number, r: EvalResult): LoopEvent {
  return { type: 'eval', step, set: c.evalSet, passAtK: r.passAtK, avgAtK: r.avgAtK, majAtK: r.majAtK, meanEntropy: r.meanEntropy, meanLength: r.responseLength.mean, histogram: r.histogram.counts };
}

/** Step `step`'s rollout: problems drawn from `rand`, per-step sampling seed, reward 1 iff the answer is the gold one. */
export function stepRollout(
  c: GrpoConfig, step: number, train: readonly { text: string; answer: number }[], rand: () => number,
): { prompts: RolloutPrompt<number>[]; opts: RolloutOptions; reward: (gold: number, response: readonly number[]) => { reward: number; text: string } } {
  const batch = Array.from({ length: c.problemsPerStep }, () => train[Math.floor(rand() * train.length)]);
  return {
    prompts: batch.map((p) => ({ prompt: solvePrompt(p.text), payload: p.answer })),
    opts: { groupSize: c.groupSize, role: 'solve', groupIdBase: step * c.problemsPerStep, seed: (c.seed * 7777 + step) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew: c.maxNewTokens },
    reward: (gold, response) => {
      const { answer, text } = answerOf(response);
      return { reward: answer === gold ? 1 : 0, text };
    },
  };
}

/** The step event's metrics under TRL's names. */
export function stepMetrics(trajs: readonly Rollout<number>[], stats: TrainStats, c: GrpoConfig, lr: number): Record<string, number> {
  const rewards = trajs.map((t) => t.reward);
  const mean = rewards.reduce((a, x) => a + x, 0) / rewards.length;
  const lengths = trajs.map((t) => t.responseTokens.length);
  let entSum = 0, entN = 0;
  for (const t of trajs) for (let i = 0; i < t.entropy.length; i++) (entSum += t.entropy[i]), entN++;
  return {
    reward: mean,
    reward_std: Math.sqrt(rewards.reduce((a, x) => a + (x - mean) ** 2, 0) / rewards.length),
    frac_reward_zero_std: stats.fracZeroStd,
    entropy: entN ? entSum / entN : 0,
    'completions/mean_length': lengths.reduce((a, x) => a + x, 0) / lengths.length,
    'completions/clipped_ratio': trajs.filter((t) => t.truncated).length / trajs.length,
    kept_groups: stats.keptGroups,
    dropped_groups: stats.droppedGroups,
    optimiser_steps: stats.optimiserSteps,
    rejected_steps: stats.rejectedSteps,
    lr,
    temperature: c.rl.temperature,
    beta: c.rl.beta,
    entCoef: c.rl.entCoef,
    clip_low: c.rl.clipLow,
    clip_high: c.rl.clipHigh,
    ...stats.metrics,
  };
}

export function samplesEvent(c: GrpoConfig, step: number, trajs: readonly Rollout<number>[]): LoopEvent {
  return {
    type: 'samples', step,
    samples: trajs.slice(0, c.samplesPerStep).map((t) => ({ prompt: decode(t.promptTokens as number[]), response: t.text, reward: t.reward, entropy: Array.from(t.entropy) })),
  };
}
