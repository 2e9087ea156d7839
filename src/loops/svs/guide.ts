// What the lab teaches about SvS: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing) and its paper lesson, with what docs/results.md
// measured here. The registry collects them for the page (src/state/lessons.ts).
import type { LoopGuide, PaperLesson } from '../lessons';

export const SVS_GUIDE: LoopGuide = {
  does: 'trains on the original problems and, for those the policy finds hard (1–4 of 8 right), has the policy write variants of each from its own correct solution, then solve them; a variant is paid when its pass rate lands in a band, so it must be solvable but not trivial.',
  watch: 'what it trains on (Data mix per step), how often a variant parses, is truly valid or leaks the answer (Variants: reward, extraction and what the oracle says), and whether the entropy while solving holds up against GRPO\'s (Policy entropy while solving).',
  links: [{ title: 'The hackable reward', set: { loop: 'svs', setup: 'naive' }, what: 'R_v = 1 iff any answer to a variant is right: the paper\'s ablation, which pays variants that state their answer (watch the leak rate)' }],
};

export const SVS_LESSONS: readonly PaperLesson[] = [
  {
    id: 'grpo-vs-svs',
    title: 'GRPO vs SvS: does self-play keep entropy?',
    question: 'SvS says writing and solving its own variants keeps the policy exploring where GRPO narrows it. Both start from the same base and seed at lab size; watch the entropy while solving and pass@k.',
    runs: [
      { loop: 'grpo', setup: 'lab', role: 'the control' },
      { loop: 'svs', setup: 'lab', role: 'self-play with variants' },
    ],
    charts: [{ id: 'entropy', name: 'entropy while solving' }, { id: 'passk', name: 'pass@k' }],
    measured: 'on the shipped small base, the paper\'s set-up at lr 1e-4, 3 seeds, 200 held-out problems × 64: at the same generated tokens SvS\'s entropy while solving fell less than GRPO\'s (0.225 → 0.194 against 0.167, every seed), but its large-k coverage fell as GRPO\'s did (pass@64 −0.072 ± 0.013 from its start, level with GRPO\'s); 22 % of the variants that trained were truly valid.',
    source: 'docs/results.md §13b',
  },
];
