// Typed configuration fields shared by every config object of the lab (the RL core, each loop):
// a default, help text, the papers' value, and a type; one validator that rejects unknown keys
// with the closest known name and says what to change.
import { ConfigError, didYouMean } from '../util/errors';
import { showValue } from '../util/show';

/** The largest float32: the GPU computes in float32, so a number beyond it cannot reach a kernel. */
export const F32_MAX = 3.4028234663852886e38;

/**
 * What a string field's value names, which picks its widget in the launcher (by declaration, not
 * by the field's name): the text of a corpus (or `generated`), TTSP's target problem, the name
 * of a training set or of a held-out set.
 */
export type StringKind = 'corpus' | 'target' | 'train-set' | 'eval-set';

/**
 * The value of a `corpus` field that names the lab's built-in generated corpus (any other value is
 * a corpus file's text): the loop that reads it, the launcher's widget and the file checks share it.
 */
export const GENERATED_CORPUS = 'generated';

/**
 * A number field's bounds are inclusive (`min ≤ v ≤ max`) unless declared exclusive
 * (`minExclusive`, `maxExclusive`), and messages say which ("must be ≤ 1", "must be < 1").
 */
export type Field =
  | { kind: 'enum'; choices: readonly string[] }
  | { kind: 'number'; min: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean; integer?: boolean; nullable?: boolean }
  | { kind: 'boolean' }
  | { kind: 'string'; holds?: StringKind };

export interface FieldSpec<V> {
  readonly default: V;
  /** what the field does, for forms and error messages */
  readonly help: string;
  /** the value in the papers, shown beside the field */
  readonly paper: string;
  readonly type: Field;
}

export type FieldSpecs<C> = { readonly [K in keyof C]: FieldSpec<C[K]> };

/** The bound of an integer field that declares none (every loop's own count declares its own; a test checks). */
export const MAX_COUNT = 1_000_000;

/**
 * A count: an integer from `min` to `max`, both inclusive. The bound is one a 2-core laptop and
 * a GPU can both live with (a count of 1e12 is accepted by "an integer ≥ 1" and then never ends).
 */
export const count = (min: number, max: number): Field => ({ kind: 'number', min, integer: true, max });

/** A probability or rate: 0 ≤ v ≤ 1. */
export const RATE: Field = { kind: 'number', min: 0, max: 1 };

export const num = (min: number, extra: Partial<Extract<Field, { kind: 'number' }>> = {}): Field => ({ kind: 'number', min, ...extra });

/** Names for a message, as many as fit about 140 characters (a loop has 30 fields: the error stays one short line). */
export function listNames(names: readonly string[], room = 140): string {
  let out = '';
  for (const [i, n] of names.entries()) {
    const next = out ? `${out}, ${n}` : n;
    if (next.length > room) return `${out}, … (${names.length} in all; ${names.length - i} more)`;
    out = next;
  }
  return out;
}

export function isPlainObject(obj: unknown): obj is Record<string, unknown> {
  return typeof obj === 'object' && obj !== null && !Array.isArray(obj);
}

/** A field's help for an error message: its first clause, so that the message stays one short line. */
const brief = (help: string): string => {
  const first = help.split(/[.;:] /)[0];
  return first.length <= 100 ? first : `${first.slice(0, 100)}…`;
};

export function checkField<C>(fields: FieldSpecs<C>, where: string, key: keyof C, v: unknown): void {
  const spec = { ...fields[key], help: brief(fields[key].help) };
  const f = spec.type;
  const at = `${where}.${String(key)} = ${showValue(v)}`;
  if (f.kind === 'boolean') {
    if (typeof v !== 'boolean') throw new ConfigError(`${at}: must be true or false (${spec.help})`);
    return;
  }
  if (f.kind === 'string') {
    if (typeof v !== 'string' || v === '') throw new ConfigError(`${at}: must be a non-empty string (${spec.help})`);
    return;
  }
  if (f.kind === 'enum') {
    if (typeof v !== 'string' || !f.choices.includes(v)) {
      const hint = typeof v === 'string' ? didYouMean(v, f.choices) : '';
      throw new ConfigError(`${at}: must be one of ${f.choices.join(', ')}${hint}`);
    }
    return;
  }
  if (v === null && f.nullable) return;
  const orNull = f.nullable ? ' or null' : '';
  if (typeof v !== 'number' || Number.isNaN(v) || (f.integer && !Number.isInteger(v))) {
    throw new ConfigError(`${at}: must be ${f.integer ? 'an integer' : 'a number'}${orNull}`);
  }
  const tooLow = f.minExclusive ? v <= f.min : v < f.min;
  if (tooLow) throw new ConfigError(`${at}: must be ${f.minExclusive ? '>' : '≥'} ${f.min}${orNull}`);
  // a count without a bound of its own still gets one: no count of this lab needs more
  const max = f.max ?? (f.integer ? MAX_COUNT : undefined);
  const tooHigh = max !== undefined && (f.maxExclusive ? v >= max : v > max);
  if (tooHigh) throw new ConfigError(`${at}: must be ${f.maxExclusive ? '<' : '≤'} ${max}${orNull}`);
  if (!Number.isFinite(v)) throw new ConfigError(`${at}: must be finite`);
  // what the kernels see is the float32 nearest v: it must exist, and keep the bounds
  const f32 = Math.fround(v);
  if (!Number.isFinite(f32)) throw new ConfigError(`${at}: float32, in which the GPU computes, cannot hold it (its largest value is ${F32_MAX.toPrecision(3)})`);
  if (f.minExclusive ? f32 <= f.min : f32 < f.min) throw new ConfigError(`${at}: float32, in which the GPU computes, rounds it to ${f32}; it must be ${f.minExclusive ? '>' : '≥'} ${f.min}`);
  // integers (seeds, counts) reach the GPU as integers, not as float32: 2^32 − 1 is a seed
  if (!f.integer && max !== undefined && (f.maxExclusive ? f32 >= max : f32 > max)) throw new ConfigError(`${at}: float32, in which the GPU computes, rounds it to ${f32}; it must be ${f.maxExclusive ? '<' : '≤'} ${max}`);
}

export function defaultsOf<C>(fields: FieldSpecs<C>): C {
  return Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, (s as FieldSpec<unknown>).default])) as C;
}

/** Checks an untrusted partial config over `base`; returns a frozen, complete config. */
export function validateFields<C>(obj: unknown, fields: FieldSpecs<C>, where: string, base: C): C {
  const keys = Object.keys(fields) as (keyof C & string)[];
  if (!isPlainObject(obj)) throw new ConfigError(`${where}: expected an object of settings (${listNames(keys)})`);
  for (const key of Object.keys(obj)) {
    if (!(keys as string[]).includes(key)) {
      throw new ConfigError(`${where}: unknown key ${showValue(key)}${didYouMean(key, keys)}; allowed keys: ${listNames(keys)}`);
    }
  }
  const merged = { ...base, ...obj } as C;
  for (const key of keys) checkField(fields, where, key, merged[key]);
  return Object.freeze(merged);
}
