// The GRPO control (LOOPS.md §1) on the CPU reference engine: CPU mode's twin of
// src/loops/grpo.ts, event for event. Same problem draws, rollout seeds, reward, advantages,
// filtering, loss and metric names, so the page's charts, pause/step logic and exports take
// either. Only the engine differs: float64 references instead of WGSL kernels, sequences
// sampled one after another, hence slow and meant for the `tiny` policy.
import type { GPTConfig } from '../model/config';
import { rollout } from '../rl/rollout';
import { evaluateWith } from '../eval/evaluate';
import { loadSet, makeRng } from '../world/index';
import { grpoCheckpointDue, type GrpoConfig, type GrpoResumePoint, type LoopControls } from '../loops/grpo';
import { applyKnobs, evalEvent, evalOptions, samplesEvent, sampleStep, stepMetrics } from '../loops/grpo_step';
import type { LoopEvent } from '../loops/events';
import { breathe } from './breathe';
import { CpuPolicy } from './policy';
import { CpuTrainer } from './trainer';
import { CpuReferencePolicy } from './reference';

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
  const trainer = new CpuTrainer(policy, c.rl, c.maxNewTokens);
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
    return evalEvent(c, step, await evaluateWith(cfg, (shape) => policy.decoder(shape), evalProblems, evalOptions(c)));
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
    const sampled = await sampleStep(c, step, train, rand, (r) => rollout(decoder, r.prompts, r.opts, r.reward));
    const trajs = sampled.train;
    if (c.rl.beta > 0 && !reference) reference = new CpuReferencePolicy(cfg, referenceBase, c.rl.temperature);
    reference?.setTemperature(c.rl.temperature);
    const stats = await trainer.train(reference ? await reference.annotate(trajs) : trajs);
    yield { type: 'step', step, seconds: (performance.now() - t0) / 1000, metrics: stepMetrics(sampled, stats, c, trainer.hyperparameters.lr) };
    if (c.samplesPerStep > 0) yield samplesEvent(c, step, sampled.all);
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
