// What the lab teaches about OpenSIR: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing) and its paper lesson, with what docs/results.md
// measured here. The registry collects them for the page (src/state/lessons.ts).
import type { LoopGuide, PaperLesson } from '../lessons';

export const OPENSIR_GUIDE: LoopGuide = {
  does: 'grows a pool of problems from one seed problem (1+1): a teacher writes new problems with concept tags, students answer them and their majority is the label; the teacher is paid for problems solved within a window (neither trivial nor hopeless) and for being unlike the pool.',
  watch: 'the pool grow (Pool size) and cover more concepts (Concept coverage), and how often the students\' majority is the true value (Validity: legal, and what the oracle says).',
  links: [{ title: 'Without the diversity reward', set: { loop: 'opensir', setup: 'no-diversity' }, what: 'γ = 0: the teacher is no longer paid for new concepts (the paper: coverage nearly halves)' }],
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
    charts: [{ id: 'pool-size', name: 'pool size' }, { id: 'coverage', name: 'concept coverage' }, { id: 'tag-sets', name: 'concept combinations' }],
    measured: 'the pool grew to about 1,390 problems in 100 steps covering 393 concept signatures; without the diversity reward it covered as many (412), so the paper\'s direction did not show; held-out pass@1 −0.014, pass@64 0.875 → 0.792. 3 seeds an arm.',
    source: 'docs/results.md §7',
  },
];
