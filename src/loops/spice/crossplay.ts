// SPICE's cross-play matrix (the paper's Figure 3): the reasoner of checkpoint i answering the
// questions the challenger of checkpoint j writes, from the same prompts. Each checkpoint writes
// one question per document with the same sampling seed, so the columns differ only by the
// challenger's parameters. The prompts are the run's own: the document's worked record, or
// nothing when the run was the no-corpus ablation. Each reasoner answers every valid question K
// times, and the same answers are graded twice: against the challenger's gold (the run's reward)
// and against the question's true value (the interpreter, an oracle the run never rewards). The
// challenger's gold is often wrong, so only the second says whether the reasoner improved at
// arithmetic rather than at agreeing with the challenger. A rising column (later reasoners, fixed
// challenger) is the reasoner improving; a falling row (later challengers, fixed reasoner) is
// the challenger getting harder.
import { answerOf } from '../../eval/score';
import { countedRng } from '../../util/rng';
import { EOS, responseText, solvePrompt } from '../../world/index';
import type { CrossPlayEngineFor, CrossPlayOptions, CrossPlayResult } from '../spec';
import type { SpiceConfig } from './config';
import { challengerPrompt, corpusDocuments, usableDocuments } from './corpus';
import { diagnoseQuestion } from './logic';

export interface Snapshot {
  step: number;
  params: Float32Array;
}

interface Question {
  text: string;
  gold: number;
  value: number;
}

export async function crossPlay(
  c: SpiceConfig, snapshots: readonly Snapshot[], engineFor: CrossPlayEngineFor, o: CrossPlayOptions,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<CrossPlayResult> {
  if (snapshots.length === 0) throw new Error('cross-play needs at least one checkpoint');
  // the challenger writes one question per document, the reasoner answers each `answers` times (up to 16 questions at once)
  const decodeBatch = Math.min(64, Math.max(o.documents, o.answers * Math.min(o.documents, 16)));
  const total = 2 * snapshots.length;
  let done = 0;
  const sampling = (task: number, maxNew: number) => ({ seed: (o.seed * 7919 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew });
  const corpus = corpusDocuments(c);
  // what the challenger saw in the run: the document, or nothing (the no-corpus ablation)
  const shown = (d: number) => (c.useCorpus ? corpus[d] : null);
  const questions: Question[][] = [];
  let docs: number[] | null = null;
  for (const s of snapshots) {
    const engine = await engineFor(s.params, decodeBatch);
    try {
      if (!docs) {
        const usable = usableDocuments(corpus, engine.cfg.nPositions, 'cross-play');
        const rand = countedRng(o.seed ^ 0x2545f491, 0);
        docs = Array.from({ length: o.documents }, () => usable[Math.floor(rand() * usable.length)]);
      }
      const out = await engine.rollout(docs.map((d) => ({ prompt: challengerPrompt(shown(d)), payload: d })), { groupSize: 1, role: 'challenge', dataType: 'challenge', groupIdBase: 0, ...sampling(0, c.maxQuestionTokens) }, (_d, r) => ({ reward: 0, text: responseText(r).text }));
      questions.push(out.flatMap((t) => {
        const q = diagnoseQuestion(t.text, responseText(t.responseTokens).ended, shown(t.payload));
        return q.format === 'valid' ? [{ text: q.question as string, gold: q.gold as number, value: q.value as number }] : [];
      }));
    } finally {
      engine.destroy();
    }
    onProgress(++done, total);
  }
  const byGold: (number | null)[][] = [];
  const byValue: (number | null)[][] = [];
  for (const s of snapshots) {
    const engine = await engineFor(s.params, decodeBatch);
    const gold: (number | null)[] = [];
    const value: (number | null)[] = [];
    try {
      for (const qs of questions) {
        if (qs.length === 0) {
          gold.push(null);
          value.push(null);
          continue;
        }
        // the reward (by gold) is what the rollout reports; the true value is read off the same answers
        const out = await engine.rollout(qs.map((q) => ({ prompt: solvePrompt(q.text), payload: q })), { groupSize: o.answers, role: 'solve', dataType: 'solve', groupIdBase: 0, ...sampling(1, c.maxNewTokens) }, (q, r) => {
          const { answer, text } = answerOf(r);
          return { reward: answer === q.gold ? 1 : 0, text };
        });
        gold.push(out.reduce((a, t) => a + t.reward, 0) / out.length);
        value.push(out.reduce((a, t) => a + (answerOf(t.responseTokens).answer === t.payload.value ? 1 : 0), 0) / out.length);
      }
    } finally {
      engine.destroy();
    }
    byGold.push(gold);
    byValue.push(value);
    onProgress(++done, total);
  }
  return {
    steps: snapshots.map((s) => s.step), passRate: { gold: byGold, value: byValue },
    valid: questions.map((q) => q.length), documents: o.documents, answers: o.answers, withDocuments: c.useCorpus,
  };
}
