// What the lab teaches about GRPO: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing). The registry collects it for the page
// (src/state/lessons.ts).
import type { LoopGuide } from '../lessons';

export const GRPO_GUIDE: LoopGuide = {
  does: 'samples 8 answers per problem, scores each 1 (right) or 0, and raises the probability of the answers that beat their group\'s mean and lowers the others. Every other loop builds its own curriculum on top of it.',
  watch: 'the reward rise and the entropy while solving fall as the policy commits (Policy entropy while solving); on held-out problems pass@1 can rise while pass@k for large k falls (pass@k): RL sharpening what the model already knew rather than teaching it more.',
  links: [
    { title: 'See entropy fall', set: { loop: 'grpo', steps: '60', evalEvery: '20' }, what: 'GRPO at its default learning rate (1e-4) for 60 steps: the policy commits, its entropy falls' },
    { title: 'Watch pass@k narrow', set: { loop: 'grpo', steps: '100', evalEvery: '25', evalProblems: '32', evalN: '64', seed: '1' }, what: '100 steps at 1e-4 with pass@k up to k = 64: from the shipped base this seed lost coverage by step 100 on all 200 held-out problems (docs/results.md §11b: pass@64 0.885 → 0.835) while its pass@1 did not rise (0.453 → 0.415); 32 problems show it on a coarser grid' },
  ],
};
