// SPICE's cross-play matrix (the paper's Figure 3): the reasoner of checkpoint i answering the
// questions the challenger of checkpoint j writes, on the same documents. Each checkpoint writes
// one question per document with the same sampling seed, so the columns differ only by the
// challenger's parameters; each reasoner answers every valid question K times, graded against
// that question's gold. A rising column (later reasoners, fixed challenger) is the reasoner
// improving; a falling row (later challengers, fixed reasoner) is the challenger getting harder.
import { answerOf } from '../../eval/score';
import { countedRng } from '../../util/rng';
import { challengePrompt, EOS, responseText, solvePrompt } from '../../world/index';
import type { LoopEngine } from '../engine';
import type { CrossPlayOptions, CrossPlayResult } from '../spec';
import type { SpiceConfig } from './config';
import { corpusDocuments, usableDocuments } from './corpus';
import { diagnoseQuestion } from './logic';

export interface Snapshot {
  step: number;
  params: Float32Array;
}

export async function crossPlay(
  c: SpiceConfig, snapshots: readonly Snapshot[], engineFor: (params: Float32Array) => Promise<LoopEngine>, o: CrossPlayOptions,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<CrossPlayResult> {
  if (snapshots.length === 0) throw new Error('cross-play needs at least one checkpoint');
  const total = 2 * snapshots.length;
  let done = 0;
  const sampling = (task: number, maxNew: number) => ({ seed: (o.seed * 7919 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew });
  const corpus = corpusDocuments(c);
  const questions: { text: string; gold: number }[][] = [];
  let docs: number[] | null = null;
  for (const s of snapshots) {
    const engine = await engineFor(s.params);
    try {
      if (!docs) {
        const usable = usableDocuments(corpus, engine.cfg.nPositions, 'cross-play');
        const rand = countedRng(o.seed ^ 0x2545f491, 0);
        docs = Array.from({ length: o.documents }, () => usable[Math.floor(rand() * usable.length)]);
      }
      const out = await engine.rollout(docs.map((d) => ({ prompt: challengePrompt(corpus[d]), payload: d })), { groupSize: 1, role: 'challenge', dataType: 'challenge', groupIdBase: 0, ...sampling(0, c.maxQuestionTokens) }, (_d, r) => ({ reward: 0, text: responseText(r).text }));
      questions.push(out.flatMap((t) => {
        const q = diagnoseQuestion(t.text, responseText(t.responseTokens).ended, corpus[t.payload]);
        return q.format === 'valid' ? [{ text: q.question as string, gold: q.gold as number }] : [];
      }));
    } finally {
      engine.destroy();
    }
    onProgress(++done, total);
  }
  const passRate: (number | null)[][] = [];
  for (const s of snapshots) {
    const engine = await engineFor(s.params);
    const row: (number | null)[] = [];
    try {
      for (const qs of questions) {
        if (qs.length === 0) {
          row.push(null);
          continue;
        }
        const out = await engine.rollout(qs.map((q) => ({ prompt: solvePrompt(q.text), payload: q.gold })), { groupSize: o.answers, role: 'solve', dataType: 'solve', groupIdBase: 0, ...sampling(1, c.maxNewTokens) }, (gold, r) => {
          const { answer, text } = answerOf(r);
          return { reward: answer === gold ? 1 : 0, text };
        });
        row.push(out.reduce((a, t) => a + t.reward, 0) / out.length);
      }
    } finally {
      engine.destroy();
    }
    passRate.push(row);
    onProgress(++done, total);
  }
  return { steps: snapshots.map((s) => s.step), passRate, valid: questions.map((q) => q.length), documents: o.documents, answers: o.answers };
}
