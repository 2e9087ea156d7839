// The frozen policy of the KL penalty, π_ref in LOOPS.md §0 (β > 0): a forward-only copy of the
// policy's parameters at the start of a run, never updated. Once per RL step, outside the
// training step, `annotate` gives every trajectory log π_ref of each response token (refLogp),
// which packBatch packs and the pg_loss head turns into the k1/k2/k3 KL estimate.
// Its rows are laid out by src/rl/reference_rows.ts, as the CPU engine's are.
// The log-probs are taken at the trainer's temperature (setTemperature), like its log π.
import type { Gpu } from '../../gpu/runtime';
import { GPT, lengthBuckets } from '../../model/gpt';
import type { GPTConfig } from '../../model/config';
import { PAD } from '../../world/tokenizer';
import { lengthOrder, positionsOf, type Trajectory } from '../../rl/trajectory';
import { embedRows, meanPool, referenceRows, withReferenceLogp, type WithRefLogp } from '../../rl/reference_rows';

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
