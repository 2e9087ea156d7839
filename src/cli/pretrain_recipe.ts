// The pretraining recipe's bounds, one set for the flags and for a saved run's trainer_state.json
// (hand-edited or damaged): every value is checked before the GPU starts, so a recipe of `{}` or
// of `steps: -5, lr: "x"` is refused in one line instead of failing inside a kernel or training
// nothing and exiting 0.
import { ROLES } from '../world/index';
import type { PretrainConfig } from '../pretrain/run';
import { showValue } from '../util/show';

/** A laptop's GPU holds 1,024 rows of 128 tokens through the backward pass; more fails in a kernel. */
export const MAX_PRETRAIN_BATCH = 1024;
/** A million steps is days on any GPU; more is a typo. */
export const MAX_PRETRAIN_STEPS = 1_000_000;

type Check = (v: unknown) => string | null;
const int = (lo: number, hi: number): Check => (v) => (typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi ? null : `an integer from ${lo} to ${hi}`);
const real = (lo: number, hi: number, loOpen = false, hiOpen = false): Check => (v) =>
  typeof v === 'number' && Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi) ? null : `a number ${loOpen ? '>' : '≥'} ${lo} and ${hiOpen ? '<' : '≤'} ${hi}`;
const bool: Check = (v) => (typeof v === 'boolean' ? null : 'true or false');
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Why `v` is not the recipe's, naming the field; null when it is. */
export function recipeProblem(v: unknown, nPositions: number): string | null {
  if (!isObject(v)) return 'the recipe is not an object';
  const checks: Record<keyof PretrainConfig, Check> = {
    seed: int(0, 2 ** 32 - 1),
    steps: int(1, MAX_PRETRAIN_STEPS),
    batchSize: int(1, MAX_PRETRAIN_BATCH),
    seqLen: int(2, nPositions),
    lr: real(0, 1, true, true),
    warmup: int(0, MAX_PRETRAIN_STEPS),
    weightDecay: real(0, 1),
    evalEvery: int(1, MAX_PRETRAIN_STEPS),
    patience: int(0, MAX_PRETRAIN_STEPS),
    evalBatches: int(1, 1000),
    mix: (m) => {
      if (!isObject(m) || ROLES.some((r) => real(0, 1e6)(m[r]) !== null)) return `an object of ${ROLES.join(', ')} weights, each a finite number ≥ 0`;
      return ROLES.reduce((a, r) => a + (m[r] as number), 0) > 0 ? null : 'role weights with a positive sum';
    },
    curriculum: (c) => (isObject(c) && int(1, 16)(c.finalMaxOps) === null && real(0, 1)(c.rampFraction) === null ? null : 'an object {finalMaxOps: 1 to 16, rampFraction: 0 to 1}'),
    pack: bool,
    promptWeight: real(0, 1),
  };
  for (const [key, check] of Object.entries(checks)) {
    const why = check(v[key]);
    if (why) return `pretrain.${key} = ${showValue(v[key])}: must be ${why}`;
  }
  const unknown = Object.keys(v).find((k) => !(k in checks));
  return unknown === undefined ? null : `pretrain has an unknown key ${showValue(unknown)}`;
}
