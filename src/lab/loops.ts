// The loops the worker can run, each as a factory that validates its config and knows which
// events close a step (so pause and single step land on step boundaries). Worker-only: it
// pulls in the engine.
import { grpoCheckpointDue, runGrpo, validateGrpoConfig, type GrpoConfig } from '../loops/grpo';
import type { LoopName } from './protocol';
import type { LoopFactory, TailEvent } from './runs';

/**
 * What follows GRPO's `step` event (loops/grpo.ts): its samples, then the evaluation when one is
 * due, then the checkpoint when one is due (so a checkpoint holds the state a pause lands on).
 */
export function grpoTail(c: Pick<GrpoConfig, 'steps' | 'samplesPerStep' | 'evalEvery' | 'checkpointEvery'>, step: number): TailEvent[] {
  if (step === 0) return ['eval'];
  const tail: TailEvent[] = [];
  if (c.samplesPerStep > 0) tail.push('samples');
  if ((c.evalEvery > 0 && step % c.evalEvery === 0) || step === c.steps) tail.push('eval');
  if (grpoCheckpointDue(c, step)) tail.push('checkpoint');
  return tail;
}

export const LOOP_FACTORIES: Readonly<Record<LoopName, LoopFactory>> = {
  grpo: (raw) => {
    const config = validateGrpoConfig(raw, 'grpo');
    return {
      steps: config.steps,
      start: (gpu, cfg, init, signal, controls, resume) => runGrpo(gpu, cfg, init, config, signal, controls, resume),
      tail: (step) => grpoTail(config, step),
    };
  },
};
