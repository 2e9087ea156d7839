// What the lab teaches, as data kept outside the loops: a paragraph per loop (what it does, what
// to watch, which chart shows it), set-up links that each show one thing, and one lesson per
// paper: a set of runs started together from the same base and seed, the charts to watch, and
// what docs/results.md measured here. Loops are named only by their registry names; a cpu test
// checks that every name, set-up and chart named here exists.
import { LOOP_NAMES } from '../loops/registry';
import type { XAxisMode } from './charts/wallTime';
import { setField, setLoop, setSetup, type LauncherState } from './launcher';

/** A link that changes part of the set-up (kept with the page's lesson parameters: links.ts). */
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

/** Set-ups every loop has (each loop's `lab` set-up). */
export const QUICK_DEMO: SetupLink = { title: 'Quick demo', set: { setup: 'lab' }, what: 'the lab-sized set-up of the chosen loop: a few problems a step, 20 steps, an evaluation every 10 (minutes on a CPU adapter, seconds on a GPU)' };

export const LOOP_GUIDES: Readonly<Record<string, LoopGuide>> = {
  grpo: {
    does: 'samples 8 answers per problem, scores each 1 (right) or 0, and raises the probability of the answers that beat their group\'s mean and lowers the others. Every other loop builds its own curriculum on top of it.',
    watch: 'the reward rise and the entropy while solving fall as the policy commits (Policy entropy while solving); on held-out problems pass@1 can rise while pass@k for large k falls (pass@k): RL sharpening what the model already knew rather than teaching it more.',
    links: [
      { title: 'See entropy fall', set: { loop: 'grpo', steps: '60', evalEvery: '20' }, what: 'GRPO at its default learning rate (1e-4) for 60 steps: the policy commits, its entropy falls' },
      { title: 'Watch pass@k narrow', set: { loop: 'grpo', steps: '100', evalEvery: '25', evalProblems: '32', evalN: '64', seed: '1' }, what: '100 steps at 1e-4 with pass@k up to k = 64: in docs/results.md §1c this seed lost coverage (pass@64 0.94 → 0.84) while training reward rose' },
    ],
  },
  svs: {
    does: 'trains on the original problems and, for those the policy finds hard (1–4 of 8 right), has the policy write variants of each from its own correct solution, then solve them; a variant is paid when its pass rate lands in a band, so it must be solvable but not trivial.',
    watch: 'what it trains on (Data mix per step), how often a variant parses, is truly valid or leaks the answer (Variants: reward, extraction and what the oracle says), and whether the entropy while solving holds up against GRPO\'s (Policy entropy while solving).',
    links: [{ title: 'The hackable reward', set: { loop: 'svs', setup: 'naive' }, what: 'R_v = 1 iff any answer to a variant is right: the paper\'s ablation, which pays variants that state their answer (watch the leak rate)' }],
  },
  spice: {
    does: 'plays two roles: a challenger reads a worked document of the corpus and writes a question with its gold answer; a reasoner answers it 8 times. The challenger is paid for questions the reasoner gets right about half the time.',
    watch: 'the reasoner\'s pass rate, how many questions sit at its frontier (Questions at the frontier) and whether the challenger\'s gold is the question\'s true value (Challenger: validity and what the oracle says): a wrong gold teaches agreement, not arithmetic.',
    links: [{ title: 'Without the corpus', set: { loop: 'spice', setup: 'no-corpus' }, what: 'the challenger writes without a document (ungrounded self-play): its golds are its own guesses' }],
  },
  opensir: {
    does: 'grows a pool of problems from one seed problem (1+1): a teacher writes new problems with concept tags, students answer them and their majority is the label; the teacher is paid for problems solved within a window (neither trivial nor hopeless) and for being unlike the pool.',
    watch: 'the pool grow (Pool size) and cover more concepts (Concept coverage), and how often the students\' majority is the true value (Validity: legal, and what the oracle says).',
    links: [{ title: 'Without the diversity reward', set: { loop: 'opensir', setup: 'no-diversity' }, what: 'γ = 0: the teacher is no longer paid for new concepts (the paper: coverage nearly halves)' }],
  },
  datpo: {
    does: 'grows a tree per problem: 4 root answers, and where the roots fail it forks new branches at a root\'s most uncertain sentence (more for harder problems), training every leaf with advantages that know the tree.',
    watch: 'the tree pass rate against the roots\' accuracy (Tree pass rate, Root accuracy v), the leaves per problem by difficulty, and held-out pass@k at large k against GRPO at the same generated tokens (pass@k, with the x-axis on generated tokens).',
    links: [{ title: 'Forks at uncertain tokens', set: { loop: 'datpo', setup: 'token-entropy' }, what: 'forks at the highest-entropy tokens instead of sentences (the localisation ablation)' }],
  },
  ttsp: {
    does: 'adapts to one hard target problem at test time: a proposer (one LoRA adapter set) writes problems about the target with reference solutions, a gate keeps those whose steps check, and a solver (another set) answers them; the proposer is paid for problems at the solver\'s frontier. The base stays frozen.',
    watch: 'the target\'s mean@n against the frozen base (Target: adapted solver against the frozen base (mean@n)), what the gate rejects (Proposals rejected by the gate, by category) and how related the proposals are to the target.',
    links: [{ title: 'Without replay', set: { loop: 'ttsp', setup: 'no-replay' }, what: 'R = 0: only fresh proposals train the solver' }],
  },
};

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
  /** what docs/results.md measured from the shipped base, with its section */
  measured: string;
  source: string;
}

export const PAPER_LESSONS: readonly PaperLesson[] = [
  {
    id: 'grpo-vs-svs',
    title: 'GRPO vs SvS: does self-play keep entropy?',
    question: 'SvS says writing and solving its own variants keeps the policy exploring where GRPO narrows it. Both start from the same base and seed at lab size; watch the entropy while solving and pass@k.',
    runs: [
      { loop: 'grpo', setup: 'lab', role: 'the control' },
      { loop: 'svs', setup: 'lab', role: 'self-play with variants' },
    ],
    charts: [{ id: 'entropy', name: 'entropy while solving' }, { id: 'passk', name: 'pass@k' }],
    measured: 'SvS kept more held-out entropy (0.231 → 0.206 against GRPO\'s 0.174 at the same generated tokens), but not more coverage: pass@64 0.875 → 0.854 for SvS, 0.865 for GRPO; GRPO gained more pass@1 (+0.054 against +0.018). 100 SvS steps, 3 seeds.',
    source: 'docs/results.md §5',
  },
  {
    id: 'datpo-coverage',
    title: 'DATPO vs GRPO: do trees keep coverage at large k?',
    question: 'DATPO spends its tokens on branches where the roots fail. Compared with GRPO at the same generated tokens (the x-axis), does it keep pass@k for large k?',
    runs: [
      { loop: 'grpo', setup: 'lab', role: 'the control' },
      { loop: 'datpo', setup: 'lab', role: 'tree rollouts' },
    ],
    charts: [{ id: 'passk', name: 'pass@k' }, { id: 'entropy', name: 'entropy while solving' }, { id: 'tree-pass', name: 'tree pass rate' }],
    xAxis: 'tokens',
    measured: 'at the same generated tokens DATPO\'s pass@64 stayed at the base\'s (0.875 → 0.870) where GRPO\'s fell to 0.828 (paired, +0.042 ± 0.023 for DATPO at k = 64), while GRPO\'s pass@1 rose more (+0.052 against +0.021). 100 DATPO steps, 3 seeds.',
    source: 'docs/results.md §8',
  },
  {
    id: 'spice-gold',
    title: 'SPICE: is the challenger\'s gold right, and does it find the frontier?',
    question: 'The reasoner is graded against the challenger\'s gold answer. How often is that gold the true value (the oracle checks, training never sees it), and how many questions land at the reasoner\'s frontier?',
    runs: [{ loop: 'spice', setup: 'lab', role: 'challenger and reasoner' }],
    charts: [{ id: 'gold', name: 'the challenger\'s gold accuracy' }, { id: 'question-frontier', name: 'questions at the frontier' }, { id: 'reward', name: 'the reasoner\'s pass rate' }],
    measured: 'the challenger\'s gold was the true value about a quarter of the time (0.238 over the run, 0.265 over the last 20 steps); 29 % of its valid questions sat at the frontier; held-out pass@1 0.446 → 0.441 against GRPO\'s 0.484 at the same tokens. 100 steps, 3 seeds.',
    source: 'docs/results.md §6',
  },
  {
    id: 'opensir-pool',
    title: 'OpenSIR: does the pool grow and widen, and does diversity help?',
    question: 'From one seed problem the teacher grows a pool. The second run drops the diversity reward (γ = 0): does the pool cover fewer concepts without it?',
    runs: [
      { loop: 'opensir', setup: 'lab', role: 'the full loop' },
      { loop: 'opensir', setup: 'lab', fields: { divWeight: 0 }, role: 'no diversity reward (γ = 0)' },
    ],
    charts: [{ id: 'pool-size', name: 'pool size' }, { id: 'coverage', name: 'concept coverage' }, { id: 'tag-sets', name: 'concept combinations' }],
    measured: 'the pool grew to about 1,390 problems in 100 steps covering 393 concept signatures; without the diversity reward it covered as many (412), so the paper\'s direction did not show; held-out pass@1 −0.014, pass@64 0.875 → 0.792. 3 seeds an arm.',
    source: 'docs/results.md §7',
  },
  {
    id: 'ttsp-target',
    title: 'TTSP: does the adapted solver beat the frozen base on its target?',
    question: 'The solver trains only on problems the proposer wrote about one target, 2*max(4,5), whose answer it never sees. The chart puts its mean@n on the target against the frozen base\'s.',
    runs: [{ loop: 'ttsp', setup: 'lab', fields: { target: '2*max(4,5)', targetBaseRate: 0.552734375 }, role: 'proposer and solver adapters' }],
    charts: [{ id: 'target', name: 'the target against the frozen base' }, { id: 'related', name: 'relatedness to the target' }, { id: 'rejections', name: 'what the gate rejects' }],
    measured: 'on this target (midhard:2) the adapted solver\'s mean@64 rose 0.547 → 0.812 against the frozen base, about four errors; on the other five targets one fell (midhard:3, 0.188 → 0.062) and the rest stayed within their errors. 40 steps, one seed a target.',
    source: 'docs/results.md §9',
  },
];

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
