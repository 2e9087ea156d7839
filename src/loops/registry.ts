// Every loop of the lab, one line each. The worker, the CLI, the launcher, URLs, run history,
// exports and the charts read this list and never name a loop: adding one is its folder under
// src/loops/ and a line here.
import { ConfigError, didYouMean } from '../util/errors';
import type { BaseLoopConfig } from './base_config';
import type { LoopDefinition } from './spec';
import type { LoopGuide, PaperLesson } from './lessons';
import { GRPO } from './grpo/index';
import { SVS } from './svs/index';
import { SPICE } from './spice/index';
import { OPENSIR } from './opensir/index';
import { DATPO } from './datpo/index';
import { TTSP } from './ttsp/index';

export const LOOPS: readonly LoopDefinition<BaseLoopConfig>[] = [
  GRPO,
  SVS,
  SPICE,
  OPENSIR,
  DATPO,
  TTSP,
] as unknown as readonly LoopDefinition<BaseLoopConfig>[];

export const LOOP_NAMES: readonly string[] = LOOPS.map((l) => l.spec.name);

/** The control every loop is compared with (GRPO): the CLI's default loop; the benchmark times its step. */
export const CONTROL_LOOP: string = GRPO.spec.name;
export { stepRollout as controlStepRollout } from './grpo/step';
export type { GrpoConfig as ControlConfig } from './grpo/config';

/** Each loop's guide for the page's introduction (its guide.ts), by name, in the registry's order. */
export const LOOP_GUIDES: Readonly<Record<string, LoopGuide>> = Object.fromEntries(LOOPS.flatMap((l) => (l.guide ? [[l.spec.name, l.guide]] : [])));

/**
 * Every loop's paper lessons, in the order the page lists them: the comparisons with the control
 * first, then the rest, each part in the registry's order of the loops that lead them.
 */
export const PAPER_LESSONS: readonly PaperLesson[] = (() => {
  const all = LOOPS.flatMap((l) => l.lessons ?? []);
  const withControl = (l: PaperLesson) => l.runs.some((r) => r.loop === CONTROL_LOOP);
  const ids = all.map((l) => l.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new Error(`registry: two loops declare the lesson "${twice}"`);
  return [...all.filter(withControl), ...all.filter((l) => !withControl(l))];
})();

/** The shipped targets of a loop with a target field (TTSP's), read from a base policy's folder. */
export { TARGET_LIST_FILE, parseTargetList, resolveTarget, type TargetList } from './ttsp/targets';

/** The papers' loops not written yet: the launcher lists them, disabled. A loop leaves this list when it joins LOOPS. */
export const COMING_LOOPS: readonly { name: string; title: string }[] = [];

/** The loop named `name`, or a ConfigError listing the loops (with the closest name). */
export function loopNamed(name: string): LoopDefinition<BaseLoopConfig> {
  const def = LOOPS.find((l) => l.spec.name === name);
  if (!def) throw new ConfigError(`unknown loop "${name}"${didYouMean(name, LOOP_NAMES)}; loops: ${LOOP_NAMES.join(', ')}`);
  return def;
}

/** The loop's name when `name` is one, else null (for untrusted input such as a URL or a file). */
export function isLoopName(name: unknown): name is string {
  return typeof name === 'string' && LOOP_NAMES.includes(name);
}
