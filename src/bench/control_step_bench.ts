// One full step of the control loop (the registry's CONTROL_LOOP, GRPO) on the shipped `small`
// policy with its default config (rollouts of problemsPerStep × groupSize on the training set,
// then the update), and a held-out evaluation, on the engine the lab runs: what a user waits for
// per step. Figures, not bounds.
import type { Gpu } from '../gpu/runtime';
import { loadCheckpointDir } from '../model/checkpoint_node';
import { createWebGpuEngine } from '../engines/webgpu/engine';
import { CONTROL_LOOP, controlStepRollout, loopNamed, type ControlConfig } from '../loops/registry';
import { trainSettings } from '../loops/driver';
import { loadSet, makeRng } from '../world/index';
import type { BenchPlan } from './plan';

export interface ControlStepResult {
  /** timed steps (after one warm-up step) */
  steps: number;
  problemsPerStep: number;
  groupSize: number;
  /** mean seconds per step: rollouts, update, both */
  rolloutS: number;
  trainS: number;
  stepS: number;
  /** mean generated response tokens per step, and the mean sequence length (prompt + response) */
  tokensPerStep: number;
  meanSeqLen: number;
  evalProblems: number;
  evalN: number;
  evalS: number;
}

export async function benchControlStep(gpu: Gpu, plan: BenchPlan, policyDir: string, log: (s: string) => void): Promise<ControlStepResult> {
  const def = loopNamed(CONTROL_LOOP);
  const c = def.spec.validate({}) as ControlConfig;
  const base = await loadCheckpointDir(policyDir);
  log(`GRPO step of ${policyDir}: ${c.problemsPerStep} problems × ${c.groupSize} samples, default config (1 warm-up + ${plan.controlStep.steps} timed steps)`);
  const engine = await createWebGpuEngine(gpu, { cfg: base.cfg, params: base.params, reference: base.params, ...def.spec.shape(c) }, trainSettings(c, c.maxNewTokens));
  try {
    const train = loadSet('train');
    const rand = makeRng(plan.seed);
    let rolloutS = 0, trainS = 0, tokens = 0, seqLen = 0, seqs = 0;
    for (let step = 0; step <= plan.controlStep.steps; step++) {
      const r = controlStepRollout(c, step + 1, train, rand);
      const t0 = performance.now();
      const trajs = await engine.rollout(r.prompts, r.opts, r.reward);
      const t1 = performance.now();
      await engine.train(trajs);
      const t2 = performance.now();
      if (step === 0) continue; // warm-up: pipelines and first-use recordings
      rolloutS += (t1 - t0) / 1000;
      trainS += (t2 - t1) / 1000;
      for (const tr of trajs) {
        tokens += tr.responseTokens.length;
        seqLen += tr.promptTokens.length + tr.responseTokens.length;
        seqs++;
      }
    }
    const n = plan.controlStep.steps;
    const { problems, samples } = plan.controlStep.eval;
    log(`held-out evaluation: ${problems} problems × ${samples} samples`);
    const evalSet = loadSet('eval-mixed').slice(0, problems).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
    const e0 = performance.now();
    await engine.evaluate(evalSet, { n: samples, ks: [1, samples], seed: plan.seed, maxNew: c.maxNewTokens });
    const evalS = (performance.now() - e0) / 1000;
    return {
      steps: n, problemsPerStep: c.problemsPerStep, groupSize: c.groupSize,
      rolloutS: rolloutS / n, trainS: trainS / n, stepS: (rolloutS + trainS) / n,
      tokensPerStep: tokens / n, meanSeqLen: seqLen / seqs,
      evalProblems: problems, evalN: samples, evalS,
    };
  } finally {
    engine.destroy();
  }
}
