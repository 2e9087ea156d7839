// The policy-gradient trainer of the CPU engine, src/engines/webgpu/trainer.ts step for step:
// advantages → filtering → μ epochs over mini-batches of packed trajectories, each one optimiser step. The
// GPU's fused step (forward, pg_loss head, backward, grad-norm clip, AdamW) is composed here from
// the float64 references: gptForwardRef, pgLossRef, softmaxLogpRef, gptBackwardRef, adamwRef.
import type { AdamWHyper } from '../../rl/hyper';
import type { PgHyper, PgMetrics } from '../../rl/hyper';
import type { OptimiserState } from '../../loops/events';
import { DEFAULT_ADAMW } from '../../model/gpt';
import { decayFlags } from '../../model/params';
import { constantNormOf, pgHyperOf, type RlCoreConfig } from '../../rl/config';
import { prepareUpdate, type TrainStats } from '../../rl/update';
import { packBatch, type PackedBatch, type Trajectory } from '../../rl/trajectory';
import { gptBackwardRef, gptForwardRef } from '../../reference/gpt';
import { softmaxLogpRef } from '../../reference/loss';
import { adamwRef, gradNormSqRef } from '../../reference/optim';
import { pgLossRef } from '../../reference/pg';
import { PAD } from '../../world/tokenizer';
import { breathe } from '../../util/breathe';
import { combineUpdateMetrics, type OptimiserStepMetrics } from '../../rl/update_metrics';
import type { CpuPolicy } from './policy';

export interface PgGradients {
  /** L = Σ c·(ℓ + β·KL) − entCoef·Σ c·H of the mini-batch */
  loss: number;
  metrics: PgMetrics;
  /** ∂L/∂params in the table's layout */
  grads: Float64Array;
  normSq: number;
  /** ∂L/∂logp per position (B, T): the pg head's weights */
  w: Float64Array;
}

/**
 * The RL loss of one packed mini-batch and its gradient, no update: log π and H at `temperature`
 * from the reference forward, the loss head's weights from pgLossRef, then dJ/dlogits for those
 * weights and the reference backward.
 */
export function pgGradients(policy: CpuPolicy, batch: PackedBatch, hyper: PgHyper, temperature: number): PgGradients {
  const { cfg, table, params } = policy;
  const { B, T } = batch;
  const BT = B * T;
  const ref = { B, T, tokens: batch.tokens, targets: batch.targets, w: new Float64Array(BT), temperature };
  const fw = gptForwardRef(cfg, table, params, ref);
  const pg = pgLossRef({ logp: fw.logp, entropy: fw.entropy, oldLogp: batch.oldLogp, refLogp: batch.refLogp, adv: batch.adv, coef: batch.coef }, { B, T }, hyper);
  softmaxLogpRef({ logp: fw.logp, entropy: fw.entropy, dlogits: fw.dlogits }, fw.logits, batch.targets, pg.w, pg.e, { R: BT, V: cfg.vocabSize }, { temperature });
  const grads = gptBackwardRef(cfg, table, params, ref, fw);
  return { loss: pg.loss, metrics: pg.metrics, grads, normSq: gradNormSqRef(grads), w: pg.w };
}

/** Positions a mini-batch needs: the causal model makes a row's log-probs independent of later padding. */
function positionsNeeded(mini: readonly Trajectory[]): number {
  return Math.max(1, ...mini.map((tr) => tr.promptTokens.length + tr.responseTokens.length - 1));
}

export class CpuTrainer {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private readonly flags: Uint32Array;
  private hyper: AdamWHyper = { ...DEFAULT_ADAMW };
  private stepCount = 0;

  /** `maxNewTokens`: the longest response, constant_norm's L_max unless the config sets one */
  constructor(readonly policy: CpuPolicy, private rl: RlCoreConfig, private maxNewTokens: number) {
    const n = policy.table.totalFloats;
    this.m = new Float64Array(n);
    this.v = new Float64Array(n);
    this.flags = decayFlags(policy.table);
    this.setRl(rl);
  }

  /** Safe mid-run changes (clip, KL β, entropy coefficient, temperature) apply from the next step. */
  setRl(rl: RlCoreConfig, maxNewTokens = this.maxNewTokens): void {
    pgHyperOf(rl, true); // throws what to change, as the GPU trainer's loss head does
    this.rl = rl;
    this.maxNewTokens = maxNewTokens;
    this.hyper = { ...this.hyper, maxGradNorm: rl.maxGradNorm };
  }

  setHyper(h: Partial<AdamWHyper>): void {
    this.hyper = { ...this.hyper, ...h };
  }

  get hyperparameters(): Readonly<AdamWHyper> {
    return this.hyper;
  }

  /** AdamW moments and step count, float32 like the GPU engine's (for checkpoints). */
  optimiserState(): OptimiserState {
    return { m: Float32Array.from(this.m), v: Float32Array.from(this.v), step: this.stepCount };
  }

  loadOptimiserState(s: OptimiserState): void {
    const n = this.m.length;
    if (s.m.length !== n || s.v.length !== n) throw new Error(`optimiser state has ${s.m.length} and ${s.v.length} floats, the policy has ${n}`);
    if (!Number.isSafeInteger(s.step) || s.step < 0) throw new Error(`optimiser state: step ${s.step} is not a step count`);
    this.m.set(s.m);
    this.v.set(s.v);
    this.stepCount = s.step;
  }

  /** One RL update on `trajs` (advantages computed here unless the estimator is external). */
  async train(trajs: readonly Trajectory[]): Promise<TrainStats> {
    const rl = this.rl;
    const { kept, stats } = prepareUpdate(trajs, rl);
    if (kept.length === 0) return stats;
    const perMini = Math.ceil(kept.length / rl.miniBatches);
    const parts: OptimiserStepMetrics[] = [];
    for (let epoch = 0; epoch < rl.epochs; epoch++) {
      for (let i = 0; i < kept.length; i += perMini) {
        const mini = kept.slice(i, i + perMini);
        const packed = packBatch(mini, {
          T: positionsNeeded(mini), aggregation: rl.aggregation, constantNormTokens: constantNormOf(rl, this.maxNewTokens), maskTruncated: rl.maskTruncated, seqMeanCount: rl.seqMeanCount, padToken: PAD,
        });
        // the KL estimator only with reference log-probs; β > 0 without them throws what to change (as the GPU head)
        const g = pgGradients(this.policy, packed, pgHyperOf(rl, packed.refLogp !== null), rl.temperature);
        this.stepCount++;
        const status = adamwRef(this.policy.params, this.m, this.v, g.grads, this.flags, g.normSq, { ...this.hyper, step: this.stepCount });
        if (status !== 0) stats.rejectedSteps++;
        stats.optimiserSteps++;
        parts.push({ ...g.metrics, grad_norm: Math.sqrt(g.normSq) });
        await breathe();
      }
    }
    stats.metrics = combineUpdateMetrics(parts, rl.epochs);
    return stats;
  }
}
