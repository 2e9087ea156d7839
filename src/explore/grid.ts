// The explorer's grid, free of React: a base set-up (the launcher's), up to two knobs with a list
// of values each, a list of seeds and an optional control arm of another loop. Arms are the
// product of the knobs' values; runs are arms × seeds. Every run's resolved config goes through
// the loop's own validator (resolveLauncher) before anything starts: a bad value is refused naming
// the arm and the field, and nothing is queued.
import type { BaseLoopConfig } from '../loops/base_config';
import { isLoopName, loopNamed } from '../loops/registry';
import {
  DEFAULT_LAUNCHER, effectiveValue, fieldSpec, formatValue, loopKeys, parseInput, resolveLauncher, rlKeys, setField, setLoop, setupNames,
  type LauncherState, type Section,
} from '../state/launcher';

/** A knob of the grid: a field of the loop (`lr`) or of the RL core (`rl.clipHigh`), and its values as typed. */
export interface GridKnob {
  key: string;
  /** comma-separated values ("1e-4, 3e-5") */
  values: string;
}

/** One arm of another loop, its seeds each stopped at the generated tokens of the same seed of a chosen arm. */
export interface GridControl {
  loop: string;
  setup: string;
  /** the arm (index into the product, 0-based) whose seeds' generated tokens the control is given (tokenBudget) */
  matchArm: number;
  /** a cap on its steps: the token budget stops it first (as `ablate --match-tokens` with `--steps`) */
  steps: number;
}

/** What the form holds and the URL carries (the base set-up is the launcher's). */
export interface GridForm {
  knobs: GridKnob[];
  seeds: string;
  control: GridControl | null;
  /** runs at once; null: the adapter's default (1 on a CPU adapter) */
  concurrency: number | null;
}

export const EMPTY_FORM: GridForm = Object.freeze({ knobs: [], seeds: '1, 2', control: null, concurrency: null }) as GridForm;

export const MAX_KNOBS = 2;
/** More runs than this are refused: a grid is meant to finish on the user's GPU. */
export const MAX_GRID_RUNS = 256;
/** Fields a control run carries over from the base set-up: what makes its evaluation the same. */
const CONTROL_SHARED = ['evalSet', 'evalEvery', 'evalProblems', 'evalN', 'samplesPerStep', 'checkpointEvery'] as const;

/** An arm as planned: its label, the knob values that make it, and its resolved config (first seed's). */
export interface ArmPlan {
  id: string;
  label: string;
  knobs: Record<string, unknown>;
  loop: string;
  policy: string;
  config: BaseLoopConfig;
  control?: boolean;
  /** the arm whose seeds' generated tokens a control arm is matched to */
  matchedTo?: string;
}

/** One run of the grid: an arm at a seed, with the config it starts with. */
export interface RunPlan {
  key: string;
  armId: string;
  seed: number;
  loop: string;
  policy: string;
  config: BaseLoopConfig;
  /** a control run: it starts once this run has finished, with its generated tokens as tokenBudget */
  matchKey?: string;
}

export interface GridPlan {
  arms: ArmPlan[];
  runs: RunPlan[];
}

/** Why a grid was refused: which arm (null: the grid itself), which field, what is wrong. */
export interface GridRefusal {
  arm: string | null;
  field: string | null;
  message: string;
}

export type Expanded = ({ ok: true } & GridPlan) | ({ ok: false } & GridRefusal);

type Catalog = { names: readonly string[]; defaultPolicy: string | null } | null;

const refuse = (arm: string | null, field: string | null, message: string): Expanded => ({ ok: false, arm, field, message });

/** "1, 2, 3" → [1, 2, 3]; a non-integer or a duplicate is refused by name. */
export function parseSeeds(text: string): number[] | string {
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) return 'seeds: give at least one seed (comma-separated integers, e.g. 1, 2, 3)';
  const out: number[] = [];
  for (const p of parts) {
    const n = Number(p);
    if (!/^\d+$/.test(p) || !Number.isSafeInteger(n)) return `seeds: "${p}" is not a non-negative integer`;
    if (out.includes(n)) return `seeds: ${n} appears twice`;
    out.push(n);
  }
  return out;
}

/** `rl.clipHigh` → the RL core's clipHigh; `lr` → the loop's lr; null when neither has it. */
export function knobSection(l: Pick<LauncherState, 'loop'>, key: string): { section: Section; field: string } | null {
  if (key.startsWith('rl.')) {
    const field = key.slice(3);
    return (rlKeys(l) as string[]).includes(field) ? { section: 'rl', field } : null;
  }
  return loopKeys(l).includes(key) ? { section: 'loop', field: key } : null;
}

/** Every field a knob can vary for this loop: its own and shared fields (not the seed), then `rl.*`. */
export function knobChoices(l: Pick<LauncherState, 'loop'>): string[] {
  return [...loopKeys(l).filter((k) => k !== 'seed'), ...rlKeys(l).map((k) => `rl.${k}`)];
}

/** A knob's values, parsed as the field's type (the validator judges them later, per arm). */
export function knobValues(l: LauncherState, k: GridKnob): unknown[] | string {
  const at = knobSection(l, k.key);
  if (!at) return `knob ${k.key}: not a field of the ${l.loop} loop (its fields: ${knobChoices(l).slice(0, 12).join(', ')}, …)`;
  const parts = k.values.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) return `knob ${k.key}: give at least one value (comma-separated)`;
  const values = parts.map((p) => parseInput(fieldSpec(l, at.section, at.field).type, p));
  const seen = new Set(values.map((x) => JSON.stringify(x)));
  if (seen.size !== values.length) return `knob ${k.key}: a value appears twice`;
  return values;
}

/** A knob value as a label shows it: 1e-4, 3e-5, 0.28, shaped. */
export function knobText(v: unknown): string {
  if (typeof v !== 'number') return formatValue(v);
  const r = Number(v.toPrecision(6));
  return r !== 0 && Math.abs(r) < 1e-3 ? r.toExponential() : String(r);
}

/** "lr 3e-5 · rl.clipHigh 0.28"; a grid without knobs: its loop and set-up. */
export function armLabelOf(knobs: Readonly<Record<string, unknown>>, l: Pick<LauncherState, 'loop' | 'setup'>): string {
  const parts = Object.entries(knobs).map(([k, v]) => `${k} ${knobText(v)}`);
  return parts.length ? parts.join(' · ') : `${l.loop} · ${l.setup}`;
}

const withField = (l: LauncherState, key: string, value: unknown): LauncherState => {
  const at = knobSection(l, key);
  if (!at) throw new Error(`grid: ${key} is not a field of ${l.loop}`);
  return setField(l, at.section, at.field, value);
};

/** The first problem of one set-up, named by arm and field; or the resolved config. */
function resolveArm(l: LauncherState, catalog: Catalog, arm: string): { ok: true; config: BaseLoopConfig; policy: string; loop: string } | GridRefusal {
  const r = resolveLauncher(l, catalog);
  if (r.ok) return r;
  return { arm, field: r.field, message: `arm ${arm}: ${r.message}` };
}

/** The launcher state of the control arm: its loop and set-up, the base's policy and evaluation. */
function controlState(base: LauncherState, c: GridControl): LauncherState | string {
  if (!isLoopName(c.loop)) return `control: unknown loop "${c.loop}"`;
  let l: LauncherState = { ...setLoop({ ...DEFAULT_LAUNCHER, fields: {}, rl: {} }, c.loop), policy: base.policy };
  if (!setupNames(l).includes(c.setup)) return `control: the ${c.loop} loop has no set-up "${c.setup}" (set-ups: ${setupNames(l).join(', ')})`;
  l = { ...l, setup: c.setup };
  for (const k of CONTROL_SHARED) if (Object.hasOwn(loopNamed(c.loop).spec.fields, k)) l = setField(l, 'loop', k, effectiveValue(base, 'loop', k));
  return setField(l, 'loop', 'steps', c.steps);
}

/**
 * The grid's arms and runs, every run's config checked by its loop's validator; or the first
 * problem, naming the arm and the field. Runs are ordered seed by seed (every arm's first seed,
 * then every arm's second…), so the arms' bands fill in together while the grid runs; a control
 * run follows the run it is matched to.
 */
export function expandGrid(form: GridForm, base: LauncherState, catalog: Catalog): Expanded {
  const seeds = parseSeeds(form.seeds);
  if (typeof seeds === 'string') return refuse(null, 'seed', seeds);
  if (form.knobs.length > MAX_KNOBS) return refuse(null, null, `at most ${MAX_KNOBS} knobs (got ${form.knobs.length})`);
  const keys = form.knobs.map((k) => k.key);
  if (new Set(keys).size !== keys.length) return refuse(null, keys.find((k, i) => keys.indexOf(k) !== i) ?? null, 'the same field is a knob twice');
  if (keys.includes('seed')) return refuse(null, 'seed', 'the seed is not a knob: give the seeds in their own list');
  const lists: unknown[][] = [];
  for (const k of form.knobs) {
    const v = knobValues(base, k);
    if (typeof v === 'string') return refuse(null, k.key, v);
    lists.push(v);
  }
  const combos = lists.reduce<Record<string, unknown>[]>((acc, values, i) => acc.flatMap((c) => values.map((v) => ({ ...c, [keys[i]]: v }))), [{}]);
  const total = combos.length * seeds.length + (form.control ? seeds.length : 0);
  if (total > MAX_GRID_RUNS) return refuse(null, null, `${total} runs; a grid holds at most ${MAX_GRID_RUNS}`);
  const arms: ArmPlan[] = [];
  const perArm: RunPlan[][] = [];
  for (let a = 0; a < combos.length; a++) {
    const knobs = combos[a];
    const label = armLabelOf(knobs, base);
    const id = `arm${a + 1}`;
    const state = Object.entries(knobs).reduce((l, [k, v]) => withField(l, k, v), base);
    const runs: RunPlan[] = [];
    for (const seed of seeds) {
      const r = resolveArm(setField(state, 'loop', 'seed', seed), catalog, `${label} (seed ${seed})`);
      if (!('ok' in r)) return { ok: false, ...r };
      runs.push({ key: `${id}/${seed}`, armId: id, seed, loop: r.loop, policy: r.policy, config: r.config });
    }
    arms.push({ id, label, knobs, loop: runs[0].loop, policy: runs[0].policy, config: runs[0].config });
    perArm.push(runs);
  }
  const ordered = seeds.flatMap((_, s) => perArm.map((runs) => runs[s]));
  if (!form.control) return { ok: true, arms, runs: ordered };
  const c = form.control;
  if (!(c.matchArm >= 0 && c.matchArm < arms.length)) return refuse('control', 'matchArm', `control: matched to arm ${c.matchArm + 1}, but the grid has ${arms.length}`);
  const cs = controlState(base, c);
  if (typeof cs === 'string') return refuse('control', 'loop', cs);
  const matched = arms[c.matchArm];
  const label = `control: ${c.loop} · ${c.setup} (tokens of ${matched.label})`;
  const control: RunPlan[] = [];
  for (const seed of seeds) {
    // a budget of 1 stands in for the matched run's tokens, known once it finishes
    const r = resolveArm(setField(setField(cs, 'loop', 'seed', seed), 'loop', 'tokenBudget', 1), catalog, `${label} (seed ${seed})`);
    if (!('ok' in r)) return { ok: false, ...r };
    control.push({ key: `control/${seed}`, armId: 'control', seed, loop: r.loop, policy: r.policy, config: r.config, matchKey: `${matched.id}/${seed}` });
  }
  arms.push({ id: 'control', label, knobs: {}, loop: c.loop, policy: control[0].policy, config: control[0].config, control: true, matchedTo: matched.id });
  // each control run right after the last run of its seed
  const runs = seeds.flatMap((_, s) => [...perArm.map((r) => r[s]), control[s]]);
  return { ok: true, arms, runs };
}
