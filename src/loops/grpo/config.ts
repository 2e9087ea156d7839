// The GRPO control's configuration (LOOPS.md §1): the shared loop fields plus its own, each with
// help text and the paper's value, presets, and a validator that says what to change. Engine-free:
// the page builds its forms from it.
import { count, defaultsOf, type FieldSpecs } from '../../config/fields';
import { ConfigError } from '../../util/errors';
import { ROLE_LIMITS } from '../../world/index';
import { BOUNDS, checkSet, checkSetSize, dataSetField, loopFields, TOP_P, validateLoopConfig, type BaseLoopConfig } from '../base_config';
import type { LoopPreset } from '../spec';

export interface GrpoConfig extends BaseLoopConfig {
  problemsPerStep: number;
  groupSize: number;
  maxNewTokens: number;
  topP: number;
  trainSet: string;
  trainProblems: number;
}

const OWN_FIELDS: FieldSpecs<Omit<GrpoConfig, keyof BaseLoopConfig>> = {
  problemsPerStep: { default: 8, type: count(1, BOUNDS.perStep), paper: '—', help: 'problems per step (prompts of the rollout batch)' },
  groupSize: { default: 8, type: count(1, BOUNDS.group), paper: '8', help: 'G: responses sampled per problem (one advantage group)' },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest response, end token included' },
  topP: TOP_P,
  trainSet: { default: 'train', type: dataSetField('train-set'), paper: '—', help: 'data set of training problems (see rlvr-lab sets)' },
  trainProblems: { default: 256, type: count(1, BOUNDS.setProblems), paper: '—', help: 'use the first N problems of the training set (a fixed small set shows the trend)' },
};

/** The shared fields first (seed, steps, lr, …), then GRPO's own, in the launcher's order. */
export const GRPO_FIELDS: FieldSpecs<Omit<GrpoConfig, 'rl'>> = loopFields(OWN_FIELDS);

export const GRPO_DEFAULTS = defaultsOf(GRPO_FIELDS);

export const GRPO_PRESETS: Readonly<Record<string, LoopPreset<GrpoConfig>>> = {
  paper: { title: 'paper', note: 'LOOPS.md §1: G = 8 per problem, clip 0.2/0.28, token mean, β = 0, T = 1; 8 problems a step', config: {} },
  lab: {
    title: 'lab (a few minutes here)',
    note: 'sized for a CPU adapter: 4 problems × 8 samples, 20 steps, a 16 × 8 evaluation every 10 steps (a few minutes on SwiftShader, seconds on a GPU)',
    config: { problemsPerStep: 4, steps: 20, evalProblems: 16, evalN: 8 },
  },
};

function check(c: GrpoConfig, where: string): void {
  checkSet(where, 'trainSet', c.trainSet);
  checkSetSize(where, 'trainProblems', c.trainProblems, c.trainSet);
  if (c.rl.advantage === 'external') {
    throw new ConfigError(`${where}.rl.advantage = external: the grpo loop computes its advantages from rewards (group_std, none or batch_std); external advantages come from a loop that supplies them (datpo)`);
  }
  if (c.groupSize === 1 && c.rl.singletonAdvantage !== 'verl') {
    throw new ConfigError(`${where}.groupSize = 1: a group of one response has no baseline, so every advantage is 0 and nothing learns; use groupSize ≥ 2 (or rl.singletonAdvantage = verl for A = r)`);
  }
  const perStep = c.problemsPerStep * c.groupSize;
  if (c.rl.miniBatches > perStep) throw new ConfigError(`${where}.rl.miniBatches = ${c.rl.miniBatches} exceeds the ${perStep} trajectories per step; lower it or raise problemsPerStep`);
  // β ≥ 0 and a KL estimator come from the RL core's fields; with β > 0 the engine keeps a frozen reference
}

export function validateGrpoConfig(obj: unknown, where = 'grpo'): GrpoConfig {
  return validateLoopConfig<GrpoConfig>(obj, where, GRPO_FIELDS, GRPO_DEFAULTS, 'grpo', check);
}
