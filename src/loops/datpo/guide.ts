// What the lab teaches about DATPO: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing) and its paper lesson, with what docs/results.md
// measured here. The registry collects them for the page (src/state/lessons.ts).
import type { LoopGuide, PaperLesson } from '../lessons';

export const DATPO_GUIDE: LoopGuide = {
  does: 'grows a tree per problem: 4 root answers, and where the roots fail it forks new branches at a root\'s most uncertain sentence (more for harder problems), training every leaf with advantages that know the tree.',
  watch: 'the tree pass rate against the roots\' accuracy (Tree pass rate, Root accuracy v), the leaves per problem by difficulty, and held-out pass@k at large k against GRPO at the same generated tokens (pass@k, with the x-axis on generated tokens).',
  links: [{ title: 'Forks at uncertain tokens', set: { loop: 'datpo', setup: 'token-entropy' }, what: 'forks at the highest-entropy tokens instead of sentences (the localisation ablation)' }],
};

export const DATPO_LESSONS: readonly PaperLesson[] = [
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
    measured: 'on the shipped small base, lr 1e-4, n-gram sibling embeddings, 3 seeds, 200 held-out problems × 64: at the same generated tokens DATPO was behind GRPO at small k (pass@1 −0.038 ± 0.008, every seed) and level at large k (pass@64 +0.008 ± 0.014); both lost large-k coverage from the base (DATPO\'s pass@64 −0.068 ± 0.012); its entropy while solving fell less (0.225 → 0.205 against GRPO\'s 0.167).',
    source: 'docs/results.md §14b',
  },
];
