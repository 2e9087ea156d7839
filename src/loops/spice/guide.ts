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
    measured: 'the challenger\'s gold was the true value about a quarter of the time (0.238 over the run, 0.265 over the last 20 steps); 29 % of its valid questions sat at the frontier; held-out pass@1 0.446 → 0.441 against GRPO\'s 0.484 at the same tokens. 100 steps, 3 seeds.',
    source: 'docs/results.md §6',
    base: 'the first small base (shipped until 2026-12-04), on the loop before issue 24\'s corrections; not re-measured on the shipped base',
  },
];
