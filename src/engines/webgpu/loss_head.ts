// The RL loss as a GPT loss head: owns the per-batch inputs of shaders/pg_loss.wgsl (old and
// reference log-probs, advantages, aggregation weights) and its statistics buffer. Usage:
//   const head = makePgLossHead(gpu, { B, T }, pgHyperOf(cfg, hasRef));
//   const model = await GPT.create(gpu, gptCfg, init, { B, T }, { lossHead: head.lossHead });
//   per mini-batch: model.setBatch(p.tokens, p.targets); head.setBatch(p); model.step();
//   metrics after the step: await head.readMetrics()  (one readback of B×PG_NSTATS floats)
import { GpuError, view, type Gpu, type TensorRef } from '../../gpu/runtime';
import { pgLoss, type PgLoss } from '../../gpu/ops/pg';
import { checkPgHyper, pgMetrics, PG_NSTATS, type PgHyper, type PgMetrics } from '../../rl/hyper';
import type { LossHead } from '../../model/gpt';
import type { PackedBatch } from '../../rl/trajectory';

export type PgBatchInputs = Pick<PackedBatch, 'B' | 'T' | 'oldLogp' | 'refLogp' | 'adv' | 'coef'>;

export interface PgLossHead {
  /** pass to GPT.create; records the pg_loss dispatch between the softmax statistics and the gradient */
  readonly lossHead: LossHead;
  /** f32 (B, PG_NSTATS), written by every forward */
  readonly stats: TensorRef;
  /** Uploads one mini-batch's inputs; without refLogp the KL is neither measured nor penalised. */
  setBatch(batch: PgBatchInputs): void;
  /** New loss scalars (e.g. a schedule); applies from the next forward. */
  setHyper(h: PgHyper): void;
  /** Metrics of the last forward (pre-update parameters of that step). */
  readMetrics(): Promise<PgMetrics>;
  /** The raw per-row statistics of the last forward, f32 (B, PG_NSTATS) (micro-batches add up). */
  readStats(): Promise<Float32Array>;
  /** Metrics of concatenated per-row statistics (several micro-batches of one update). */
  metricsOf(stats: Float32Array, rows: number): PgMetrics;
}

export function makePgLossHead(gpu: Gpu, dims: { B: number; T: number }, hyper: PgHyper): PgLossHead {
  const { B, T } = dims;
  if (!Number.isInteger(B) || !Number.isInteger(T) || B < 1 || T < 1) throw new GpuError(`makePgLossHead: bad dims B=${B} T=${T}`);
  checkPgHyper(hyper, 'makePgLossHead');
  const BT = B * T;
  const buf = (n: number, label: string): TensorRef => view(gpu.createBuffer(n * 4, label), 0, n);
  const inputs = { oldLogp: buf(BT, 'pg.oldLogp'), refLogp: buf(BT, 'pg.refLogp'), adv: buf(BT, 'pg.adv'), coef: buf(BT, 'pg.coef') };
  const stats = buf(B * PG_NSTATS, 'pg.stats');
  let base = hyper;
  let hasRef: boolean | null = null; // null until the first batch says whether it has a reference
  // one pg_loss op per sequence length the model records (it writes B×Tb prefixes of the inputs)
  const ops = new Map<number, PgLoss>();
  let owner: object | null = null; // the batch buffers of the model this head is recorded into
  const effective = (): PgHyper => (hasRef === false ? { ...base, klType: null } : base);

  const lossHead: LossHead = async (g, batch, Tb) => {
    if (g !== gpu) throw new GpuError('makePgLossHead: the model runs on another device than the loss head');
    if (owner !== null && owner !== batch) throw new GpuError('makePgLossHead: this head is already recorded into a model; make one head per model');
    if (ops.has(Tb) || Tb > T) throw new GpuError(`makePgLossHead: length ${Tb} is recorded already or exceeds the head's T = ${T}`);
    owner = batch;
    const op = await pgLoss(gpu, { w: batch.w, e: batch.e, stats }, { logp: batch.logp, entropy: batch.entropy, ...inputs }, { B, T: Tb }, effective());
    ops.set(Tb, op);
    return op.dispatches;
  };

  return {
    lossHead,
    stats,
    setBatch(p) {
      if (p.B !== B || !ops.has(p.T)) throw new GpuError(`pg loss head: batch is [${p.B}, ${p.T}], the head was recorded for B = ${B} and T in ${[...ops.keys()].join(', ')}`);
      const n = B * p.T;
      for (const [name, a] of [['oldLogp', p.oldLogp], ['adv', p.adv], ['coef', p.coef], ['refLogp', p.refLogp ?? p.coef]] as const) {
        if (a.length !== n) throw new GpuError(`pg loss head: ${name} has ${a.length} entries, needs B*T = ${n}`);
      }
      const h = p.refLogp !== null ? base : { ...base, klType: null };
      checkPgHyper(h, 'pg loss head');
      hasRef = p.refLogp !== null;
      gpu.write(inputs.oldLogp, p.oldLogp);
      gpu.write(inputs.adv, p.adv);
      gpu.write(inputs.coef, p.coef);
      if (p.refLogp) gpu.write(inputs.refLogp, p.refLogp);
      for (const op of ops.values()) op.setHyper(h);
    },
    setHyper(h) {
      checkPgHyper(h, 'pg loss head');
      base = h;
      // β > 0 over a last batch without refLogp (β raised mid-run): the next setBatch, which must
      // bring refLogp, applies it; the kernel keeps its current scalars until then
      if (hasRef === false && h.beta > 0) return;
      for (const op of ops.values()) op.setHyper(effective());
    },
    async readMetrics() {
      return pgMetrics(await gpu.readF32(stats), B, effective());
    },
    readStats() {
      return gpu.readF32(stats);
    },
    metricsOf(all, rows) {
      return pgMetrics(all, rows, effective());
    },
  };
}
