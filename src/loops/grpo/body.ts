// The GRPO control's body (LOOPS.md §1): each step draws problemsPerStep problems of the fixed
// training set (more with dynamic sampling), samples G responses each, rewards 1 iff the answer
// is the gold one, and updates. Its state is how many problems it has drawn, so a resumed run
// draws the same problems next.
import { countedRng } from '../../util/rng';
import { loadSet } from '../../world/index';
import type { LoopBody } from '../body';
import { samplesOf } from '../samples';
import type { GrpoConfig } from './config';
import { sampleStep, stepMetrics } from './step';

interface GrpoState {
  /** problem draws so far from the run's generator */
  draws: number;
}

function drawsToSkip(c: GrpoConfig, resume: { step: number; state: unknown } | null): number {
  if (!resume) return 0;
  const s = resume.state as Partial<GrpoState> | null;
  // a checkpoint from before loop states: every step drew exactly problemsPerStep (not live)
  return typeof s?.draws === 'number' ? s.draws : resume.step * c.problemsPerStep;
}

export const grpoBody: LoopBody<GrpoConfig> = (engine, config, resume) => {
  const train = loadSet(config.trainSet).slice(0, config.trainProblems);
  const rand = countedRng(config.seed ^ 0x6a09e667, drawsToSkip(config, resume));
  return {
    async step(step, c) {
      const sampled = await sampleStep(c, step, train, rand, (r) => engine.rollout(r.prompts, r.opts, r.reward));
      const stats = await engine.train(sampled.train);
      return { metrics: stepMetrics(sampled, stats), samples: samplesOf(sampled.all, c.samplesPerStep) };
    },
    state: (): GrpoState => ({ draws: rand.draws }),
  };
};
