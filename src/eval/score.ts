// Reads sampled solve responses back into answers: pure, so the rule that decides what counts
// as correct is tested on the CPU without a model.
import { extractAnswer, responseText } from '../world';

/** What a decoder returns for a batch, as far as scoring needs it (see src/model/decoder.ts). */
export interface SampledBatch {
  tokens: Uint32Array; // (B, Tmax)
  entropy: Float32Array; // (B, Tmax)
  promptLen: readonly number[];
  responseLen: readonly number[];
  finished: readonly boolean[];
}

export interface ScoredSample {
  /** the integer after the last '#' of a response that ended with EOS; null otherwise */
  answer: number | null;
  /** response tokens, EOS included */
  length: number;
  /** Σ of the sampling entropy over the response tokens */
  entropySum: number;
  truncated: boolean;
}

/**
 * The answer of a solve response (its tokens, EOS included if it ended): the integer after the
 * last '#', only when the response ended with EOS. The GRPO reward and evaluation share it.
 */
export function answerOf(ids: ArrayLike<number>): { answer: number | null; text: string } {
  const { text, ended } = responseText(ids);
  return { answer: ended ? extractAnswer(text) : null, text };
}

/**
 * Scores row b of a batch. A response cut at the token limit has no answer even if it shows
 * a '#': its last digits may be missing, so a match would be luck.
 */
export function scoreRow(batch: SampledBatch, Tmax: number, b: number): ScoredSample {
  const start = b * Tmax + batch.promptLen[b];
  const length = batch.responseLen[b];
  const ids = batch.tokens.subarray(start, start + length);
  let entropySum = 0;
  for (let t = 0; t < length; t++) entropySum += batch.entropy[start + t];
  const truncated = !batch.finished[b];
  const answer = truncated ? null : answerOf(ids).answer;
  return { answer, length, entropySum, truncated };
}
