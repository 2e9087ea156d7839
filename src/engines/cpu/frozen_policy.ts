// The frozen policy (π_ref of the KL term) of the CPU engine: the WebGPU engine's FrozenPolicy
// (src/engines/webgpu/frozen_policy.ts) on the float64 whole-model reference forward
// (gptForwardRef), the one CpuTrainer computes log π with. A copy of the base parameters taken
// at construction, never updated.
import type { GPTConfig } from '../../model/config';
import { buildTensorTable, type TensorTable } from '../../model/params';
import { gptForwardRef } from '../../reference/gpt';
import { embedRows, meanPool, referenceRows, withReferenceLogp, type WithRefLogp } from '../../rl/reference_rows';
import { PAD } from '../../world/tokenizer';
import type { Trajectory } from '../../rl/trajectory';
import { breathe } from '../../util/breathe';

export class CpuFrozenPolicy {
  private readonly table: TensorTable;
  private readonly params: Float64Array;

  /** `temperature` must be the trainer's; `rows`: trajectories per forward. */
  constructor(readonly cfg: GPTConfig, base: ArrayLike<number>, private temperature: number, readonly rows = 16) {
    this.table = buildTensorTable(cfg);
    if (base.length !== this.table.totalFloats) throw new Error(`CPU reference: parameter data has ${base.length} floats, the table needs ${this.table.totalFloats}`);
    if (!Number.isInteger(rows) || rows < 1) throw new Error(`CPU reference: rows = ${rows} must be a positive integer`);
    this.params = Float64Array.from(base);
  }

  setTemperature(t: number): void {
    this.temperature = t;
  }

  /** `trajs` with refLogp set, chunks of at most `rows` trajectories (causal: each chunk only as long as it needs). */
  async annotate<Tr extends Trajectory>(trajs: readonly Tr[]): Promise<WithRefLogp<Tr>[]> {
    const out: WithRefLogp<Tr>[] = [];
    for (let i = 0; i < trajs.length; i += this.rows) {
      const chunk = trajs.slice(i, i + this.rows);
      const B = chunk.length;
      const T = Math.max(1, ...chunk.map((tr) => tr.promptTokens.length + tr.responseTokens.length - 1));
      const { tokens, targets } = referenceRows(chunk, { B, T });
      const fw = gptForwardRef(this.cfg, this.table, this.params, { B, T, tokens, targets, w: new Float64Array(B * T), temperature: this.temperature });
      out.push(...withReferenceLogp(chunk, fw.logp, T));
      await breathe();
    }
    return out;
  }

  /** Text embeddings: each sequence's mean of the final hidden states (after ln_f) of this frozen policy. */
  async embed(seqs: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < seqs.length; i += this.rows) {
      const chunk = seqs.slice(i, i + this.rows);
      const B = chunk.length;
      const T = Math.max(...chunk.map((s) => s.length));
      const tokens = embedRows(chunk, { B, T });
      const fw = gptForwardRef(this.cfg, this.table, this.params, { B, T, tokens, targets: new Uint32Array(B * T).fill(PAD), w: new Float64Array(B * T), temperature: this.temperature });
      out.push(...meanPool(fw.lnf, chunk, T, this.cfg.nEmbd));
      await breathe();
    }
    return out;
  }
}
