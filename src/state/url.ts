// Launcher state ⇄ URL query, so a link reproduces a set-up. Only non-default values are
// written, each under its config field's name (`?policy=tiny&seed=3&steps=20&clipHigh=0.2`);
// the loop and the RL preset under `loop` and `preset`. Parameters that are not the launcher's
// (e.g. `debug`) are left alone.
import {
  DEFAULT_LAUNCHER,
  DEFAULT_LOOP,
  DEFAULT_PRESET,
  GRPO_KEYS,
  PRESET_NAMES,
  RL_KEYS,
  fieldSpec,
  formatValue,
  parseInput,
  setField,
  type LauncherState,
  type Section,
} from './launcher';
import type { RlCorePresetName } from '../rl/config';
import { isUploadName } from './policyUpload';

/** Query parameters the page reads elsewhere; never reported as unknown. */
export const PAGE_PARAMS: readonly string[] = ['debug', 'hide', 'lock'];

const SECTION_OF = new Map<string, Section>([...GRPO_KEYS.map((k) => [k, 'grpo'] as const), ...RL_KEYS.map((k) => [k, 'rl'] as const)]);

export function launcherToQuery(l: LauncherState): URLSearchParams {
  const q = new URLSearchParams();
  if (l.loop !== DEFAULT_LOOP) q.set('loop', l.loop);
  // an uploaded policy lives in this browser only: a link cannot carry it
  if (l.policy !== null && !isUploadName(l.policy)) q.set('policy', l.policy);
  if (l.preset !== DEFAULT_PRESET) q.set('preset', l.preset);
  for (const k of GRPO_KEYS) if (Object.hasOwn(l.grpo, k)) q.set(k, formatValue(l.grpo[k]));
  for (const k of RL_KEYS) if (Object.hasOwn(l.rl, k)) q.set(k, formatValue(l.rl[k]));
  return q;
}

export interface DecodedQuery {
  launcher: LauncherState;
  /** launcher-looking problems: unknown parameters, an unknown preset */
  warnings: string[];
}

export function queryToLauncher(q: URLSearchParams): DecodedQuery {
  const warnings: string[] = [];
  let l: LauncherState = { ...DEFAULT_LAUNCHER, grpo: {}, rl: {} };
  const grpo: Record<string, unknown> = {};
  const rl: Record<string, unknown> = {};
  for (const [key, value] of q) {
    if (key === 'loop') l = { ...l, loop: value };
    else if (key === 'policy' && isUploadName(value)) warnings.push(`policy=${value}: an uploaded checkpoint lives in the browser it was uploaded to and cannot be opened from a link; using the default policy`);
    else if (key === 'policy') l = { ...l, policy: value === '' ? null : value };
    else if (key === 'preset') {
      if ((PRESET_NAMES as string[]).includes(value)) l = { ...l, preset: value as RlCorePresetName };
      else warnings.push(`preset=${value}: unknown RL preset (presets: ${PRESET_NAMES.join(', ')}); using ${DEFAULT_PRESET}`);
    } else if (SECTION_OF.has(key)) {
      const section = SECTION_OF.get(key)!;
      (section === 'grpo' ? grpo : rl)[key] = parseInput(fieldSpec(section, key).type, value);
    } else if (!PAGE_PARAMS.includes(key)) warnings.push(`${key}: not a setting of the launcher; ignored`);
  }
  // an override equal to the layer below is dropped, as the form would drop it
  for (const [k, v] of Object.entries(grpo)) l = setField(l, 'grpo', k, v);
  for (const [k, v] of Object.entries(rl)) l = setField(l, 'rl', k, v);
  return { launcher: l, warnings };
}

/** The page URL's query with the launcher's parameters replaced and the page's own kept. */
export function mergeQuery(current: URLSearchParams, l: LauncherState): string {
  const out = new URLSearchParams();
  for (const [k, v] of current) if (PAGE_PARAMS.includes(k)) out.append(k, v);
  for (const [k, v] of launcherToQuery(l)) out.append(k, v);
  const s = out.toString();
  return s ? `?${s}` : '';
}

/**
 * Lesson links: `hide=launcher,knobs` hides those parts of the page and `lock=lr,seed` fixes
 * those fields at the link's values, so a teacher can hand out a set-up. A convenience, not a
 * safeguard: whoever edits the address can lift them.
 */
export const HIDEABLE = ['launcher', 'knobs', 'selftest', 'demo', 'adapter', 'samples', 'import', 'upload'] as const;
export type Hideable = (typeof HIDEABLE)[number];

/** Fields a lesson can lock: the loop, policy and preset pickers and every launcher field. */
export const LOCKABLE: readonly string[] = ['loop', 'policy', 'preset', ...GRPO_KEYS, ...RL_KEYS];

export interface Lesson {
  hide: readonly Hideable[];
  lock: readonly string[];
}

export const NO_LESSON: Lesson = Object.freeze({ hide: [], lock: [] });

function listParam(q: URLSearchParams, key: string): string[] {
  return q.getAll(key).flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

export function queryToLesson(q: URLSearchParams): { lesson: Lesson; warnings: string[] } {
  const warnings: string[] = [];
  const hide: Hideable[] = [];
  for (const h of listParam(q, 'hide')) {
    if (!(HIDEABLE as readonly string[]).includes(h)) warnings.push(`hide=${h}: no such part of the page (parts: ${HIDEABLE.join(', ')}); ignored`);
    else if (!hide.includes(h as Hideable)) hide.push(h as Hideable);
  }
  const lock: string[] = [];
  for (const k of listParam(q, 'lock')) {
    if (!LOCKABLE.includes(k)) warnings.push(`lock=${k}: not a launcher field; ignored`);
    else if (!lock.includes(k)) lock.push(k);
  }
  return { lesson: { hide, lock }, warnings };
}
