// The RL core's configuration (LOOPS.md §0): one typed object, help text and the paper value on
// every field, presets as partial overrides, and a validator that says what to change.
import { ConfigError, didYouMean } from '../util/errors';
import type { KlType, PgHyper, RatioLevel } from './hyper';
import { count, num, validateFields, type FieldSpecs } from '../config/fields';

export type AdvantageEstimator = 'group_std' | 'none' | 'batch_std' | 'external';
export type Aggregation = 'token_mean' | 'seq_mean_token_mean' | 'seq_mean_token_sum' | 'constant_norm';
/** A group of one response: no baseline (A = 0, ours and TRL's) or veRL's mean 0 and std 1 (A = r). */
export type SingletonAdvantage = 'zero' | 'verl';
/** N of the seq_mean_* aggregations: every trajectory (TRL) or only those with a token in the loss (veRL). */
export type SeqMeanCount = 'all' | 'unmasked';

export interface RlCoreConfig {
  readonly advantage: AdvantageEstimator;
  readonly advEps: number;
  readonly bessel: boolean;
  readonly singletonAdvantage: SingletonAdvantage;
  readonly clipLow: number;
  readonly clipHigh: number;
  readonly dualClipC: number | null;
  readonly ratioLevel: RatioLevel;
  readonly aggregation: Aggregation;
  readonly constantNormTokens: number | null;
  readonly seqMeanCount: SeqMeanCount;
  readonly klType: KlType;
  readonly beta: number;
  readonly klClamp: number;
  readonly entCoef: number;
  readonly epochs: number;
  readonly miniBatches: number;
  readonly filterZeroVariance: boolean;
  readonly dynamicSampling: boolean;
  readonly maxGenBatches: number;
  readonly maskTruncated: boolean;
  readonly maxGradNorm: number;
  readonly temperature: number;
}

export const RL_CORE_FIELDS: FieldSpecs<RlCoreConfig> = {
  advantage: {
    default: 'group_std', type: { kind: 'enum', choices: ['group_std', 'none', 'batch_std', 'external'] },
    help: 'advantage estimator: group_std (r − group mean)/(group std + ε); none: r − group mean (Dr. GRPO); batch_std: r − group mean over the std of the role\'s rewards in the batch; external: supplied by the loop (DATPO tree blocks)',
    paper: 'GRPO: group_std',
  },
  advEps: { default: 1e-6, type: num(0, { minExclusive: true }), help: 'ε added to the std in group_std and batch_std', paper: '1e-6 (veRL, SvS); 1e-4 (TRL, OpenSIR)' },
  bessel: { default: true, type: { kind: 'boolean' }, help: 'std with the n − 1 (Bessel) denominator', paper: 'true (torch.std)' },
  singletonAdvantage: {
    default: 'zero', type: { kind: 'enum', choices: ['zero', 'verl'] },
    help: 'a group of one response has no baseline: zero gives it A = 0 (it does not train); verl takes mean 0 and std 1 as veRL does, so A = r (a deliberate difference: a lone reward is not an advantage)',
    paper: 'zero; verl in veRL-based code (SvS)',
  },
  clipLow: { default: 0.2, type: num(0, { max: 1, maxExclusive: true }), help: 'ε_low: with A < 0 the ratio is clipped below 1 − ε_low', paper: '0.2' },
  clipHigh: { default: 0.28, type: num(0), help: 'ε_high: with A > 0 the ratio is clipped above 1 + ε_high (clip-higher)', paper: '0.28 (DAPO); 0.2 symmetric in PPO/GRPO' },
  dualClipC: { default: null, type: num(1, { minExclusive: true, nullable: true }), help: 'dual clip for A < 0: the surrogate is capped at −c·A; null = off', paper: '3 (SvS)' },
  ratioLevel: { default: 'token', type: { kind: 'enum', choices: ['token', 'sequence'] }, help: 'token: one ratio per token; sequence: exp of the mean token log-ratio, shared by the sequence (GSPO)', paper: 'token' },
  aggregation: {
    default: 'token_mean', type: { kind: 'enum', choices: ['token_mean', 'seq_mean_token_mean', 'seq_mean_token_sum', 'constant_norm'] },
    help: 'how token losses are summed: token_mean Σℓ/ΣM; seq_mean_token_mean mean over sequences of their token mean; seq_mean_token_sum mean over sequences of their token sum; constant_norm Σℓ/(N·L_max)',
    paper: 'token_mean (DAPO); seq_mean_token_mean (GRPO); constant_norm (Dr. GRPO, SPICE)',
  },
  seqMeanCount: {
    default: 'all', type: { kind: 'enum', choices: ['all', 'unmasked'] },
    help: 'N of seq_mean_token_mean and seq_mean_token_sum: all counts every trajectory of the mini-batch (TRL); unmasked only those with a token in the loss (veRL); they differ when maskTruncated masks whole responses',
    paper: 'all (TRL); unmasked (veRL)',
  },
  constantNormTokens: { default: null, type: num(1, { integer: true, nullable: true, max: 100_000 }), help: 'L_max of constant_norm; null = the loop\'s maxNewTokens', paper: 'maxNewTokens' },
  klType: { default: 'k3', type: { kind: 'enum', choices: ['k1', 'k2', 'k3'] }, help: 'KL estimator to the frozen reference, δ = log π_ref − log π: k1 = −δ, k2 = δ²/2, k3 = e^δ − δ − 1', paper: 'k3 (GRPO, OpenSIR)' },
  beta: { default: 0, type: num(0), help: 'KL coefficient β (0 = no reference model needed)', paper: '0; 0.04 (GRPO); 1e-4 (OpenSIR)' },
  klClamp: {
    default: 10, type: num(0, { minExclusive: true }),
    help: 'δ is clamped to ±klClamp before the estimator (no gradient beyond). A deliberate difference: veRL clamps δ to ±20 and then k3 itself to ±10; TRL does not clamp (a large klClamp, e.g. 1e6, is TRL\'s)',
    paper: '10',
  },
  entCoef: { default: 0, type: num(-Infinity), help: 'entropy bonus: the loss gets −entCoef·Σ c·H', paper: '0' },
  epochs: { default: 1, type: count(1, 100), help: 'μ: passes over each rollout batch; with μ = 1 and one mini-batch ρ ≡ 1 and the clip is inert', paper: '1; 2 (DATPO)' },
  miniBatches: { default: 1, type: count(1, 1024), help: 'optimiser steps per epoch (the batch is split into this many parts)', paper: '1' },
  filterZeroVariance: { default: false, type: { kind: 'boolean' }, help: 'drop groups whose rewards are all equal (they carry no signal)', paper: 'false; true (DAPO)' },
  dynamicSampling: { default: false, type: { kind: 'boolean' }, help: 'keep sampling prompts until the batch has the requested number of non-zero-variance groups (DAPO)', paper: 'false; true (DAPO)' },
  maxGenBatches: { default: 10, type: count(1, 1000), help: 'dynamic sampling: at most this many extra generation batches per step', paper: '10 (DAPO)' },
  maskTruncated: { default: false, type: { kind: 'boolean' }, help: 'mask responses that hit maxNewTokens without an end token out of the loss', paper: 'false' },
  maxGradNorm: { default: 1.0, type: num(0), help: 'global gradient-norm clip (0 = off)', paper: '1.0' },
  temperature: { default: 1.0, type: num(0, { minExclusive: true }), help: 'sampling temperature; log π and H of the loss use the same one', paper: '1.0' },
};

const KEYS = Object.keys(RL_CORE_FIELDS) as (keyof RlCoreConfig)[];

export const DEFAULT_RL_CORE: RlCoreConfig = Object.freeze(
  Object.fromEntries(KEYS.map((k) => [k, RL_CORE_FIELDS[k].default])) as unknown as RlCoreConfig,
);

/** Paper presets as partial overrides of the defaults (LOOPS.md §0–§5). */
export const RL_CORE_PRESETS = {
  /** LOOPS §1 GRPO baseline: group_std, clip 0.2/0.28, token_mean, β = 0, T = 1 (the defaults) */
  grpo: {},
  /** DeepSeekMath GRPO as published: symmetric clip, sequence mean of token means, k3 KL 0.04 */
  grpo_original: { clipHigh: 0.2, aggregation: 'seq_mean_token_mean', beta: 0.04, klType: 'k3' },
  /** Dr. GRPO: no std normalisation, constant length normaliser */
  dr_grpo: { advantage: 'none', aggregation: 'constant_norm', clipHigh: 0.2 },
  /** DAPO: clip-higher, token mean, dynamic sampling of non-zero-variance groups */
  dapo: { clipHigh: 0.28, aggregation: 'token_mean', filterZeroVariance: true, dynamicSampling: true },
  /** GSPO: sequence-level ratio with its narrow clip range */
  gspo: { ratioLevel: 'sequence', aggregation: 'seq_mean_token_mean', clipLow: 3e-4, clipHigh: 4e-4 },
  /** LOOPS §2 SvS optimisation */
  svs: { advEps: 1e-6, clipHigh: 0.28, dualClipC: 3, aggregation: 'token_mean', epochs: 1, beta: 0 },
  /** LOOPS §3 SPICE: Dr. GRPO advantages, constant_norm with L_max = maxNewTokens */
  spice: { advantage: 'none', aggregation: 'constant_norm', beta: 0 },
  /** LOOPS §4 OpenSIR: group_std ε 1e-4, clip 0.2/0.2, β = 1e-4 with k3 */
  opensir: { advEps: 1e-4, clipHigh: 0.2, beta: 1e-4, klType: 'k3' },
  /** LOOPS §5 DATPO: tree block advantages from the loop, clip 0.2/0.2, μ = 2 */
  datpo: { advantage: 'external', clipHigh: 0.2, epochs: 2, aggregation: 'token_mean', beta: 0 },
  /** LOOPS §6 TTSP: GRPO for both adapter sets (the paper's), β = 0 (the adapters start as the base) */
  ttsp: { beta: 0 },
} as const satisfies Record<string, Partial<RlCoreConfig>>;

export type RlCorePresetName = keyof typeof RL_CORE_PRESETS;

/** Cross-field rules: each message names the fields and what to change. */
function checkConsistency(where: string, c: RlCoreConfig): void {
  if (c.dynamicSampling && !c.filterZeroVariance) {
    throw new ConfigError(`${where}: dynamicSampling keeps sampling until enough non-zero-variance groups are kept, which needs filterZeroVariance: true; set filterZeroVariance to true or dynamicSampling to false`);
  }
}

/**
 * Checks an untrusted partial config (form, URL, saved run) over `base` and returns a frozen,
 * complete config. Unknown keys are rejected with the closest known name.
 */
export function validateRlConfig(obj: unknown, where = 'rl', base: RlCoreConfig = DEFAULT_RL_CORE): RlCoreConfig {
  const merged = validateFields(obj, RL_CORE_FIELDS, where, base);
  checkConsistency(where, merged);
  return merged;
}

/** Defaults, then a preset, then overrides; validated. */
export function resolveRlConfig(preset: RlCorePresetName | null, overrides: unknown = {}): RlCoreConfig {
  let base = DEFAULT_RL_CORE;
  if (preset !== null) {
    if (!Object.hasOwn(RL_CORE_PRESETS, preset)) {
      const names = Object.keys(RL_CORE_PRESETS);
      throw new ConfigError(`unknown RL preset "${preset}"${didYouMean(preset, names)}; presets: ${names.join(', ')}`);
    }
    base = validateRlConfig(RL_CORE_PRESETS[preset], `preset ${preset}`);
  }
  return validateRlConfig(overrides, 'rl', base);
}

/** The non-default fields of a config (for run labels and URLs). */
export function diffFromDefaults(c: RlCoreConfig, base: RlCoreConfig = DEFAULT_RL_CORE): Partial<RlCoreConfig> {
  return Object.fromEntries(KEYS.filter((k) => c[k] !== base[k]).map((k) => [k, c[k]])) as Partial<RlCoreConfig>;
}

/**
 * L_max of constant_norm: the config's constantNormTokens, or (null, the default) the loop's
 * longest response, maxNewTokens, as Dr. GRPO and SPICE normalise by the generation budget.
 */
export function constantNormOf(c: Pick<RlCoreConfig, 'constantNormTokens'>, maxNewTokens: number): number {
  const l = c.constantNormTokens ?? maxNewTokens;
  if (!Number.isInteger(l) || l < 1) throw new ConfigError(`constant_norm needs L_max ≥ 1: constantNormTokens = ${c.constantNormTokens}, maxNewTokens = ${maxNewTokens}`);
  return l;
}

/** The loss kernel's scalars; `hasReference` says whether this batch carries refLogp. */
export function pgHyperOf(c: RlCoreConfig, hasReference: boolean): PgHyper {
  if (c.beta > 0 && !hasReference) throw new ConfigError(`beta = ${c.beta} needs reference log-probs in the batch; compute refLogp or set beta to 0`);
  return {
    epsLow: c.clipLow,
    epsHigh: c.clipHigh,
    dualClipC: c.dualClipC,
    klType: hasReference ? c.klType : null,
    beta: c.beta,
    klClamp: c.klClamp,
    entCoef: c.entCoef,
    ratioLevel: c.ratioLevel,
  };
}
