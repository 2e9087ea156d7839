// The shipped TTSP targets of a base policy (public/models/<base>/ttsp_targets.json, written by
// `rlvr-lab ttsp-targets`): MidHard (base mean@512 in (0.1, 0.7)) and VeryHard (in (0, 0.1]).
// A target is named `midhard:N` or `veryhard:N` (N from 1, in the list's order) or given as a
// problem's text; either way the run's config gets its text and, when the list measured it, the
// base's mean@512 as the reference line.
import * as v from 'valibot';
import { ConfigError } from '../../util/errors';
import { parseOr } from '../../util/valibot';

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

const MAX_TARGETS = 10_000;
const Target = v.looseObject({ text: v.pipe(v.string(), v.minLength(1), v.maxLength(4_000)), passRate: v.pipe(v.number(), v.minValue(0), v.maxValue(1)) });
const Targets = v.pipe(v.array(Target), v.maxLength(MAX_TARGETS));
/** What `rlvr-lab ttsp-targets` writes; the other fields it writes (the candidates, the seed) are not read here. */
const TargetListSchema = v.looseObject({ n: v.pipe(v.number(), v.safeInteger(), v.minValue(1)), midHard: Targets, veryHard: Targets });

/** Reads a ttsp_targets.json document; `where` names it in errors. */
export function parseTargetList(json: unknown, where: string): TargetList {
  const fail = (line: string): never => {
    throw new ConfigError(`${where}: ${line} (a TTSP target list as ttsp-targets writes)`);
  };
  const o = parseOr(TargetListSchema, json, fail);
  const ids = (xs: typeof o.midHard, prefix: string): ShippedTarget[] => xs.map((x, i) => ({ id: `${prefix}:${i + 1}`, text: x.text, passRate: x.passRate }));
  return { n: o.n, midHard: ids(o.midHard, 'midhard'), veryHard: ids(o.veryHard, 'veryhard') };
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
