// DATPO's configuration (LOOPS.md §5, the paper and its released code colin31472/DATPO): the
// shared loop fields plus the root rollouts, the budget's maxima, the fork strategy, the sibling
// diversity's α schedule, reach and embedder, each with the paper's value as its default;
// presets; a validator that names the field to change.
import { count, defaultsOf, num, type FieldSpecs } from '../../config/fields';
import { ConfigError } from '../../util/errors';
import { ROLE_LIMITS } from '../../world/index';
import { BOUNDS, checkSet, checkSetSize, dataSetField, loopFields, TOP_P, validateLoopConfig, type BaseLoopConfig } from '../base_config';
import type { LoopPreset } from '../spec';
import type { Embedder } from '../opensir/config';
import type { ForkStrategy } from './tree';

export interface DatpoConfig extends BaseLoopConfig {
  problemsPerStep: number;
  rootRollouts: number;
  bpMax: number;
  bnMax: number;
  forkStrategy: ForkStrategy;
  alphaStart: number;
  alphaEnd: number;
  alphaSchedule: 'anneal' | 'constant';
  diversityOn: 'positive' | 'all';
  embedder: Embedder;
  maxNewTokens: number;
  topP: number;
  trainSet: string;
  trainProblems: number;
}

/** bp_max and bn_max: a tree of 64 roots each forked 32 times into 32 branches is some 65,000 leaves a problem. */
const MAX_TREE_FACTOR = 32;
const MAX_ROOTS = 64;

const OWN_FIELDS: FieldSpecs<Omit<DatpoConfig, keyof BaseLoopConfig>> = {
  problemsPerStep: { default: 8, type: count(1, BOUNDS.perStep), paper: '—', help: 'problems per step, each grown into its own rollout tree' },
  rootRollouts: { default: 4, type: count(1, MAX_ROOTS), paper: '4 (N)', help: 'N: independent root rollouts per problem; their accuracy v sets the problem\'s budget' },
  bpMax: { default: 3, type: count(0, MAX_TREE_FACTOR), paper: '3', help: 'bp_max: forks per root K̂ = ⌈bp_max (1 − v)⌉' },
  bnMax: { default: 4, type: count(0, MAX_TREE_FACTOR), paper: '4', help: 'bn_max: branches per fork B̂ = ⌈bn_max (1 − v)⌉' },
  forkStrategy: {
    default: 'sentence-entropy', type: { kind: 'enum', choices: ['sentence-entropy', 'random', 'fixed-segment', 'token-entropy'] }, paper: 'sentence-entropy',
    help: 'where a root forks: the trace steps of highest mean entropy (the paper), or the ablation\'s random positions, evenly spaced segments, or the highest-entropy tokens',
  },
  alphaStart: { default: 0.2, type: num(-1, { max: 1 }), paper: '0.2', help: 'α at the first step: weight of the sibling-diversity bonus' },
  alphaEnd: { default: 0, type: num(-1, { max: 1 }), paper: '0', help: 'α at the last step (anneal: linear in between)' },
  alphaSchedule: { default: 'anneal', type: { kind: 'enum', choices: ['anneal', 'constant'] }, paper: 'anneal (ablation: constant)', help: 'anneal: α = alphaStart + (alphaEnd − alphaStart)·step/steps, reaching alphaEnd at the last step (the released code); constant: alphaStart throughout' },
  diversityOn: { default: 'positive', type: { kind: 'enum', choices: ['positive', 'all'] }, paper: 'positive (ablation: all)', help: 'which blocks get the bonus: those with a positive base advantage (the paper), or every block' },
  embedder: {
    default: 'policy', type: { kind: 'enum', choices: ['policy', 'ngram'] }, paper: 'policy (the policy\'s hidden states)',
    help: 'what the sibling divergence is measured on: policy, the mean of the frozen starting policy\'s final hidden states over the block\'s tokens; ngram, a bag of character 1- to 3-grams of its text (LOOPS.md §7\'s fallback, OpenSIR\'s). On `small` the policy\'s states of sibling blocks are nearly parallel (divergence about 0.05), so the bonus is under 1 % of the trained advantage (tree/bonus_share 0.006–0.008 at α = 0.2, the lab set-up): DATPO effectively without it. ngram is the one that makes it count: divergence 0.16–0.21, bonus_share 0.019–0.022 (up to 0.05 a step), about three times more, still a small share',
  },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest path (root response, or prefix and branch together), end token included' },
  topP: TOP_P,
  trainSet: { default: 'train', type: dataSetField('train-set'), paper: 'MATH', help: 'data set of training problems' },
  trainProblems: { default: 256, type: count(1, BOUNDS.setProblems), paper: '—', help: 'use the first N problems of the training set' },
};

export const DATPO_FIELDS: FieldSpecs<Omit<DatpoConfig, 'rl'>> = loopFields(OWN_FIELDS);

export const DATPO_DEFAULTS = defaultsOf(DATPO_FIELDS);

export const DATPO_PRESETS: Readonly<Record<string, LoopPreset<DatpoConfig>>> = {
  paper: {
    title: 'paper',
    note: 'LOOPS.md §5: N = 4 roots, bp_max 3, bn_max 4 (52 leaves for an unsolved problem), sentence-entropy forks, α 0.2 → 0 on positive blocks, μ = 2, clip 0.2/0.2, token mean; 8 problems a step',
    config: {},
  },
  lab: {
    title: 'lab (a few minutes here)',
    note: 'sized for a CPU adapter: 4 problems a step, bp_max 2, bn_max 2, 20 steps, a 16 × 8 evaluation every 10 steps',
    config: { problemsPerStep: 4, bpMax: 2, bnMax: 2, steps: 20, evalProblems: 16, evalN: 8 },
  },
  'random-forks': { title: 'ablation: random forks', note: 'forks at random positions of the root', config: { forkStrategy: 'random' } },
  'fixed-segment': { title: 'ablation: fixed segments', note: 'forks evenly spaced along the root', config: { forkStrategy: 'fixed-segment' } },
  'token-entropy': { title: 'ablation: token entropy', note: 'forks at the highest-entropy tokens (the localisation the paper shows)', config: { forkStrategy: 'token-entropy' } },
  'constant-alpha': { title: 'ablation: constant α', note: 'α = 0.2 throughout', config: { alphaSchedule: 'constant' } },
  'alpha-all': { title: 'ablation: α on all blocks', note: 'the diversity bonus on every block, not only those with a positive advantage', config: { diversityOn: 'all' } },
  'ngram-embedder': { title: 'n-gram sibling embeddings', note: 'sibling divergence on bags of character n-grams (LOOPS.md §7\'s fallback): on small, a bonus about three times larger than on the policy\'s states, where it is under 1 % of the update', config: { embedder: 'ngram' } },
};

function check(c: DatpoConfig, where: string): void {
  checkSet(where, 'trainSet', c.trainSet);
  checkSetSize(where, 'trainProblems', c.trainProblems, c.trainSet);
  if (c.rl.advantage !== 'external') throw new ConfigError(`${where}.rl.advantage = ${c.rl.advantage}: DATPO supplies its own block advantages from the tree's node values; use external (the datpo RL preset)`);
  if (c.rootRollouts === 1 && c.bpMax === 0) throw new ConfigError(`${where}.rootRollouts = 1 with bpMax = 0: one root and no forks make a tree of one leaf whose advantage is always 0; use more roots or forks`);
}

/**
 * The tree makes its own budget and advantages: DAPO's dynamic sampling and zero-variance filtering
 * (every block is its own group: filtering would drop them all) are not DATPO's, nor are the
 * group-advantage settings an external advantage never reads.
 */
export const DATPO_RL_UNUSED = ['dynamicSampling', 'maxGenBatches', 'filterZeroVariance', 'advEps', 'bessel', 'singletonAdvantage'] as const;

export function validateDatpoConfig(obj: unknown, where = 'datpo'): DatpoConfig {
  return validateLoopConfig<DatpoConfig>(obj, where, DATPO_FIELDS, DATPO_DEFAULTS, 'datpo', check, DATPO_RL_UNUSED);
}
