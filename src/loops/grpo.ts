// LOOPS.md §1, the GRPO control ("vanilla RLVR"): a fixed training set with gold answers, G
// samples per problem, reward 1 iff the extracted answer equals the gold answer. Every other
// loop is compared against this one. An async generator of events; the caller drives it.
import type { Gpu } from '../gpu/runtime';
import type { GPTConfig } from '../model/config';
import { buildTensorTable } from '../model/params';
import { Decoder } from '../model/decoder';
import { PolicyTrainer } from '../rl/trainer';
import { ReferencePolicy } from '../rl/reference';
import { rollout } from '../rl/rollout';
import { evaluateSet } from '../eval/evaluate';
import { loadSet, makeRng } from '../world/index';
import type { GrpoConfig } from './grpo_config';
import type { LoopEvent, OptimiserState } from './events';
import { applyKnobs, evalEvent, evalOptions, samplesEvent, sampleStep, stepMetrics, type LiveKnobs } from './grpo_step';

export { GRPO_DEFAULTS, GRPO_FIELDS, validateGrpoConfig, type GrpoConfig } from './grpo_config';

export type { LiveKnobs } from './grpo_step';

/** Read at the top of every step: what the user changed since the last one (or nothing). */
export interface LoopControls {
  pending(): Partial<LiveKnobs> | null;
}

/** Where a resumed run picks up: after `step` steps, with this optimiser state (a `checkpoint` event is one). */
export interface GrpoResumePoint {
  step: number;
  optimiser: OptimiserState;
  /**
   * The parameters the run started from, for the frozen reference of the KL penalty (β > 0).
   * Checkpoints do not hold them (that would double what every checkpoint stores); without
   * them the resumed run's reference is the checkpoint's parameters (`init`), so its KL restarts
   * from 0 at the resume step. Pass the base policy to continue exactly as the uninterrupted run.
   */
  reference?: Float32Array;
}

/** True when the step's checkpoint is due (every `checkpointEvery` steps, and always after the last). */
export function grpoCheckpointDue(c: Pick<GrpoConfig, 'steps' | 'checkpointEvery'>, step: number): boolean {
  return (c.checkpointEvery > 0 && step % c.checkpointEvery === 0) || step === c.steps;
}

/**
 * Runs GRPO from `init`, yielding step, sample, evaluation and checkpoint events. With `resume`,
 * `init` and `config` are the checkpoint's parameters and config, and the run continues after
 * `resume.step` exactly as the uninterrupted run would: same optimiser state, same problem draws
 * (the sampler is fast-forwarded), same per-step rollout seeds; the step-0 evaluation is not
 * repeated.
 *
 * With β > 0 (from the start, or set live from 0) the run keeps a frozen reference policy: the
 * parameters it started from, `init` (a resumed run: `resume.reference` when given, else the
 * checkpoint's parameters, see GrpoResumePoint). Each step annotates the rollouts with the
 * reference's log-probs before the update; the step event reports the KL estimate as `kl`. Once
 * made, the reference stays for the rest of the run (a live β of 0 keeps measuring the KL).
 */
export async function* runGrpo(gpu: Gpu, cfg: GPTConfig, init: Float32Array, config: GrpoConfig, signal?: AbortSignal, controls?: LoopControls, resume?: GrpoResumePoint): AsyncGenerator<LoopEvent> {
  let c = config;
  if (resume && (!Number.isSafeInteger(resume.step) || resume.step < 0 || resume.step > c.steps)) throw new Error(`grpo: cannot resume after step ${resume.step} of a ${c.steps}-step run`);
  const table = buildTensorTable(cfg);
  const train = loadSet(c.trainSet).slice(0, c.trainProblems);
  const evalProblems = loadSet(c.evalSet).slice(0, c.evalProblems).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
  const rows = Math.ceil((c.problemsPerStep * c.groupSize) / c.rl.miniBatches);
  const trainer = await PolicyTrainer.create(gpu, cfg, init, c.rl, { rows, T: cfg.nPositions, maxNewTokens: c.maxNewTokens });
  trainer.model.setHyper({ lr: c.lr, weightDecay: c.weightDecay });
  const decoder = await Decoder.create(gpu, cfg, table, trainer.model.params, { B: Math.min(64, c.problemsPerStep * c.groupSize), Tmax: cfg.nPositions });
  const model = { cfg, table, params: trainer.model.params };
  const referenceBase = resume?.reference ?? init;
  if (referenceBase.length !== init.length) throw new Error(`grpo: the reference parameters have ${referenceBase.length} floats, the policy ${init.length}`);
  // made when β first turns positive (at the start or by a live change), kept frozen thereafter
  let reference: ReferencePolicy | null = null;
  const rand = makeRng(c.seed ^ 0x6a09e667);
  // problemsPerStep is not a live knob, so every earlier step drew exactly this many problems
  for (let i = 0; i < (resume?.step ?? 0) * c.problemsPerStep; i++) rand();
  const checkpoint = async (step: number): Promise<LoopEvent> => {
    const [params, optimiser] = await Promise.all([trainer.model.readParams(), trainer.model.readOptimiserState()]);
    return { type: 'checkpoint', step, params, optimiser, config: c };
  };
  const evaluate = async (step: number): Promise<LoopEvent> => {
    return evalEvent(c, step, await evaluateSet(gpu, model, evalProblems, evalOptions(c)));
  };
  try {
    if (resume) trainer.model.loadOptimiserState(resume.optimiser);
    let step = resume?.step ?? 0;
    let saved = step;
    if (!resume) yield await evaluate(0);
    while (step < c.steps && !signal?.aborted) {
      step++;
      const change = controls?.pending();
      if (change && Object.keys(change).length) {
        c = applyKnobs(c, change);
        trainer.setRl(c.rl);
        trainer.model.setHyper({ lr: c.lr });
      }
      const t0 = performance.now();
      const sampled = await sampleStep(c, step, train, rand, (r) => rollout(decoder, r.prompts, r.opts, r.reward));
      const trajs = sampled.train;
      if (c.rl.beta > 0 && !reference) reference = await ReferencePolicy.create(gpu, cfg, referenceBase, { rows, T: cfg.nPositions }, c.rl.temperature);
      if (reference) reference.setTemperature(c.rl.temperature);
      const stats = await trainer.train(reference ? await reference.annotate(trajs) : trajs);
      yield { type: 'step', step, seconds: (performance.now() - t0) / 1000, metrics: stepMetrics(sampled, stats, c, trainer.model.hyperparameters.lr) };
      if (c.samplesPerStep > 0) yield samplesEvent(c, step, sampled.all);
      if ((c.evalEvery > 0 && step % c.evalEvery === 0) || step === c.steps) yield await evaluate(step);
      if (grpoCheckpointDue(c, step)) {
        yield await checkpoint(step);
        saved = step;
      }
    }
    // a stopped run keeps its last step too (for export), outside the step boundary
    if (step > saved) yield await checkpoint(step);
    yield { type: 'done', step, aborted: Boolean(signal?.aborted), params: await trainer.model.readParams() };
  } finally {
    // the generator may be abandoned mid-run (a stopped run): free its GPU memory either way
    decoder.destroy();
    trainer.destroy();
    reference?.destroy();
  }
}
