// The run launcher's model, free of React: which loop, which base policy, which RL preset, and
// the knobs the user changed. Configs are layered (Piston style): field defaults, then the RL
// preset (a partial config), then the user's overrides; only overrides are stored, so the URL
// and run labels carry just what differs. Values stay raw (a typed "abc" is kept) so that the
// loop's own validator reports what is wrong, in its words.
import { checkField, type Field, type FieldSpec } from '../config/fields';
import { ConfigError } from '../model/config';
import { GRPO_DEFAULTS, GRPO_FIELDS, validateGrpoConfig, type GrpoConfig } from '../loops/grpo_config';
import type { LoopName } from '../lab/protocol';
import { DEFAULT_RL_CORE, RL_CORE_FIELDS, RL_CORE_PRESETS, type RlCoreConfig, type RlCorePresetName } from '../rl/config';

export interface LoopChoice {
  name: string;
  title: string;
  available: boolean;
}

/** The six loops of LOOPS.md; only those the worker can run are selectable. */
export const LOOP_CHOICES: readonly LoopChoice[] = [
  { name: 'grpo', title: 'GRPO: the vanilla RLVR control', available: true },
  { name: 'svs', title: 'SvS: self-play with variational problem synthesis', available: false },
  { name: 'spice', title: 'SPICE: self-play in corpus environments', available: false },
  { name: 'opensir', title: 'OpenSIR: open-ended self-improving reasoner', available: false },
  { name: 'ttsp', title: 'TTSP: test-time self-play', available: false },
  { name: 'datpo', title: 'DATPO: difficulty-adaptive tree policy optimisation', available: false },
];

export type Section = 'grpo' | 'rl';
export type GrpoKey = keyof typeof GRPO_FIELDS;
export type RlKey = keyof RlCoreConfig;
export const GRPO_KEYS = Object.keys(GRPO_FIELDS) as GrpoKey[];
export const RL_KEYS = Object.keys(RL_CORE_FIELDS) as RlKey[];
export const PRESET_NAMES = Object.keys(RL_CORE_PRESETS) as RlCorePresetName[];

export interface LauncherState {
  loop: string;
  /** null: the catalog's default policy */
  policy: string | null;
  preset: RlCorePresetName;
  /** overrides of the loop's fields (raw values) */
  grpo: Readonly<Record<string, unknown>>;
  /** overrides of the RL core on top of the preset (raw values) */
  rl: Readonly<Record<string, unknown>>;
}

export const DEFAULT_LOOP = 'grpo';
export const DEFAULT_PRESET: RlCorePresetName = 'grpo';
export const DEFAULT_LAUNCHER: LauncherState = Object.freeze({ loop: DEFAULT_LOOP, policy: null, preset: DEFAULT_PRESET, grpo: {}, rl: {} });

export function fieldSpec(section: Section, key: string): FieldSpec<unknown> {
  const spec = section === 'grpo' ? (GRPO_FIELDS as Record<string, FieldSpec<unknown>>)[key] : (RL_CORE_FIELDS as Record<string, FieldSpec<unknown>>)[key];
  if (!spec) throw new Error(`launcher: no ${section} field "${key}"`);
  return spec;
}

/** The RL core after its preset: what the form shows for fields the user did not touch. */
export function presetLayer(preset: RlCorePresetName): RlCoreConfig {
  return { ...DEFAULT_RL_CORE, ...RL_CORE_PRESETS[preset] } as RlCoreConfig;
}

/** The value under the user's override: the field default, or the preset's value. */
export function baseValue(l: LauncherState, section: Section, key: string): unknown {
  return section === 'grpo' ? (GRPO_DEFAULTS as unknown as Record<string, unknown>)[key] : (presetLayer(l.preset) as unknown as Record<string, unknown>)[key];
}

export function effectiveValue(l: LauncherState, section: Section, key: string): unknown {
  const overrides = l[section];
  return Object.hasOwn(overrides, key) ? overrides[key] : baseValue(l, section, key);
}

/** Sets a field; a value equal to the layer below removes the override. */
export function setField(l: LauncherState, section: Section, key: string, value: unknown): LauncherState {
  fieldSpec(section, key);
  const rest = { ...l[section] };
  delete rest[key];
  const next = Object.is(value, baseValue(l, section, key)) ? rest : { ...rest, [key]: value };
  return { ...l, [section]: next };
}

/** Switches preset; overrides that the new preset already sets to the same value are dropped. */
export function setPreset(l: LauncherState, preset: RlCorePresetName): LauncherState {
  const layer = presetLayer(preset) as unknown as Record<string, unknown>;
  const rl = Object.fromEntries(Object.entries(l.rl).filter(([k, v]) => !Object.is(layer[k], v)));
  return { ...l, preset, rl };
}

/** The partial config the loop's validator receives (preset and overrides layered). */
export function partialConfig(l: LauncherState): Record<string, unknown> {
  return { ...l.grpo, rl: { ...RL_CORE_PRESETS[l.preset], ...l.rl } };
}

/** Text typed into a field → the raw value stored (the validator judges it). */
export function parseInput(f: Field, text: string): unknown {
  const t = text.trim();
  if (f.kind === 'number') {
    if (f.nullable && (t === '' || t === 'null')) return null;
    if (t === '') return '';
    const n = Number(t);
    return Number.isNaN(n) ? text : n;
  }
  if (f.kind === 'boolean') return t === 'true' ? true : t === 'false' ? false : text;
  return text;
}

/** A stored value → text for an input or a URL (null is "null"). */
export function formatValue(v: unknown): string {
  if (v === null) return 'null';
  return String(v);
}

/** The field's own problem, or null (checked alone; cross-field rules are in resolveLauncher). */
export function fieldError(l: LauncherState, section: Section, key: string): string | null {
  const fields = (section === 'grpo' ? GRPO_FIELDS : RL_CORE_FIELDS) as Record<string, FieldSpec<unknown>>;
  try {
    checkField(fields, section, key, effectiveValue(l, section, key));
    return null;
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
}

export type Resolved =
  | { ok: true; loop: LoopName; config: GrpoConfig; policy: string }
  | { ok: false; message: string; /** `loop`, `policy`, a loop field or `rl.<field>` */ field: string | null };

const FIELD_OF_MESSAGE = /^grpo\.((?:rl\.)?[A-Za-z]+) = /;

/** The complete, validated run set-up, or the first problem with the field it concerns. */
export function resolveLauncher(l: LauncherState, catalog: { names: readonly string[]; defaultPolicy: string | null } | null): Resolved {
  const loop = LOOP_CHOICES.find((c) => c.name === l.loop);
  if (!loop) return { ok: false, field: 'loop', message: `unknown loop "${l.loop}"; loops: ${LOOP_CHOICES.map((c) => c.name).join(', ')}` };
  if (!loop.available) return { ok: false, field: 'loop', message: `the ${loop.name} loop is coming; only grpo runs for now` };
  const policy = l.policy ?? catalog?.defaultPolicy ?? null;
  if (catalog === null) return { ok: false, field: 'policy', message: 'the list of base policies has not loaded' };
  if (policy === null) return { ok: false, field: 'policy', message: 'no base policy exists yet (public/models/index.json lists none)' };
  if (!catalog.names.includes(policy)) return { ok: false, field: 'policy', message: `unknown base policy "${policy}"; available: ${catalog.names.join(', ')}` };
  try {
    return { ok: true, loop: 'grpo', config: validateGrpoConfig(partialConfig(l), 'grpo'), policy };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { ok: false, message: e.message, field: FIELD_OF_MESSAGE.exec(e.message)?.[1] ?? null };
  }
}

function flatten(c: GrpoConfig): Record<string, unknown> {
  const { rl, ...rest } = c;
  return { ...rest, ...Object.fromEntries(Object.entries(rl).map(([k, v]) => [`rl.${k}`, v])) };
}

/** "steps 20, rl.clipHigh 0.2": the fields of `c` that differ from `base` (Piston's run labels). */
export function configDiff(c: GrpoConfig, base: GrpoConfig): string {
  const a = flatten(c);
  const b = flatten(base);
  const parts = Object.keys(a)
    .filter((k) => !Object.is(a[k], b[k]))
    .map((k) => `${k} ${formatValue(a[k])}`);
  return parts.join(', ');
}

/** The defaults as a resolved config (what the first run is labelled against). */
export function defaultGrpoConfig(): GrpoConfig {
  return validateGrpoConfig({}, 'grpo');
}
