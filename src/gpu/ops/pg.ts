// The policy-gradient loss head: per-token weights w = ∂L/∂log π and e = ∂L/∂H of the RL loss,
// computed on the GPU from the current log π (the ratio changes across epochs, so no readback).
// Twin of shaders/pg_loss.wgsl; CPU reference pgLossRef in src/reference/pg.ts.
import { Gpu, GpuError, requireElems, packParams, u32, f32, type Dispatch, type TensorRef } from '../runtime';
import { grid1d } from './grid';

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
    throw new GpuError(`${where}: ${msg}`);
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

const KL_CODE: Readonly<Record<KlType, number>> = { k1: 1, k2: 2, k3: 3 };

function pgParams(B: number, T: number, h: PgHyper): ArrayBuffer {
  checkPgHyper(h);
  return packParams(
    u32(B), u32(T),
    f32(h.epsLow), f32(h.epsHigh), f32(h.dualClipC ?? 0),
    f32(h.beta), u32(h.klType === null ? 0 : KL_CODE[h.klType]), f32(h.klClamp),
    f32(h.entCoef), u32(h.ratioLevel === 'sequence' ? 1 : 0),
  );
}

export interface PgLossOutputs {
  w: TensorRef; // (B, T) ∂L/∂logp, overwritten
  e: TensorRef; // (B, T) ∂L/∂H, overwritten
  stats: TensorRef; // (B, PG_NSTATS) per-sequence partial sums, overwritten
}

export interface PgLossInputs {
  logp: TensorRef; // (B, T) log π_θ(y_t) of the current parameters
  entropy: TensorRef; // (B, T) H_t of the current parameters (metrics only)
  oldLogp: TensorRef; // (B, T) log π_old(y_t) recorded at sampling
  refLogp: TensorRef; // (B, T) log π_ref(y_t); unread when klType is null
  adv: TensorRef; // (B, T) A_t
  coef: TensorRef; // (B, T) aggregation weight c_t ≥ 0; 0 = not in the loss
}

export interface PgLoss {
  dispatches: Dispatch[];
  /** Rewrites the uniform; takes effect from the next run of the dispatches. */
  setHyper(h: PgHyper): void;
}

/** Smallest power of two ≥ T in [32, 256]: short sequences need no idle invocations. */
function workgroupFor(T: number): number {
  let wg = 32;
  while (wg < T && wg < 256) wg *= 2;
  return wg;
}

/** Records the loss head: one workgroup per sequence (the sequence-level ratio couples its tokens). */
export async function pgLoss(gpu: Gpu, out: PgLossOutputs, inp: PgLossInputs, dims: { B: number; T: number }, hyper: PgHyper): Promise<PgLoss> {
  const { B, T } = dims;
  if (!Number.isInteger(B) || !Number.isInteger(T) || B < 1 || T < 1) throw new GpuError(`pgLoss: bad dims B=${B} T=${T}`);
  const BT = B * T;
  for (const [ref, what] of [[out.w, 'w'], [out.e, 'e'], ...(Object.entries(inp) as [string, TensorRef][]).map(([k, r]) => [r, k] as const)] as const) need(ref, BT, what);
  need(out.stats, B * PG_NSTATS, 'stats');
  const params = gpu.uniform(pgParams(B, T, hyper), 'pg_loss.params');
  const dispatch = await gpu.kernel(
    'pg_loss',
    [out.w, out.e, out.stats, inp.logp, inp.entropy, inp.oldLogp, inp.refLogp, inp.adv, inp.coef, params],
    grid1d(B, 1),
    { WG: workgroupFor(T) },
  );
  return { dispatches: [dispatch], setHyper: (h) => gpu.write(params, pgParams(B, T, h)) };
}

const need = (ref: TensorRef, elems: number, what: string): void => requireElems('pgLoss', what, ref, elems);
