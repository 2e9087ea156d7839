// Rows both engines' frozen policies (src/engines/*/frozen_policy.ts) run their forward on, and
// how log π_ref and embeddings are read back out of it. Positions agree with packBatch
// (trajectory.ts): row b holds tokens s[t] and targets s[t + 1] of s = prompt ++ response, so
// response token j is the target of position P − 1 + j.
import { PAD } from '../world/tokenizer';
import type { Trajectory } from './trajectory';

export type WithRefLogp<Tr extends Trajectory> = Tr & { refLogp: Float32Array };

/** Token and target rows (B, T) of `trajs`, laid out as packBatch lays them; rows past them are padding. */
export function referenceRows(trajs: readonly Trajectory[], dims: { B: number; T: number }, padToken = PAD): { tokens: Uint32Array; targets: Uint32Array } {
  const { B, T } = dims;
  if (trajs.length > B) throw new Error(`reference: ${trajs.length} trajectories do not fit B = ${B} rows`);
  const tokens = new Uint32Array(B * T).fill(padToken);
  const targets = new Uint32Array(B * T).fill(padToken);
  trajs.forEach((tr, b) => {
    const P = tr.promptTokens.length;
    const R = tr.responseTokens.length;
    if (P < 1) throw new Error(`reference: trajectory ${b} has an empty prompt`);
    if (P + R - 1 > T) throw new Error(`reference: trajectory ${b} needs ${P + R - 1} positions, the reference has T = ${T}`);
    const tok = (t: number): number => (t < P ? tr.promptTokens[t] : tr.responseTokens[t - P]);
    const row = b * T;
    for (let t = 0; t < Math.min(P + R, T); t++) tokens[row + t] = tok(t);
    for (let t = 0; t < P + R - 1; t++) targets[row + t] = tok(t + 1);
  });
  return { tokens, targets };
}

/** `trajs` with refLogp read from per-position log-probs (rows of length T) of their referenceRows. */
export function withReferenceLogp<Tr extends Trajectory>(trajs: readonly Tr[], logp: ArrayLike<number>, T: number): WithRefLogp<Tr>[] {
  return trajs.map((tr, b) => {
    const P = tr.promptTokens.length;
    const R = tr.responseTokens.length;
    const refLogp = new Float32Array(R);
    for (let j = 0; j < R; j++) refLogp[j] = logp[b * T + P - 1 + j];
    return { ...tr, refLogp };
  });
}

/** Token rows (B, T) of sequences, padded; targets are the padding (only hidden states are read). */
export function embedRows(seqs: readonly (readonly number[])[], dims: { B: number; T: number }, padToken = PAD): Uint32Array {
  const { B, T } = dims;
  if (seqs.length > B) throw new Error(`embed: ${seqs.length} sequences do not fit B = ${B} rows`);
  const tokens = new Uint32Array(B * T).fill(padToken);
  seqs.forEach((s, b) => {
    if (s.length < 1 || s.length > T) throw new Error(`embed: sequence ${b} has ${s.length} tokens; 1..${T} fit`);
    tokens.set(s, b * T);
  });
  return tokens;
}

/** Each sequence's mean of the hidden states [B, T, C] over its own positions. */
export function meanPool(hidden: ArrayLike<number>, seqs: readonly (readonly number[])[], T: number, C: number): Float32Array[] {
  return seqs.map((s, b) => {
    const out = new Float64Array(C);
    for (let t = 0; t < s.length; t++) for (let c = 0; c < C; c++) out[c] += hidden[(b * T + t) * C + c];
    return Float32Array.from(out, (x) => x / s.length);
  });
}
