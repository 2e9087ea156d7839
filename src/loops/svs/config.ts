// SvS's configuration (LOOPS.md §2, the paper's §3 and its released code MasterVito/SvS): the
// shared loop fields plus the bands, group sizes, variant reward and cost guard, each with the
// paper's value as its default; presets; a validator that names the field to change.
import { count, defaultsOf, num, RATE, type FieldSpecs } from '../../config/fields';
import { ConfigError } from '../../util/errors';
import { ROLE_LIMITS, VARIANT_CONTEXTS, type VariantContext } from '../../world/index';
import { BOUNDS, checkSet, checkSetSize, dataSetField, loopFields, TOP_P, validateLoopConfig, type BaseLoopConfig } from '../base_config';
import type { LoopPreset } from '../spec';

export type VariantReward = 'shaped' | 'naive';
export type NoChallengingPolicy = 'oqa' | 'skip';

export interface SvsConfig extends BaseLoopConfig {
  problemsPerStep: number;
  groupSize: number;
  variantsPerSolution: number;
  accLow: number;
  accHigh: number;
  variantAccLow: number;
  variantAccHigh: number;
  variantReward: VariantReward;
  variantContext: VariantContext;
  noChallenging: NoChallengingPolicy;
  maxSynthesisSources: number | null;
  maxNewTokens: number;
  maxVariantTokens: number;
  topP: number;
  trainSet: string;
  trainProblems: number;
}

const rate = RATE;

const OWN_FIELDS: FieldSpecs<Omit<SvsConfig, keyof BaseLoopConfig>> = {
  problemsPerStep: { default: 8, type: count(1, BOUNDS.perStep), paper: '256', help: 'original problems per step (OQA: the policy solves each G times)' },
  groupSize: { default: 8, type: count(2, BOUNDS.group), paper: '8', help: 'G: answers per original problem and per variant (one advantage group each)' },
  variantsPerSolution: { default: 8, type: count(1, BOUNDS.group), paper: '8', help: 'G_v: variant problems written from each correct solution of a challenging problem (one VPS group)' },
  accLow: { default: 0.125, type: rate, paper: '0.125 (1 of 8)', help: 'acc_l: a problem is challenging when acc_l ≤ its pass rate p ≤ acc_h (inclusive)' },
  accHigh: { default: 0.5, type: rate, paper: '0.5 (4 of 8)', help: 'acc_h: upper end of the challenging band (inclusive)' },
  variantAccLow: { default: 0.125, type: rate, paper: '0.125 (1 of 8)', help: 'acĉ_l: a variant earns R_v = 1 when acĉ_l ≤ its answers\' pass rate p̂ ≤ acĉ_h (shaped reward)' },
  variantAccHigh: { default: 0.625, type: rate, paper: '0.625 (5 of 8)', help: 'acĉ_h: upper end of the rewarded band; a variant the policy always solves (it leaks or is trivial) earns 0' },
  variantReward: {
    default: 'shaped', type: { kind: 'enum', choices: ['shaped', 'naive'] }, paper: 'shaped',
    help: 'shaped: R_v = 1 iff p̂ is in the band (the paper); naive: R_v = 1 iff p̂ > 0, the ablation the policy hacks by leaking the answer into its variants',
  },
  variantContext: {
    default: 'solution', type: { kind: 'enum', choices: VARIANT_CONTEXTS }, paper: 'solution',
    help: 'what the vary prompt shows: solution, the correct solution alone (the paper: "each solution serves as context"; its released prompt holds only the response); problem+solution, the original problem before it (the ablation: variants then tend to rephrase the problem). The shipped bases are pretrained on both',
  },
  noChallenging: {
    default: 'oqa', type: { kind: 'enum', choices: ['oqa', 'skip'] }, paper: 'oqa (Algorithm 1, LOOPS.md); skip (the released code)',
    help: 'a step with no challenging problem: oqa trains on the kept original groups only; skip makes no update that step, as the released code does',
  },
  maxSynthesisSources: { default: null, type: num(1, { integer: true, nullable: true, max: BOUNDS.perStep * BOUNDS.group }), paper: 'null (all)', help: 'cost guard: at most this many correct solutions per step are used to write variants, a random subset drawn from the run\'s seeded problem stream (so a resumed run draws the same); null = all of them' },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest answer (original and variant problems), end token included' },
  maxVariantTokens: { default: ROLE_LIMITS.vary.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest variant problem, end token included' },
  topP: TOP_P,
  trainSet: { default: 'train', type: dataSetField('train-set'), paper: 'MATH-12k / DAPO-17k', help: 'data set of original problems with gold answers' },
  trainProblems: { default: 256, type: count(1, BOUNDS.setProblems), paper: '—', help: 'use the first N problems of the training set' },
};

/** The training set sits with the optimiser, after lr (the launcher's order). */
export const SVS_FIELDS: FieldSpecs<Omit<SvsConfig, 'rl'>> = loopFields(OWN_FIELDS, { afterLr: ['trainSet', 'trainProblems'] });

export const SVS_DEFAULTS = defaultsOf(SVS_FIELDS);

export const SVS_PRESETS: Readonly<Record<string, LoopPreset<SvsConfig>>> = {
  paper: {
    title: 'paper',
    note: 'LOOPS.md §2: G = G_v = 8, challenging band 1–4 of 8, rewarded band 1–5 of 8, shaped reward, every correct solution of a challenging problem synthesises (8 problems a step here; the paper takes 256)',
    config: {},
  },
  lab: {
    title: 'lab (a few minutes here)',
    note: 'sized for a CPU adapter: 6 problems a step, variants from at most 3 solutions (a seeded random 3), 20 steps, a 16 × 8 evaluation every 10 steps',
    config: { problemsPerStep: 6, maxSynthesisSources: 3, steps: 20, evalProblems: 16, evalN: 8 },
  },
  with_problem: {
    title: 'ablation: variants from problem and solution',
    note: 'the vary prompt shows the original problem before its solution (the paper argues against it: such variants rephrase the problem, so their diversity is not guaranteed)',
    config: { variantContext: 'problem+solution' },
  },
  naive: {
    title: 'ablation: naive variant reward',
    note: 'R_v = 1 iff p̂ > 0: the reward the paper shows the policy hacks by writing the answer into its variants (watch the leak rate)',
    config: { variantReward: 'naive' },
  },
};

function check(c: SvsConfig, where: string): void {
  checkSet(where, 'trainSet', c.trainSet);
  if (c.accLow > c.accHigh) throw new ConfigError(`${where}.accLow = ${c.accLow}: must be ≤ accHigh (${c.accHigh}); the challenging band is acc_l ≤ p ≤ acc_h`);
  if (c.variantAccLow > c.variantAccHigh) throw new ConfigError(`${where}.variantAccLow = ${c.variantAccLow}: must be ≤ variantAccHigh (${c.variantAccHigh}); the rewarded band is acĉ_l ≤ p̂ ≤ acĉ_h`);
  if (c.variantsPerSolution === 1 && c.rl.singletonAdvantage !== 'verl') {
    throw new ConfigError(`${where}.variantsPerSolution = 1: a VPS group of one variant has no baseline, so its advantage is 0 and variant writing never learns; use 2 or more (or rl.singletonAdvantage = verl)`);
  }
  checkSetSize(where, 'trainProblems', c.trainProblems, c.trainSet);
  if (c.rl.advantage === 'external') throw new ConfigError(`${where}.rl.advantage = external: svs computes its advantages from rewards per role and group; pick group_std, none or batch_std`);
}

/** SvS keeps its groups by their pass rates (0 < p < 1) itself and draws no extra problems: DAPO's dynamic sampling is not its. */
export const SVS_RL_UNUSED = ['dynamicSampling', 'maxGenBatches'] as const;

export function validateSvsConfig(obj: unknown, where = 'svs'): SvsConfig {
  return validateLoopConfig<SvsConfig>(obj, where, SVS_FIELDS, SVS_DEFAULTS, 'svs', check, SVS_RL_UNUSED);
}
