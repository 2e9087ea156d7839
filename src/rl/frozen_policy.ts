// The frozen policy of the KL penalty, π_ref in LOOPS.md §0 (β > 0): a forward-only copy of the
// policy's parameters at the start of a run, never updated. Once per RL step, outside the
// training step, `annotate` gives every trajectory log π_ref of each response token (refLogp),
// which packBatch packs and the pg_loss head turns into the k1/k2/k3 KL estimate.
//
// Positions agree with packBatch (src/rl/trajectory.ts): row b holds tokens s[t] and targets
// s[t + 1] of s = prompt ++ response, so response token j is the target of position P − 1 + j.
// The log-probs are taken at the trainer's temperature (setTemperature), like its log π.
import type { Gpu } from '../gpu/runtime';
import { GPT, lengthBuckets } from '../model/gpt';
import type { GPTConfig } from '../model/config';
import { PAD } from '../world/tokenizer';
import { lengthOrder, positionsOf, type Trajectory } from './trajectory';

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

export class FrozenPolicy {
  private constructor(private readonly model: GPT) {}

  /**
   * A frozen copy of `base` scoring at most `rows` sequences of ≤ T tokens per forward.
   * `temperature` must be the trainer's (log π_ref and log π are compared token by token).
   */
  static async create(gpu: Gpu, cfg: GPTConfig, base: Float32Array, shape: { rows: number; T: number }, temperature: number): Promise<FrozenPolicy> {
    // GPT.create copies `base` into its own buffer: later changes of the caller's array (or of
    // the policy) do not reach it, and nothing ever steps this model.
    const model = await GPT.create(gpu, cfg, base, { B: shape.rows, T: shape.T, lengths: lengthBuckets(shape.T) });
    model.setTemperature(temperature);
    return new FrozenPolicy(model);
  }

  get rows(): number {
    return this.model.B;
  }

  get T(): number {
    return this.model.T;
  }

  /** Follows the trainer's sampling temperature (a live change); applies from the next annotate. */
  setTemperature(t: number): void {
    this.model.setTemperature(t);
  }

  /**
   * `trajs` (in their order) with refLogp set: one forward and one readback per chunk of at most
   * `rows` trajectories, chunked shortest first (lengthOrder).
   */
  async annotate<Tr extends Trajectory>(trajs: readonly Tr[]): Promise<WithRefLogp<Tr>[]> {
    const { B } = this.model;
    const order = lengthOrder(trajs.map((tr) => positionsOf([tr])));
    const out = new Array<WithRefLogp<Tr>>(trajs.length);
    for (let i = 0; i < trajs.length; i += B) {
      const idx = order.slice(i, i + B);
      const chunk = idx.map((k) => trajs[k]);
      // the shortest recorded length that holds the chunk (referenceRows says when none does)
      const T = this.model.lengthFor(positionsOf(chunk));
      const rows = referenceRows(chunk, { B, T });
      this.model.setBatch(rows.tokens, rows.targets);
      this.model.forward();
      const logp = await this.model.gpu.readF32({ ...this.model.batch.logp, size: B * T * 4 });
      withReferenceLogp(chunk, logp, T).forEach((r, j) => (out[idx[j]] = r));
    }
    return out;
  }

  /**
   * Text embeddings: the mean over each sequence's positions of the final hidden states (after
   * ln_f) of this frozen policy, in the order of `seqs`: one forward and one readback per chunk
   * of at most `rows`, chunked shortest first (lengthOrder).
   */
  async embed(seqs: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const { B } = this.model;
    const order = lengthOrder(seqs.map((s) => s.length));
    const out = new Array<Float32Array>(seqs.length);
    for (let i = 0; i < seqs.length; i += B) {
      const idx = order.slice(i, i + B);
      const chunk = idx.map((k) => seqs[k]);
      const T = this.model.lengthFor(Math.max(...chunk.map((s) => s.length)));
      const tokens = embedRows(chunk, { B, T });
      this.model.setBatch(tokens, tokens.slice().fill(PAD));
      this.model.forward();
      meanPool(await this.model.readHidden(), chunk, T, this.model.cfg.nEmbd).forEach((e, j) => (out[idx[j]] = e));
    }
    return out;
  }

  /** Frees the reference's buffers. */
  destroy(): void {
    this.model.destroy();
  }
}
