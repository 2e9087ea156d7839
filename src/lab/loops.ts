// The loops the worker can run, each as a factory that validates its config and knows which
// events close a step (so pause and single step land on step boundaries). Worker-only: it
// pulls in the engine.
import { runGrpo, validateGrpoConfig, type GrpoConfig } from '../loops/grpo';
import type { LoopName } from './protocol';
import type { LoopFactory } from './runs';

/** What follows GRPO's `step` event (loops/grpo.ts): its samples, then the evaluation when one is due. */
export function grpoTail(c: Pick<GrpoConfig, 'steps' | 'samplesPerStep' | 'evalEvery'>, step: number): ('samples' | 'eval')[] {
  if (step === 0) return ['eval'];
  const tail: ('samples' | 'eval')[] = [];
  if (c.samplesPerStep > 0) tail.push('samples');
  if ((c.evalEvery > 0 && step % c.evalEvery === 0) || step === c.steps) tail.push('eval');
  return tail;
}

export const LOOP_FACTORIES: Readonly<Record<LoopName, LoopFactory>> = {
  grpo: (raw) => {
    const config = validateGrpoConfig(raw, 'grpo');
    return {
      steps: config.steps,
      start: (gpu, cfg, init, signal, controls) => runGrpo(gpu, cfg, init, config, signal, controls),
      tail: (step) => grpoTail(config, step),
    };
  },
};
