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

/** Query parameters the page reads elsewhere; never reported as unknown. */
export const PAGE_PARAMS: readonly string[] = ['debug'];

const SECTION_OF = new Map<string, Section>([...GRPO_KEYS.map((k) => [k, 'grpo'] as const), ...RL_KEYS.map((k) => [k, 'rl'] as const)]);

export function launcherToQuery(l: LauncherState): URLSearchParams {
  const q = new URLSearchParams();
  if (l.loop !== DEFAULT_LOOP) q.set('loop', l.loop);
  if (l.policy !== null) q.set('policy', l.policy);
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
