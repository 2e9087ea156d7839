// What the lab teaches about a loop, declared in the loop's folder (its guide.ts) and read by the
// page through the registry (src/state/lessons.ts): a paragraph on what it does and what to watch,
// set-up links that each show one thing, and the paper lessons it leads: runs started together
// from one base and seed, the charts to watch, and what docs/results.md measured here.
import type { XAxisMode } from './charts';

/** A link that changes part of the set-up (kept with the page's lesson parameters: state/links.ts). */
export interface SetupLink {
  title: string;
  /** the parameters the link sets, e.g. `{ setup: 'lab' }` */
  set: Readonly<Record<string, string>>;
  what: string;
}

export interface LoopGuide {
  /** what the loop does, in a sentence or two, after its name ("samples 8 answers…") */
  does: string;
  /** what to watch, naming the charts (by their titles) that show it */
  watch: string;
  /** set-ups of this loop that each show one thing */
  links: readonly SetupLink[];
}

/** One run of a paper lesson: a loop (registry name), its set-up and fields over it. */
export interface LessonRun {
  loop: string;
  setup: string;
  fields?: Readonly<Record<string, unknown>>;
  /** what this run is, in the lesson's words */
  role: string;
}

/** A lesson per paper: runs started together (same base and seed), the charts to watch, what was measured here. */
export interface PaperLesson {
  /** `?lesson=<id>` */
  id: string;
  title: string;
  question: string;
  runs: readonly LessonRun[];
  /** the charts to watch, by chart id (`entropy`, `passk`, a loop view's id such as `gold`), in order */
  charts: readonly { id: string; name: string }[];
  /** the x-axis the lesson compares on */
  xAxis?: XAxisMode;
  /** what docs/results.md measured, with its section */
  measured: string;
  source: string;
  /** the base it was measured from where that is not the shipped base (a superseded one): said beside the figures */
  base?: string;
}
