// What the lab teaches about OpenSIR: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing) and its paper lesson, with what docs/results.md
// measured here. The registry collects them for the page (src/state/lessons.ts).
import type { LoopGuide, PaperLesson } from '../lessons';

export const OPENSIR_GUIDE: LoopGuide = {
  does: 'grows a pool of problems from one seed problem (1+1): a teacher writes new problems with concept tags, students answer them and their majority is the label; the teacher is paid for problems solved within a window (neither trivial nor hopeless) and for being unlike the pool.',
  watch: 'the pool grow (Pool size) and cover more concepts (Concept coverage), and how often the students\' majority is the true value (Validity: legal, and what the oracle says).',
  links: [
    { title: 'Without the diversity reward', set: { loop: 'opensir', setup: 'no-diversity' }, what: 'γ = 0: the teacher is no longer paid for new concepts (the paper: coverage nearly halves)' },
    { title: 'A wider solvability window', set: { loop: 'opensir', setup: 's-min-0.1' }, what: 's_min 0.1: harder problems pay; watch true-label agreement (Validity). The paper: validity falls from 71 % to 42 %; on the shipped base the majority label was right 12 % of the time over the last 20 steps, against 30 % at s_min 0.5 (docs/results.md §15b)' },
  ],
};

export const OPENSIR_LESSONS: readonly PaperLesson[] = [
  {
    id: 'opensir-pool',
    title: 'OpenSIR: does the pool grow and widen, and does diversity help?',
    question: 'From one seed problem the teacher grows a pool. The second run drops the diversity reward (γ = 0): does the pool cover fewer concepts without it?',
    runs: [
      { loop: 'opensir', setup: 'lab', role: 'the full loop' },
      { loop: 'opensir', setup: 'lab', fields: { divWeight: 0 }, role: 'no diversity reward (γ = 0)' },
    ],
    charts: [{ id: 'pool-size', name: 'pool size' }, { id: 'coverage', name: 'concept coverage' }, { id: 'probe-coverage', name: 'coverage on fixed probe prompts' }, { id: 'validity', name: 'validity (true-label agreement)' }],
    measured: 'on the shipped small base, the paper\'s 8 problems a teacher group at lr 1e-4, 3 seeds an arm: the pool grew to 1,400–2,200 problems with 545 ± 25 concept signatures, 463 ± 6 without the diversity reward; on the fixed probe prompts the two arms were level, far from the paper\'s halving. The students\' majority was the true value 63–70 % of the time at steps 1–2 and 29 % over the run, and the student trained on those labels lost held-out accuracy (pass@1 −0.134 ± 0.015).',
    source: 'docs/results.md §15a',
  },
];
