// The GRPO control (LOOPS.md §1) on the CPU reference engine: CPU mode's twin of
// src/loops/grpo.ts, event for event. Same problem draws, rollout seeds, reward, advantages,
// filtering, loss and metric names, so the page's charts, pause/step logic and exports take
// either. Only the engine differs: float64 references instead of WGSL kernels, sequences
// sampled one after another, hence slow and meant for the `tiny` policy.
import type { GPTConfig } from '../model/config';
import { rollout } from '../rl/rollout';
import { evaluateWith } from '../eval/evaluate';
import { answerOf } from '../eval/score';
import { EOS, decode, loadSet, makeRng, solvePrompt } from '../world/index';
import { grpoCheckpointDue, validateGrpoConfig, type GrpoConfig, type GrpoResumePoint, type LiveKnobs, type LoopControls } from '../loops/grpo';
import type { LoopEvent } from '../loops/events';
import type { Rollout } from '../rl/rollout';
import type { TrainStats } from '../rl/trainer';
import { breathe } from './breathe';
import { CpuPolicy } from './policy';
import { CpuTrainer } from './trainer';
import { CpuReferencePolicy } from './reference';

/** The k of pass@k: powers of two up to n, and n (as loops/grpo.ts). */
const kList = (n: number): number[] => {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (ks[ks.length - 1] !== n) ks.push(n);
  return ks;
};

/** Applies live changes; returns the config they produce (as loops/grpo.ts, validated the same way). */
function applyKnobs(c: GrpoConfig, k: Partial<LiveKnobs>): GrpoConfig {
  const { lr, ...rl } = k;
  return validateGrpoConfig({ ...c, ...(lr !== undefined ? { lr } : {}), rl: { ...c.rl, ...rl } }, 'live change');
}

/** The step event's metrics under TRL's names, the keys and order of loops/grpo.ts. */
function stepMetrics(trajs: readonly Rollout<number>[], stats: TrainStats, c: GrpoConfig, lr: number): Record<string, number> {
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

/**
 * Runs GRPO from `init` on the CPU, yielding the events runGrpo yields (eval at step 0, then per
 * step: step, samples, eval when due, checkpoint when due; done). `resume` continues after a
 * checkpoint exactly as runGrpo does. With β > 0 it keeps a frozen reference policy by runGrpo's
 * rule (the run's `init`, or `resume.reference`), scored by the float64 reference forward.
 */
export async function* runGrpoCpu(cfg: GPTConfig, init: Float32Array, config: GrpoConfig, signal?: AbortSignal, controls?: LoopControls, resume?: GrpoResumePoint): AsyncGenerator<LoopEvent> {
  let c = config;
  if (resume && (!Number.isSafeInteger(resume.step) || resume.step < 0 || resume.step > c.steps)) throw new Error(`grpo: cannot resume after step ${resume.step} of a ${c.steps}-step run`);
  const train = loadSet(c.trainSet).slice(0, c.trainProblems);
  const evalProblems = loadSet(c.evalSet).slice(0, c.evalProblems).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
  const policy = new CpuPolicy(cfg, init);
  const trainer = new CpuTrainer(policy, c.rl);
  trainer.setHyper({ lr: c.lr, weightDecay: c.weightDecay });
  if (resume) trainer.loadOptimiserState(resume.optimiser);
  const decoder = policy.decoder({ B: Math.min(64, c.problemsPerStep * c.groupSize), Tmax: cfg.nPositions });
  const referenceBase = resume?.reference ?? init;
  if (referenceBase.length !== init.length) throw new Error(`grpo: the reference parameters have ${referenceBase.length} floats, the policy ${init.length}`);
  // made when β first turns positive (at the start or by a live change), kept frozen thereafter
  let reference: CpuReferencePolicy | null = null;
  const rand = makeRng(c.seed ^ 0x6a09e667);
  // problemsPerStep is not a live knob, so every earlier step drew exactly this many problems
  for (let i = 0; i < (resume?.step ?? 0) * c.problemsPerStep; i++) rand();
  const checkpoint = (step: number): LoopEvent => ({ type: 'checkpoint', step, params: policy.paramsF32(), optimiser: trainer.optimiserState(), config: c });
  const evaluate = async (step: number): Promise<LoopEvent> => {
    const r = await evaluateWith(cfg, (shape) => policy.decoder(shape), evalProblems, { n: c.evalN, ks: kList(c.evalN), seed: (c.seed * 1000 + 7) >>> 0, temperature: c.rl.temperature, maxNew: c.maxNewTokens });
    return { type: 'eval', step, set: c.evalSet, passAtK: r.passAtK, avgAtK: r.avgAtK, majAtK: r.majAtK, meanEntropy: r.meanEntropy, meanLength: r.responseLength.mean, histogram: r.histogram.counts };
  };
  let step = resume?.step ?? 0;
  let saved = step;
  if (!resume) yield await evaluate(0);
  while (step < c.steps && !signal?.aborted) {
    step++;
    const change = controls?.pending();
    if (change && Object.keys(change).length) {
      c = applyKnobs(c, change);
      trainer.setRl(c.rl);
      trainer.setHyper({ lr: c.lr });
    }
    const t0 = performance.now();
    const batch = Array.from({ length: c.problemsPerStep }, () => train[Math.floor(rand() * train.length)]);
    const trajs = await rollout(
      decoder,
      batch.map((p) => ({ prompt: solvePrompt(p.text), payload: p.answer })),
      { groupSize: c.groupSize, role: 'solve', groupIdBase: step * c.problemsPerStep, seed: (c.seed * 7777 + step) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew: c.maxNewTokens },
      (gold, response) => {
        const { answer, text } = answerOf(response);
        return { reward: answer === gold ? 1 : 0, text };
      },
    );
    if (c.rl.beta > 0 && !reference) reference = new CpuReferencePolicy(cfg, referenceBase, c.rl.temperature);
    reference?.setTemperature(c.rl.temperature);
    const stats = await trainer.train(reference ? await reference.annotate(trajs) : trajs);
    yield { type: 'step', step, seconds: (performance.now() - t0) / 1000, metrics: stepMetrics(trajs, stats, c, trainer.hyperparameters.lr) };
    if (c.samplesPerStep > 0) {
      yield {
        type: 'samples', step,
        samples: trajs.slice(0, c.samplesPerStep).map((t) => ({ prompt: decode(t.promptTokens as number[]), response: t.text, reward: t.reward, entropy: Array.from(t.entropy) })),
      };
    }
    if ((c.evalEvery > 0 && step % c.evalEvery === 0) || step === c.steps) yield await evaluate(step);
    if (grpoCheckpointDue(c, step)) {
      yield checkpoint(step);
      saved = step;
    }
    // let the worker take the page's messages (pause, stop, knobs) before the next step
    await breathe();
  }
  // a stopped run keeps its last step too (for export), outside the step boundary
  if (step > saved) yield checkpoint(step);
  yield { type: 'done', step, aborted: Boolean(signal?.aborted), params: policy.paramsF32() };
}
