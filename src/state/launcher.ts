// The run launcher's model, free of React: which loop (from the registry), which base policy,
// which set-up and RL preset, and the knobs the user changed. Configs are layered (Piston
// style): the loop's field defaults, then its set-up (a partial config), then the RL preset,
// then the user's overrides; only overrides are stored, so the URL and run labels carry just
// what differs. Values stay raw (a typed "abc" is kept) so that the
// loop's own validator reports what is wrong, in its words.
import { checkField, defaultsOf, type Field, type FieldSpec } from '../config/fields';
import { ConfigError } from '../util/errors';
import { COMING_LOOPS, LOOPS, isLoopName, loopNamed } from '../loops/registry';
import type { BaseLoopConfig } from '../loops/base_config';
import type { LoopSpec } from '../loops/spec';
import { DEFAULT_RL_CORE, RL_CORE_FIELDS, RL_CORE_PRESETS, type RlCoreConfig, type RlCorePresetName } from '../rl/config';

export interface LoopChoice {
  name: string;
  title: string;
  available: boolean;
}

/** The registry's loops, then the papers' loops still to come (listed, not selectable). */
export const LOOP_CHOICES: readonly LoopChoice[] = [
  ...LOOPS.map((l) => ({ name: l.spec.name, title: l.spec.title, available: true })),
  ...COMING_LOOPS.map((l) => ({ ...l, available: false })),
];

/** A loop's own spelling (GRPO, SvS, OpenSIR): its registry title up to the colon; an unknown name as it is. */
export function loopLabel(name: string): string {
  return isLoopName(name) ? loopNamed(name).spec.title.split(':')[0].trim() : name;
}

/** `loop`: the selected loop's own and shared fields; `rl`: the RL core under `rl`. */
export type Section = 'loop' | 'rl';
export type RlKey = keyof RlCoreConfig;
export const RL_KEYS = Object.keys(RL_CORE_FIELDS) as RlKey[];

export interface LauncherState {
  loop: string;
  /** null: the catalog's default policy */
  policy: string | null;
  /** the loop's named set-up (its `paper` values, its `lab` size, …) under the user's overrides */
  setup: string;
  /** the RL-core preset (one the loop offers) */
  preset: RlCorePresetName;
  /** overrides of the loop's fields (raw values) */
  fields: Readonly<Record<string, unknown>>;
  /** overrides of the RL core on top of the preset (raw values) */
  rl: Readonly<Record<string, unknown>>;
}

export const DEFAULT_LOOP = LOOPS[0].spec.name;
export const DEFAULT_SETUP = 'paper';
export const DEFAULT_PRESET: RlCorePresetName = LOOPS[0].spec.rlPresets[0];
export const DEFAULT_LAUNCHER: LauncherState = Object.freeze({ loop: DEFAULT_LOOP, policy: null, setup: DEFAULT_SETUP, preset: DEFAULT_PRESET, fields: {}, rl: {} });

/** The selected loop's spec (the default loop's while an unknown name is selected: its error is shown). */
export function loopSpec(l: Pick<LauncherState, 'loop'>): LoopSpec<BaseLoopConfig> {
  return (isLoopName(l.loop) ? loopNamed(l.loop) : LOOPS[0]).spec;
}

/** The names of the loop's fields, in its order. */
export function loopKeys(l: Pick<LauncherState, 'loop'>): string[] {
  return Object.keys(loopSpec(l).fields);
}

/** The RL-core fields the loop uses (the form shows these), in the core's order. */
export function rlKeys(l: Pick<LauncherState, 'loop'>): RlKey[] {
  const unused = loopSpec(l).rlUnused ?? [];
  return RL_KEYS.filter((k) => !unused.includes(k));
}

/** The RL presets the loop offers; its default first. */
export function presetNames(l: Pick<LauncherState, 'loop'>): readonly RlCorePresetName[] {
  return loopSpec(l).rlPresets;
}

export function setupNames(l: Pick<LauncherState, 'loop'>): string[] {
  return Object.keys(loopSpec(l).presets);
}

export function fieldSpec(l: Pick<LauncherState, 'loop'>, section: Section, key: string): FieldSpec<unknown> {
  const fields = section === 'loop' ? (loopSpec(l).fields as Record<string, FieldSpec<unknown>>) : (RL_CORE_FIELDS as Record<string, FieldSpec<unknown>>);
  const spec = fields[key];
  if (!spec) throw new Error(`launcher: no ${section === 'loop' ? `${l.loop} ` : ''}${section} field "${key}"`);
  return spec;
}

/** The loop's fields after its set-up: what the form shows for fields the user did not touch. */
export function setupLayer(l: Pick<LauncherState, 'loop' | 'setup'>): Record<string, unknown> {
  const spec = loopSpec(l);
  return { ...defaultsOf(spec.fields as Record<string, FieldSpec<unknown>>), ...(spec.presets[l.setup]?.config ?? {}) };
}

/** The RL core after its preset. */
export function presetLayer(preset: RlCorePresetName): RlCoreConfig {
  return { ...DEFAULT_RL_CORE, ...RL_CORE_PRESETS[preset] } as RlCoreConfig;
}

/** The value under the user's override: the set-up's or the preset's. */
export function baseValue(l: LauncherState, section: Section, key: string): unknown {
  return section === 'loop' ? setupLayer(l)[key] : (presetLayer(l.preset) as unknown as Record<string, unknown>)[key];
}

const overridesOf = (l: LauncherState, section: Section) => (section === 'loop' ? l.fields : l.rl);

export function effectiveValue(l: LauncherState, section: Section, key: string): unknown {
  const overrides = overridesOf(l, section);
  return Object.hasOwn(overrides, key) ? overrides[key] : baseValue(l, section, key);
}

/** Sets a field; a value equal to the layer below removes the override. */
export function setField(l: LauncherState, section: Section, key: string, value: unknown): LauncherState {
  fieldSpec(l, section, key);
  const rest = { ...overridesOf(l, section) };
  delete rest[key];
  const next = Object.is(value, baseValue(l, section, key)) ? rest : { ...rest, [key]: value };
  return section === 'loop' ? { ...l, fields: next } : { ...l, rl: next };
}

/** Switches preset; overrides that the new preset already sets to the same value are dropped. */
export function setPreset(l: LauncherState, preset: RlCorePresetName): LauncherState {
  const layer = presetLayer(preset) as unknown as Record<string, unknown>;
  const rl = Object.fromEntries(Object.entries(l.rl).filter(([k, v]) => !Object.is(layer[k], v)));
  return { ...l, preset, rl };
}

/** Switches the loop's set-up; overrides equal to the new set-up's values are dropped. */
export function setSetup(l: LauncherState, setup: string): LauncherState {
  const next = { ...l, setup };
  const layer = setupLayer(next);
  return { ...next, fields: Object.fromEntries(Object.entries(l.fields).filter(([k, v]) => !Object.is(layer[k], v))) };
}

/**
 * Switches the loop: the chosen set-up where the new loop has one of that name (a teacher who
 * picked `lab` and then another loop keeps a lab-sized run), else its paper set-up; its default
 * RL preset (the paper's optimisation); and only the overrides of fields it has (seed, steps,
 * lr, … and RL overrides carry over).
 */
export function setLoop(l: LauncherState, loop: string): LauncherState {
  if (!isLoopName(loop)) return { ...l, loop };
  const spec = loopNamed(loop).spec;
  const preset = spec.rlPresets[0];
  const fields = Object.fromEntries(Object.entries(l.fields).filter(([k]) => Object.hasOwn(spec.fields, k)));
  const setup = Object.hasOwn(spec.presets, l.setup) ? l.setup : DEFAULT_SETUP;
  return setPreset(setSetup({ ...l, loop, setup, fields }, setup), preset);
}

/** The partial config the loop's validator receives (set-up, preset and overrides layered). */
export function partialConfig(l: LauncherState): Record<string, unknown> {
  // the RL preset's whole layer, not its partial: the loop's validator lays `rl` over the loop's
  // own default preset, which would otherwise keep values the chosen preset leaves at defaults
  return { ...(loopSpec(l).presets[l.setup]?.config ?? {}), ...l.fields, rl: { ...presetLayer(l.preset), ...l.rl } };
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
  const fields = (section === 'loop' ? loopSpec(l).fields : RL_CORE_FIELDS) as Record<string, FieldSpec<unknown>>;
  try {
    checkField(fields, section, key, effectiveValue(l, section, key));
    return null;
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
}

export type Resolved =
  | { ok: true; loop: string; config: BaseLoopConfig; policy: string }
  | { ok: false; message: string; /** `loop`, `policy`, a loop field or `rl.<field>` */ field: string | null };

/** The field a validator's message is about: "<loop>.steps = …" or "<loop>.rl.clipLow = …". */
const FIELD_OF_MESSAGE = /^[a-z]+\.((?:rl\.)?[A-Za-z]+) = /;

/** The complete, validated run set-up, or the first problem with the field it concerns. */
export function resolveLauncher(l: LauncherState, catalog: { names: readonly string[]; defaultPolicy: string | null } | null): Resolved {
  const loop = LOOP_CHOICES.find((c) => c.name === l.loop);
  if (!loop) return { ok: false, field: 'loop', message: `unknown loop "${l.loop}"; loops: ${LOOP_CHOICES.map((c) => c.name).join(', ')}` };
  if (!loop.available) return { ok: false, field: 'loop', message: `the ${loop.name} loop is coming; these run now: ${LOOPS.map((d) => d.spec.name).join(', ')}` };
  const spec = loopSpec(l);
  if (!spec.rlPresets.includes(l.preset)) return { ok: false, field: 'preset', message: `the ${spec.name} loop does not take the ${l.preset} RL preset; its presets: ${spec.rlPresets.join(', ')}` };
  if (!Object.hasOwn(spec.presets, l.setup)) return { ok: false, field: 'setup', message: `the ${spec.name} loop has no set-up "${l.setup}"; set-ups: ${Object.keys(spec.presets).join(', ')}` };
  const policy = l.policy ?? catalog?.defaultPolicy ?? null;
  if (catalog === null) return { ok: false, field: 'policy', message: 'the list of base policies has not loaded' };
  if (policy === null) return { ok: false, field: 'policy', message: 'no base policy exists yet (public/models/index.json lists none)' };
  if (!catalog.names.includes(policy)) return { ok: false, field: 'policy', message: `unknown base policy "${policy}"; available: ${catalog.names.join(', ')}` };
  try {
    return { ok: true, loop: spec.name, config: spec.validate(partialConfig(l), spec.name), policy };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { ok: false, message: e.message, field: FIELD_OF_MESSAGE.exec(e.message)?.[1] ?? null };
  }
}

function flatten(c: BaseLoopConfig): Record<string, unknown> {
  const { rl, ...rest } = c;
  return { ...rest, ...Object.fromEntries(Object.entries(rl).map(([k, v]) => [`rl.${k}`, v])) };
}

/** "steps 20, rl.clipHigh 0.2": the fields of `c` that differ from `base` (Piston's run labels). */
export function configDiff(c: BaseLoopConfig, base: BaseLoopConfig): string {
  const a = flatten(c);
  const b = flatten(base);
  const parts = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => !Object.is(a[k], b[k]))
    .map((k) => `${k} ${k in a ? formatValue(a[k]) : '—'}`);
  return parts.join(', ');
}

/**
 * How a new run's set-up differs from the last run of its loop, always naming that run ("vs #4:
 * seed 2", "vs #4: same set-up"); the first run of a loop is described against the loop's
 * defaults instead, and says so.
 */
export function runDiff(c: BaseLoopConfig, previous: { index: number; config: BaseLoopConfig } | null, loop: string): string {
  if (previous) {
    const d = configDiff(c, previous.config);
    return `vs #${previous.index}: ${d === '' ? 'same set-up' : d}`;
  }
  const d = configDiff(c, defaultConfig(loop));
  return d === '' ? `the ${loopLabel(loop)} defaults` : `the ${loopLabel(loop)} defaults, but ${d}`;
}

/** A loop's defaults as a resolved config (what a loop's first run is labelled against). */
export function defaultConfig(loop: string): BaseLoopConfig {
  return loopNamed(loop).spec.validate({}, loop);
}
