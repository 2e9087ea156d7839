// The shipped TTSP targets of a base policy (public/models/<base>/ttsp_targets.json, written by
// `rlvr-lab ttsp-targets`): MidHard (base mean@512 in (0.1, 0.7)) and VeryHard (in (0, 0.1]).
// A target is named `midhard:N` or `veryhard:N` (N from 1, in the list's order) or given as a
// problem's text; either way the run's config gets its text and, when the list measured it, the
// base's mean@512 as the reference line.
import { ConfigError } from '../../util/errors';

/** The target list's file in a base policy's folder. */
export const TARGET_LIST_FILE = 'ttsp_targets.json';

export interface ShippedTarget {
  /** midhard:N or veryhard:N */
  id: string;
  text: string;
  /** the base's mean@n on it */
  passRate: number;
}

export interface TargetList {
  n: number;
  midHard: ShippedTarget[];
  veryHard: ShippedTarget[];
}

/** Reads a ttsp_targets.json document; `where` names it in errors. */
export function parseTargetList(json: unknown, where: string): TargetList {
  const o = json as { n?: unknown; midHard?: unknown; veryHard?: unknown } | null;
  if (typeof o !== 'object' || o === null || typeof o.n !== 'number') throw new ConfigError(`${where}: not a TTSP target list (expected {"n", "midHard", "veryHard", …} as ttsp-targets writes)`);
  const list = (key: 'midHard' | 'veryHard', prefix: string): ShippedTarget[] => {
    const xs = o[key];
    if (!Array.isArray(xs)) throw new ConfigError(`${where}.${key}: expected a list`);
    return xs.map((x: { text?: unknown; passRate?: unknown }, i) => {
      if (typeof x?.text !== 'string' || typeof x.passRate !== 'number') throw new ConfigError(`${where}.${key}[${i}]: expected {"text", "passRate"}`);
      return { id: `${prefix}:${i + 1}`, text: x.text, passRate: x.passRate };
    });
  };
  return { n: o.n, midHard: list('midHard', 'midhard'), veryHard: list('veryHard', 'veryhard') };
}

/** `arg` (a shipped target's id or a problem's text) as config fields: the text and the base's measured rate (−1: not measured). */
export function resolveTarget(arg: string, list: TargetList | null): { target: string; targetBaseRate: number } {
  const all = list ? [...list.midHard, ...list.veryHard] : [];
  if (/^(midhard|veryhard):/i.test(arg)) {
    const t = all.find((x) => x.id === arg.toLowerCase());
    if (!t) {
      const ids = list ? `midhard:1..${list.midHard.length}, veryhard:1..${list.veryHard.length}` : 'none: this base ships no target list';
      throw new ConfigError(`target ${arg}: no such shipped target (ids: ${ids})`);
    }
    return { target: t.text, targetBaseRate: t.passRate };
  }
  const t = all.find((x) => x.text === arg);
  return { target: arg, targetBaseRate: t ? t.passRate : -1 };
}
