// The GRPO control's configuration (LOOPS.md §1): typed fields with help text and the paper's
// value, and a validator that says what to change. Kept apart from the loop so the page can
// build its forms without importing the engine.
import { defaultsOf, isPlainObject, num, validateFields, type Field, type FieldSpecs } from '../config/fields';
import { ConfigError } from '../model/config';
import { resolveRlConfig, validateRlConfig, type RlCoreConfig } from '../rl/config';
import { ROLE_LIMITS, listSets } from '../world/index';

export interface GrpoConfig {
  seed: number;
  steps: number;
  problemsPerStep: number;
  groupSize: number;
  maxNewTokens: number;
  topP: number;
  lr: number;
  weightDecay: number;
  trainSet: string;
  trainProblems: number;
  evalSet: string;
  evalEvery: number;
  evalProblems: number;
  evalN: number;
  samplesPerStep: number;
  checkpointEvery: number;
  rl: RlCoreConfig;
}

const int = (min: number) => num(min, { integer: true });
const str: Field = { kind: 'string' };

export const GRPO_FIELDS: FieldSpecs<Omit<GrpoConfig, 'rl'>> = {
  seed: { default: 0, type: int(0), paper: '—', help: 'seed of problem order, sampling and evaluation' },
  steps: { default: 50, type: int(1), paper: '—', help: 'RL steps (one rollout and update each)' },
  problemsPerStep: { default: 8, type: int(1), paper: '—', help: 'problems per step (prompts of the rollout batch)' },
  groupSize: { default: 8, type: int(1), paper: '8', help: 'G: responses sampled per problem (one advantage group)' },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: int(1), paper: '—', help: 'longest response, end token included' },
  topP: { default: 1, type: num(0, { minExclusive: true, max: 1.0000001 }), paper: '1', help: 'nucleus sampling mass during rollouts (1 = off)' },
  lr: { default: 1e-4, type: num(0, { minExclusive: true }), paper: '1e-6 (7B models)', help: 'AdamW learning rate; a 100k-parameter policy needs far more than the papers\' 7B models' },
  weightDecay: { default: 0, type: num(0), paper: '0', help: 'AdamW decoupled weight decay' },
  trainSet: { default: 'train', type: str, paper: '—', help: 'data set of training problems (see rlvr-lab sets)' },
  trainProblems: { default: 256, type: int(1), paper: '—', help: 'use the first N problems of the training set (a fixed small set shows the trend)' },
  evalSet: { default: 'eval-mixed', type: str, paper: '—', help: 'held-out set for pass@k' },
  evalEvery: { default: 10, type: int(0), paper: '—', help: 'steps between evaluations (0 = only at the start and the end)' },
  evalProblems: { default: 50, type: int(1), paper: '—', help: 'problems of the evaluation set used' },
  evalN: { default: 16, type: int(1), paper: '—', help: 'samples per evaluation problem (pass@k for k up to n)' },
  samplesPerStep: { default: 4, type: int(0), paper: '—', help: 'sampled responses reported per step for the samples panel' },
  checkpointEvery: { default: 5, type: int(0), paper: '—', help: 'steps between checkpoints a run can resume from after a reload or a lost GPU (0 = only at the end)' },
};

export const GRPO_DEFAULTS = defaultsOf(GRPO_FIELDS);

export function validateGrpoConfig(obj: unknown, where = 'grpo'): GrpoConfig {
  if (!isPlainObject(obj)) throw new ConfigError(`${where}: expected an object`);
  const { rl, ...rest } = obj;
  const base = validateFields(rest, GRPO_FIELDS, where, GRPO_DEFAULTS);
  const rlc = validateRlConfig(rl ?? {}, `${where}.rl`, resolveRlConfig('grpo'));
  if (rlc.advantage === 'external') {
    throw new ConfigError(`${where}.rl.advantage = external: the grpo loop computes its advantages from rewards (group_std, none or batch_std); external advantages come from a loop that supplies them (datpo)`);
  }
  const perStep = base.problemsPerStep * base.groupSize;
  if (rlc.miniBatches > perStep) throw new ConfigError(`${where}.rl.miniBatches = ${rlc.miniBatches} exceeds the ${perStep} trajectories per step; lower it or raise problemsPerStep`);
  // β ≥ 0 and a KL estimator (klType, an enum with no null) come from the RL core's fields; with
  // β > 0 the loop keeps a frozen reference policy (loops/grpo.ts)
  for (const [k, v] of [['trainSet', base.trainSet], ['evalSet', base.evalSet]] as const) {
    if (!listSets().some((s) => s.name === v)) throw new ConfigError(`${where}.${k} = "${v}": unknown data set; known: ${listSets().map((s) => s.name).join(', ')}`);
  }
  return Object.freeze({ ...base, rl: rlc });
}
