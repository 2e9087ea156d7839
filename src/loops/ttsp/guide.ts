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
    question: 'The solver trains only on problems the proposer wrote about one target, (6+7)*3, whose answer it never sees (the shipped base solves it 29 % of the time). The chart puts its mean@n on the target against the frozen base\'s, and against a second solver trained with no proposer on random training problems: at the same generated tokens (the x-axis), does self-play around the target do more than RL on any problems?',
    runs: [
      { loop: 'ttsp', setup: 'lab', fields: { target: '(6+7)*3', targetBaseRate: 0.291015625 }, role: 'proposer and solver adapters' },
      { loop: 'ttsp', setup: 'lab', fields: { target: '(6+7)*3', targetBaseRate: 0.291015625, solverProblems: 'training' }, role: 'the generic control: the solver adapter on random training problems, no proposer' },
    ],
    charts: [{ id: 'target', name: 'the target against the frozen base' }, { id: 'related', name: 'relatedness to the target' }, { id: 'rejections', name: 'what the gate rejects' }],
    xAxis: 'tokens',
    measured: 'on the shipped small base, this target, §17\'s set-up (40 steps, lr 1e-3, the target evaluated with 64 samples every 10 steps), 3 seeds: the adapted solver ended above the frozen base in every seed (+0.068 ± 0.028), with no proposal carrying the target\'s value and proposals less related to it than random training problems (0.494 against 0.612); but the generic control, stopped at the same generated tokens, rose as much (+0.042 ± 0.045; loop − control +0.026 ± 0.059, noise). On a second target, min(9,9-1+4), the loop ended below the control in every seed (−0.203 ± 0.024); pooled over six targets, loop − control +0.024 ± 0.050. Not reproduced at this scale.',
    source: 'docs/results.md §17c',
  },
];
