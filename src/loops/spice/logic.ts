// SPICE's rules (LOOPS.md §3), pure and engine-free so they are tested by hand: the challenger
// reward's four shapes against the reasoner pass rate p, what a challenger output is (a valid
// question with a gold answer, or which kind of invalid), and the oracle's diagnostics of a
// question, which are displayed and never rewarded (DESIGN "Oracle discipline").
import { countOps, goldQuestion, handsOverAnswer, makeRng, parseChallenge, renderDocument, type Document } from '../../world/index';
import { frontierCurve, frontierReward } from '../frontier';

/** The challenger's reward for a valid question the reasoner solved with pass rate p (src/loops/frontier.ts). */
export const challengerReward = frontierReward;
export const rewardCurve = frontierCurve;

/** What a challenger output is: a valid question, or the kind of invalid (the format mix). */
export type QuestionFormat = 'valid' | 'no_gold' | 'bad_question' | 'cut';
export const QUESTION_FORMATS: readonly QuestionFormat[] = ['valid', 'no_gold', 'bad_question', 'cut'];

export interface QuestionDiagnostics {
  format: QuestionFormat;
  /** the question's canonical text and the challenger's gold (null unless valid) */
  question: string | null;
  gold: number | null;
  /** the interpreter's value of the question (oracle) */
  value: number | null;
  /** the gold answer is the question's true value */
  goldCorrect: boolean;
  /**
   * the question hands its gold over (src/world/leak.ts, the predicate SvS's leak uses: it
   * evaluates to the gold and a literal equal to the gold passes straight through, as in 7+0,
   * 7*1, max(7,2)); a literal that merely equals the gold is no leak. There is no original to
   * compare with, so a question born that way counts: about a quarter of gold questions
   * (goldQuestion over generated documents) and of training problems are
   */
  leak: boolean;
  /** the question is a piece of the document's worked record (a statement's expression or value), copied */
  copy: boolean;
  /** the gold answer is a value the document shows (read from it rather than made up) */
  grounded: boolean;
  /** the oracle's difficulty: operations in the question */
  ops: number | null;
}

/**
 * Reads a challenger output (the response text before its end token; `ended` false: it was cut
 * at the token limit) and judges it against the document it was written from (null: no corpus).
 */
export function diagnoseQuestion(text: string, ended: boolean, doc: Document | null): QuestionDiagnostics {
  const none = { question: null, gold: null, value: null, goldCorrect: false, leak: false, copy: false, grounded: false, ops: null };
  if (!ended) return { format: 'cut', ...none };
  const r = parseChallenge(text);
  if (!r.ok) {
    const noGold = r.reason === 'missing_marker' || r.reason === 'bad_answer' || r.reason === 'answer_out_of_range' || r.reason === 'empty';
    return { format: noGold ? 'no_gold' : 'bad_question', ...none };
  }
  const { question, gold } = r.value;
  const record = doc ? renderDocument(doc, true) : '';
  return {
    format: 'valid',
    question: question.text,
    gold,
    value: question.oracleValue,
    goldCorrect: question.oracleValue === gold,
    leak: handsOverAnswer(question.expr, gold),
    copy: doc !== null && record.split(/[;=]/).includes(question.text),
    grounded: doc !== null && doc.statements.some((s) => s.value === gold),
    ops: countOps(question.expr),
  };
}

/** Gold questions drawn per document for the leak flag's base rate. */
export const LEAK_BASE_DRAWS = 4;

/**
 * The leak flag's base rate for a step's documents: the share of the world's own gold questions of
 * those documents (goldQuestion, what pretraining taught) that the flag calls leaks. A challenger
 * leaking at this rate does nothing the base's format does not. Drawn with its own generator,
 * seeded by (seed, step), so the loop's draws and a resumed run are untouched.
 */
export function leakBaseRate(docs: readonly Document[], seed: number, step: number): number {
  const rng = makeRng(((seed * 0x2545f491) ^ (step * 0x9e3779b1) ^ 0x1eac) >>> 0);
  let leaks = 0, n = 0;
  for (const d of docs) {
    if (!d.statements.some((s) => s.expr.kind === 'op')) continue;
    for (let i = 0; i < LEAK_BASE_DRAWS; i++) {
      const { question, gold } = goldQuestion(rng, d);
      if (handsOverAnswer(question.expr, gold)) leaks++;
      n++;
    }
  }
  return n ? leaks / n : NaN;
}
