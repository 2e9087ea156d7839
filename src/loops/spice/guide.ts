// What the lab teaches about SPICE: its paragraph for the introduction (what it does, what to
// watch, set-ups that each show one thing) and its paper lesson, with what docs/results.md
// measured here. The registry collects them for the page (src/state/lessons.ts).
import type { LoopGuide, PaperLesson } from '../lessons';

export const SPICE_GUIDE: LoopGuide = {
  does: 'plays two roles: a challenger reads a worked document of the corpus and writes a question with its gold answer; a reasoner answers it 8 times. The challenger is paid for questions the reasoner gets right about half the time.',
  watch: 'the reasoner\'s pass rate, how many questions sit at its frontier (Questions at the frontier) and whether the challenger\'s gold is the question\'s true value (Challenger: validity and what the oracle says): a wrong gold teaches agreement, not arithmetic.',
  links: [{ title: 'Without the corpus', set: { loop: 'spice', setup: 'no-corpus' }, what: 'the challenger writes without a document (ungrounded self-play): its golds are its own guesses' }],
};

export const SPICE_LESSONS: readonly PaperLesson[] = [
  {
    id: 'spice-gold',
    title: 'SPICE: is the challenger\'s gold right, and does it find the frontier?',
    question: 'The reasoner is graded against the challenger\'s gold answer. How often is that gold the true value (the oracle checks, training never sees it), and how many questions land at the reasoner\'s frontier?',
    runs: [{ loop: 'spice', setup: 'lab', role: 'challenger and reasoner' }],
    charts: [{ id: 'gold', name: 'the challenger\'s gold accuracy' }, { id: 'question-frontier', name: 'questions at the frontier' }, { id: 'reward', name: 'the reasoner\'s pass rate' }],
    measured: 'on the shipped small base, the paper\'s 8 documents × 8 questions × 8 answers at lr 1e-4, 3 seeds, each to GRPO\'s 300-step tokens: the challenger\'s gold was the true value 31 % of the time (0.308 ± 0.009 over the run); 28 % of its questions sat at the frontier; the reasoner lost held-out accuracy at every k (pass@1 0.453 → 0.318, pass@64 0.883 → 0.692), where GRPO at the same tokens held pass@1 (0.440). The cross-play: graded by gold, the reasoner gains on its final challenger\'s questions; graded by the true value, it loses on every challenger\'s, in every seed: it learns to agree rather than to compute.',
    source: 'docs/results.md §16b',
  },
];
