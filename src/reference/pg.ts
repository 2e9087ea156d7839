// Float64 CPU reference of the policy-gradient loss head (shaders/pg_loss.wgsl, src/gpu/ops/pg.ts).
// L is computed from the literal formulas (min / clip / max), the weights from the closed-form
// derivatives, so a finite-difference test of L checks the weights independently.
import { checkPgHyper, pgMetrics, PG_NSTATS, PG_STATS, type PgHyper, type PgMetrics } from '../rl/hyper';

type Arr = ArrayLike<number>;

export interface PgRefInputs {
  logp: Arr; // (B, T) current log π(y_t)
  entropy: Arr; // (B, T) current H_t
  oldLogp: Arr; // (B, T)
  refLogp: Arr | null; // (B, T); required unless klType is null
  adv: Arr; // (B, T)
  coef: Arr; // (B, T) aggregation weights c_t ≥ 0; 0 = not in the loss
}

export interface PgRefResult {
  /** L = Σ c·(ℓ + β·KL) − entCoef·Σ c·H */
  loss: number;
  w: Float64Array; // (B, T) ∂L/∂logp
  e: Float64Array; // (B, T) ∂L/∂H
  stats: Float64Array; // (B, PG_NSTATS), as the kernel writes them
  metrics: PgMetrics;
}

/** ℓ = −min(ρA, clip(ρ, 1−εl, 1+εh)·A), capped at −c·A for A < 0 when the dual clip is on. */
export function surrogateRef(rho: number, A: number, h: PgHyper): number {
  const clipped = Math.min(Math.max(rho, 1 - h.epsLow), 1 + h.epsHigh);
  const l = -Math.min(rho * A, clipped * A);
  return h.dualClipC !== null && A < 0 ? Math.min(l, -h.dualClipC * A) : l;
}

/** Which clip is active (0 none, 1 low, 2 high, 3 dual): there ∂ℓ/∂ρ is exactly zero. */
export function clipKindRef(rho: number, A: number, h: PgHyper): number {
  if (A > 0 && rho > 1 + h.epsHigh) return 2;
  if (A < 0 && rho < 1 - h.epsLow) return 1;
  if (A < 0 && h.dualClipC !== null && rho > h.dualClipC) return 3;
  return 0;
}

/** [KL_t, ∂KL_t/∂logp_t] of the chosen estimator with δ = clamp(refLogp − logp, ±klClamp). */
export function klRef(lp: number, rl: number, h: PgHyper): [number, number] {
  if (h.klType === null) return [0, 0];
  const raw = rl - lp;
  const d = Math.min(Math.max(raw, -h.klClamp), h.klClamp);
  const s = Math.abs(raw) <= h.klClamp ? -1 : 0; // ∂δ/∂logp
  if (h.klType === 'k1') return [-d, -s];
  if (h.klType === 'k2') return [0.5 * d * d, d * s];
  const ed = Math.exp(d);
  return [ed - d - 1, (ed - 1) * s];
}

/** The loss, its per-token weights and the per-sequence statistics of a [B, T] batch. */
export function pgLossRef(x: PgRefInputs, dims: { B: number; T: number }, h: PgHyper): PgRefResult {
  checkPgHyper(h, 'pgLossRef');
  if (h.klType !== null && !x.refLogp) throw new Error('pgLossRef: klType is set but refLogp is null');
  const { B, T } = dims;
  const w = new Float64Array(B * T);
  const e = new Float64Array(B * T);
  const stats = new Float64Array(B * PG_NSTATS);
  const S = PG_STATS;
  const seq = h.ratioLevel === 'sequence';
  let loss = 0;
  for (let b = 0; b < B; b++) {
    const base = b * T;
    const st = stats.subarray(b * PG_NSTATS, (b + 1) * PG_NSTATS);
    let n = 0;
    let sumLogRatio = 0;
    for (let t = 0; t < T; t++) {
      if (x.coef[base + t] > 0) {
        n++;
        sumLogRatio += x.logp[base + t] - x.oldLogp[base + t];
      }
    }
    const rhoSeq = Math.exp(sumLogRatio / Math.max(n, 1));
    let seqGrad = 0; // Σ c·∂ℓ/∂log ρ_b
    for (let t = 0; t < T; t++) {
      const i = base + t;
      const c = x.coef[i];
      if (!(c > 0)) continue;
      const lp = x.logp[i];
      const A = x.adv[i];
      const rho = seq ? rhoSeq : Math.exp(lp - x.oldLogp[i]);
      const l = surrogateRef(rho, A, h);
      const kind = clipKindRef(rho, A, h);
      const dl = kind === 0 ? -A * rho : 0; // ∂ℓ/∂log ρ
      const [kl, dkl] = klRef(lp, x.refLogp ? x.refLogp[i] : 0, h);
      const H = x.entropy[i];
      w[i] = c * ((seq ? 0 : dl) + h.beta * dkl);
      e[i] = -h.entCoef * c;
      seqGrad += c * dl;
      loss += c * (l + h.beta * kl) - h.entCoef * c * H;
      st[S.pg] += c * l;
      st[S.kl] += c * kl;
      st[S.ent] += c * H;
      st[S.tokens] += 1;
      if (kind === 1) st[S.clipLow] += 1;
      if (kind === 2) st[S.clipHigh] += 1;
      if (kind === 3) st[S.clipDual] += 1;
      st[S.klTok] += kl;
      st[S.entTok] += H;
      st[S.ratioTok] += rho;
    }
    if (seq && n > 0) {
      for (let t = 0; t < T; t++) if (x.coef[base + t] > 0) w[base + t] += seqGrad / n;
    }
  }
  return { loss, w, e, stats, metrics: pgMetrics(stats, B, h) };
}
