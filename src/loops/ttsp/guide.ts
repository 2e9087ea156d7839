// What the lab teaches about TTSP: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing) and its paper lesson, with what docs/results.md
// measured here. The registry collects them for the page (src/state/lessons.ts).
import type { LoopGuide, PaperLesson } from '../lessons';

export const TTSP_GUIDE: LoopGuide = {
  does: 'adapts to one hard target problem at test time: a proposer (one LoRA adapter set) writes problems about the target with reference solutions, a gate keeps those whose steps check, and a solver (another set) answers them; the proposer is paid for problems at the solver\'s frontier. The base stays frozen.',
  watch: 'the target\'s mean@n against the frozen base (Target: adapted solver against the frozen base (mean@n)), what the gate rejects (Proposals rejected by the gate, by category) and how related the proposals are to the target.',
  links: [{ title: 'Without replay', set: { loop: 'ttsp', setup: 'no-replay' }, what: 'R = 0: only fresh proposals train the solver' }],
};

export const TTSP_LESSONS: readonly PaperLesson[] = [
  {
    id: 'ttsp-target',
    title: 'TTSP: does the adapted solver beat the frozen base on its target?',
    question: 'The solver trains only on problems the proposer wrote about one target, (6+7)*3, whose answer it never sees (the shipped base solves it 29 % of the time). The chart puts its mean@n on the target against the frozen base\'s.',
    runs: [{ loop: 'ttsp', setup: 'lab', fields: { target: '(6+7)*3', targetBaseRate: 0.291015625 }, role: 'proposer and solver adapters' }],
    charts: [{ id: 'target', name: 'the target against the frozen base' }, { id: 'related', name: 'relatedness to the target' }, { id: 'rejections', name: 'what the gate rejects' }],
    measured: 'on another target of that base\'s list (midhard:2) the adapted solver\'s mean@64 rose 0.547 → 0.812 against the frozen base, about four errors; on the other five targets one fell (midhard:3, 0.188 → 0.062) and the rest stayed within their errors. 40 steps, one seed a target.',
    source: 'docs/results.md §9',
    base: 'the first small base (shipped until 2026-12-04) and its own target list; not re-measured on the shipped base',
  },
];
