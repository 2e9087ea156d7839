// The RL vocabulary both engines speak: the scalars of the policy-gradient loss (PgHyper) and of
// AdamW, the per-sequence statistics the loss head sums (PG_STATS) and their reduction to the
// metrics a step logs. The WGSL loss head (src/gpu/ops/pg.ts), its float64 reference
// (src/reference/pg.ts) and both engines' trainers read these; nothing here touches a device.
import { ConfigError } from '../util/errors';

export type KlType = 'k1' | 'k2' | 'k3';
export type RatioLevel = 'token' | 'sequence';

/** The scalars of the loss; all of them travel in the kernel's uniform. */
export interface PgHyper {
  /** ε_low: with A < 0, a ratio below 1 − ε_low is clipped (zero gradient) */
  epsLow: number;
  /** ε_high: with A > 0, a ratio above 1 + ε_high is clipped */
  epsHigh: number;
  /** dual clip c > 1: with A < 0 the surrogate is capped at −c·A; null = off */
  dualClipC: number | null;
  /** KL estimator to the frozen reference; null = no reference (KL neither measured nor penalised) */
  klType: KlType | null;
  /** KL coefficient β ≥ 0; must be 0 when klType is null */
  beta: number;
  /** δ = refLogp − logp is clamped to ±klClamp before the estimator */
  klClamp: number;
  /** entropy bonus: L gets −entCoef·Σ c·H */
  entCoef: number;
  /** 'sequence': one ratio per sequence, exp of the mean token log-ratio (GSPO) */
  ratioLevel: RatioLevel;
}

/** Per-sequence partial sums in stats[b, :] (c = aggregation weight, M = c > 0). */
export const PG_STATS = {
  pg: 0, // Σ c·ℓ
  kl: 1, // Σ c·KL
  ent: 2, // Σ c·H
  tokens: 3, // Σ M
  clipLow: 4, // count of A < 0, ρ < 1 − ε_low
  clipHigh: 5, // count of A > 0, ρ > 1 + ε_high
  clipDual: 6, // count of A < 0, ρ > c (dual clip)
  klTok: 7, // Σ M·KL
  entTok: 8, // Σ M·H
  ratioTok: 9, // Σ M·ρ
} as const;
export const PG_NSTATS = 10;

/** Metrics of one loss evaluation; clip ratios and means are token means over the counted tokens. */
export interface PgMetrics {
  /** L = pg + β·kl − entCoef·entropy, the aggregated loss */
  loss: number;
  'loss/pg': number;
  'loss/kl': number;
  'loss/entropy': number;
  'clip_ratio/low_mean': number;
  'clip_ratio/high_mean': number;
  'clip_ratio/region_mean': number;
  'clip_ratio/dual_mean': number;
  kl: number;
  entropy: number;
  'ratio/mean': number;
  tokens: number;
}

/** Reduces stats[B, PG_NSTATS] (from the GPU or the reference) to the metrics. */
export function pgMetrics(stats: ArrayLike<number>, B: number, h: PgHyper): PgMetrics {
  const sum = new Float64Array(PG_NSTATS);
  for (let b = 0; b < B; b++) for (let s = 0; s < PG_NSTATS; s++) sum[s] += stats[b * PG_NSTATS + s];
  const S = PG_STATS;
  const n = Math.max(sum[S.tokens], 1);
  return {
    loss: sum[S.pg] + h.beta * sum[S.kl] - h.entCoef * sum[S.ent],
    'loss/pg': sum[S.pg],
    'loss/kl': sum[S.kl],
    'loss/entropy': sum[S.ent],
    'clip_ratio/low_mean': sum[S.clipLow] / n,
    'clip_ratio/high_mean': sum[S.clipHigh] / n,
    'clip_ratio/region_mean': (sum[S.clipLow] + sum[S.clipHigh]) / n,
    'clip_ratio/dual_mean': sum[S.clipDual] / n,
    kl: sum[S.klTok] / n,
    entropy: sum[S.entTok] / n,
    'ratio/mean': sum[S.ratioTok] / n,
    tokens: sum[S.tokens],
  };
}

/** Throws a message saying what to change when the scalars are out of range. */
export function checkPgHyper(h: PgHyper, where = 'pg loss'): void {
  const bad = (msg: string): never => {
    throw new ConfigError(`${where}: ${msg}`);
  };
  if (!(h.epsLow >= 0 && h.epsLow < 1)) bad(`epsLow = ${h.epsLow}: must be in [0, 1)`);
  if (!(h.epsHigh >= 0 && Number.isFinite(h.epsHigh))) bad(`epsHigh = ${h.epsHigh}: must be a finite number ≥ 0`);
  if (h.dualClipC !== null && !(h.dualClipC > 1 && Number.isFinite(h.dualClipC))) bad(`dualClipC = ${h.dualClipC}: must be > 1 (3 in the papers) or null`);
  if (!(h.beta >= 0 && Number.isFinite(h.beta))) bad(`beta = ${h.beta}: must be a finite number ≥ 0`);
  if (h.klType === null && h.beta !== 0) bad(`beta = ${h.beta} needs reference log-probs (klType is null): supply refLogp or set beta to 0`);
  if (!(h.klClamp > 0)) bad(`klClamp = ${h.klClamp}: must be > 0`);
  if (!Number.isFinite(h.entCoef)) bad(`entCoef = ${h.entCoef}: must be finite`);
  if (h.ratioLevel !== 'token' && h.ratioLevel !== 'sequence') bad(`ratioLevel = ${String(h.ratioLevel)}: must be 'token' or 'sequence'`);
}

/** The optimiser's scalars; the GPU kernel reads them from its uniform, the reference directly. */
export interface AdamWHyper {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** global-norm clipping threshold; 0 = no clipping */
  maxGradNorm: number;
  /** t, 1-based, for bias correction */
  step: number;
}
