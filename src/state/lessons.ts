// What the lab teaches, as the page reads it: each loop declares its paragraph (what it does, what
// to watch, which chart shows it), set-up links that each show one thing, and the paper lessons it
// leads in its own folder (src/loops/<loop>/guide.ts); the registry collects them, and this file
// finds a lesson, the lessons of a loop and the launcher states a lesson starts. A cpu test
// (state_lessons) checks that every loop, set-up and chart a lesson names exists.
import { LOOP_GUIDES, LOOP_NAMES, PAPER_LESSONS } from '../loops/registry';
import type { PaperLesson, SetupLink } from '../loops/lessons';
import { setField, setLoop, setSetup, type LauncherState } from './launcher';

export { LOOP_GUIDES, PAPER_LESSONS };
export type { SetupLink };

/** Set-ups every loop has (each loop's `lab` set-up). */
export const QUICK_DEMO: SetupLink = { title: 'Quick demo', set: { setup: 'lab' }, what: 'the lab-sized set-up of the chosen loop: a few problems a step, 20 steps, an evaluation every 10 (minutes on a CPU adapter, seconds on a GPU)' };

export function paperLesson(id: string | null | undefined): PaperLesson | null {
  return PAPER_LESSONS.find((l) => l.id === id) ?? null;
}

/** The paper lessons one of whose runs is of `loop`. */
export function lessonsOfLoop(loop: string): PaperLesson[] {
  return PAPER_LESSONS.filter((l) => l.runs.some((r) => r.loop === loop));
}

/** The loops with a guide, in the registry's order. */
export function guidedLoops(): string[] {
  return LOOP_NAMES.filter((n) => Object.hasOwn(LOOP_GUIDES, n));
}

/**
 * The launcher states of a lesson's runs: each run's loop and set-up under what the page's
 * launcher holds (its policy, seed, and any field the address overrides, which wins over the
 * lesson's own fields: a link can shorten a lesson, as the browser tests do).
 */
export function lessonLaunchers(lesson: PaperLesson, current: LauncherState): LauncherState[] {
  return lesson.runs.map((run) => {
    let l = setSetup(setLoop(current, run.loop), run.setup);
    for (const [k, v] of Object.entries(run.fields ?? {})) if (!Object.hasOwn(current.fields, k)) l = setField(l, 'loop', k, v);
    return l;
  });
}
