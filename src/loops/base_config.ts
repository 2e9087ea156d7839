// The fields every loop has (seed, steps, the optimiser, the held-out evaluation, reporting and
// checkpoints) and the RL core under `rl`; a loop's config adds its own fields to these. One
// validator for all: unknown keys are refused with the closest known name, cross-field rules
// say what to change, and the result is frozen.
import { showValue } from '../util/show';
import { count, isPlainObject, num, validateFields, type Field, type FieldSpec, type FieldSpecs } from '../config/fields';
import { ConfigError } from '../util/errors';
import { RL_CORE_PRESETS, validateRlConfig, resolveRlConfig, type RlCoreConfig, type RlCorePresetName } from '../rl/config';
import { listSets } from '../world/index';

export interface BaseLoopConfig {
  seed: number;
  steps: number;
  tokenBudget: number;
  lr: number;
  weightDecay: number;
  evalSet: string;
  evalEvery: number;
  evalProblems: number;
  evalN: number;
  samplesPerStep: number;
  checkpointEvery: number;
  rl: RlCoreConfig;
}

/** AdamW moves each weight by about lr per step: at 1 or more a step outweighs the weights themselves. */
export const MAX_LR = 1;

/** A run of a million steps is days on any GPU; more is a typo (1e12 once ran without end). */
export const MAX_STEPS = 1_000_000;

export const str: Field = { kind: 'string' };

/**
 * Bounds of a loop's own counts, each one a 2-core laptop and a GPU can both live with and far
 * past the papers' values (SvS takes 256 problems a step; groups are 8 or 16; TTSP's paper allows
 * 16,384 new tokens, where the lab's policies stop at their context anyway).
 */
export const BOUNDS = {
  /** problems, documents, contexts or teacher groups drawn per step */
  perStep: 1024,
  /** answers, questions, variants or attempts per group (one advantage group) */
  group: 256,
  /** tokens of a response or of a length scale */
  tokens: 16_384,
  /** problems of a data set used */
  setProblems: 100_000,
} as const;

/** A data set's field: the name of a set of the world (the launcher offers the training or the held-out sets). */
export const dataSetField = (holds: 'train-set' | 'eval-set'): Field => ({ kind: 'string', holds });

/** Nucleus sampling, the same in every loop. */
export const TOP_P: FieldSpec<number> = { default: 1, type: num(0, { minExclusive: true, max: 1 }), paper: '1', help: 'nucleus sampling mass during rollouts (1 = off)' };

export const BASE_FIELDS: FieldSpecs<Omit<BaseLoopConfig, 'rl'>> = {
  seed: { default: 0, type: num(0, { integer: true, max: 2 ** 32, maxExclusive: true }), paper: '—', help: 'seed of problem order, sampling and evaluation (an integer below 2^32)' },
  steps: { default: 50, type: count(1, MAX_STEPS), paper: '—', help: 'RL steps (one rollout and update each)' },
  tokenBudget: {
    default: 0, type: count(0, 1e12), paper: '—',
    help: 'stop once the run has generated this many tokens (its last step then evaluates and saves as the last of `steps` would); 0 = off. Runs of different loops compared at equal cost: give the control the other run\'s generated tokens',
  },
  lr: { default: 1e-4, type: num(0, { minExclusive: true, max: MAX_LR, maxExclusive: true }), paper: '1e-6 (7B models)', help: 'AdamW learning rate, below 1 (AdamW moves each weight by about lr a step); a 100k-parameter policy needs far more than the papers\' 7B models' },
  weightDecay: { default: 0, type: num(0), paper: '0', help: 'AdamW decoupled weight decay' },
  evalSet: { default: 'eval-mixed', type: dataSetField('eval-set'), paper: '—', help: 'held-out set for pass@k' },
  evalEvery: { default: 10, type: count(0, MAX_STEPS), paper: '—', help: 'steps between evaluations (0 = only at the start and the end)' },
  evalProblems: { default: 50, type: count(1, BOUNDS.setProblems), paper: '—', help: 'problems of the evaluation set used' },
  evalN: { default: 16, type: count(1, 4096), paper: '—', help: 'samples per evaluation problem (pass@k for k up to n)' },
  samplesPerStep: { default: 4, type: count(0, 1000), paper: '—', help: 'sampled responses reported per step for the samples panel' },
  checkpointEvery: { default: 5, type: count(0, MAX_STEPS), paper: '—', help: 'steps between checkpoints a run can resume from after a reload or a lost GPU (0 = only at the end)' },
};

type BaseFields = Omit<BaseLoopConfig, 'rl'>;

/**
 * A loop's fields, the shared ones declared once here: seed, steps and tokenBudget first, then the
 * loop's own, lr and weightDecay, the own fields named in `afterLr` (shown with the optimiser), and
 * the evaluation, samples and checkpoint fields last (the launcher's order). `base` changes a
 * shared field where a loop needs another default or help (TTSP's adapters take a larger lr).
 */
export function loopFields<O extends object>(
  own: FieldSpecs<O>,
  opts: { afterLr?: readonly (keyof O & string)[]; base?: Partial<{ [K in keyof BaseFields]: Partial<FieldSpec<BaseFields[K]>> }> } = {},
): FieldSpecs<O & BaseFields> {
  const changed = (opts.base ?? {}) as Record<string, object | undefined>;
  const b = Object.fromEntries(Object.entries(BASE_FIELDS).map(([k, f]) => [k, changed[k] ? { ...f, ...changed[k] } : f])) as unknown as FieldSpecs<BaseFields>;
  const later = new Set<string>(opts.afterLr ?? []);
  const first = Object.fromEntries(Object.entries(own).filter(([k]) => !later.has(k)));
  const second = Object.fromEntries((opts.afterLr ?? []).map((k) => [k, own[k]]));
  return {
    seed: b.seed, steps: b.steps, tokenBudget: b.tokenBudget,
    ...first,
    lr: b.lr, weightDecay: b.weightDecay,
    ...second,
    evalSet: b.evalSet, evalEvery: b.evalEvery, evalProblems: b.evalProblems, evalN: b.evalN,
    samplesPerStep: b.samplesPerStep, checkpointEvery: b.checkpointEvery,
  } as FieldSpecs<O & BaseFields>;
}

/** A data-set field's value names a set of the world (see `rlvr-lab sets`). */
export function checkSet(where: string, key: string, name: string): void {
  if (!listSets().some((s) => s.name === name)) throw new ConfigError(`${where}.${key} = ${showValue(name)}: unknown data set; known: ${listSets().map((s) => s.name).join(', ')}`);
}

/** A count of a set's problems must not exceed the set: asking for more would quietly use fewer. */
export function checkSetSize(where: string, key: string, n: number, set: string): void {
  const size = listSets().find((s) => s.name === set)?.size;
  if (size !== undefined && n > size) throw new ConfigError(`${where}.${key} = ${n}: the set ${set} holds ${size} problems; use at most ${size}`);
}

/**
 * Validates a loop's config: its fields (shared and own) over their defaults, then `rl` over
 * the loop's default RL preset, then the shared cross-field rules and the loop's own `check`.
 */
export function validateLoopConfig<C extends BaseLoopConfig>(
  obj: unknown, where: string, fields: FieldSpecs<Omit<C, 'rl'>>, defaults: Omit<C, 'rl'>, rlPreset: RlCorePresetName,
  check: (c: C, where: string) => void = () => undefined, rlUnused: readonly (keyof RlCoreConfig)[] = [],
): C {
  if (!isPlainObject(obj)) throw new ConfigError(`${where}: expected an object`);
  const { rl, ...rest } = obj;
  const base = validateFields(rest, fields, where, defaults);
  const rlBase = resolveRlConfig(rlPreset);
  const rlc = validateRlConfig(rl ?? {}, `${where}.rl`, rlBase);
  // a field the loop does not use must not look as if it did something
  for (const k of rlUnused) {
    if (!Object.is(rlc[k], rlBase[k])) throw new ConfigError(`${where}.rl.${k} = ${showValue(rlc[k])}: the loop does not use this setting; leave it at ${showValue(rlBase[k])}`);
  }
  const c = { ...base, rl: rlc } as unknown as C;
  checkSet(where, 'evalSet', c.evalSet);
  checkSetSize(where, 'evalProblems', c.evalProblems, c.evalSet);
  check(c, where);
  return Object.freeze(c);
}

/** The RL preset names a loop offers, checked against the RL core's (a typo in a spec fails at load). */
export function rlPresetList(names: readonly RlCorePresetName[]): readonly RlCorePresetName[] {
  for (const n of names) if (!Object.hasOwn(RL_CORE_PRESETS, n)) throw new Error(`loop spec: unknown RL preset ${n}`);
  return names;
}
