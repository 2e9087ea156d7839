// The fields every loop has (seed, steps, the optimiser, the held-out evaluation, reporting and
// checkpoints) and the RL core under `rl`; a loop's config adds its own fields to these. One
// validator for all: unknown keys are refused with the closest known name, cross-field rules
// say what to change, and the result is frozen.
import { showValue } from '../util/show';
import { count, isPlainObject, num, validateFields, type Field, type FieldSpecs } from '../config/fields';
import { ConfigError } from '../model/config';
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

export const int = (min: number): Field => num(min, { integer: true });
export const str: Field = { kind: 'string' };

export const BASE_FIELDS: FieldSpecs<Omit<BaseLoopConfig, 'rl'>> = {
  seed: { default: 0, type: num(0, { integer: true, max: 2 ** 32 }), paper: '—', help: 'seed of problem order, sampling and evaluation (an integer below 2^32)' },
  steps: { default: 50, type: count(1, MAX_STEPS), paper: '—', help: 'RL steps (one rollout and update each)' },
  tokenBudget: {
    default: 0, type: count(0, 1e12), paper: '—',
    help: 'stop once the run has generated this many tokens (its last step then evaluates and saves as the last of `steps` would); 0 = off. Runs of different loops compared at equal cost: give the control the other run\'s generated tokens',
  },
  lr: { default: 1e-4, type: num(0, { minExclusive: true, max: MAX_LR }), paper: '1e-6 (7B models)', help: 'AdamW learning rate, below 1 (AdamW moves each weight by about lr a step); a 100k-parameter policy needs far more than the papers\' 7B models' },
  weightDecay: { default: 0, type: num(0), paper: '0', help: 'AdamW decoupled weight decay' },
  evalSet: { default: 'eval-mixed', type: str, paper: '—', help: 'held-out set for pass@k' },
  evalEvery: { default: 10, type: count(0, MAX_STEPS), paper: '—', help: 'steps between evaluations (0 = only at the start and the end)' },
  evalProblems: { default: 50, type: int(1), paper: '—', help: 'problems of the evaluation set used' },
  evalN: { default: 16, type: count(1, 4096), paper: '—', help: 'samples per evaluation problem (pass@k for k up to n)' },
  samplesPerStep: { default: 4, type: count(0, 1000), paper: '—', help: 'sampled responses reported per step for the samples panel' },
  checkpointEvery: { default: 5, type: count(0, MAX_STEPS), paper: '—', help: 'steps between checkpoints a run can resume from after a reload or a lost GPU (0 = only at the end)' },
};

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
