// The float64 reference of the RL loss: weights checked by central finite differences of L
// (away from the clip and clamp kinks), hand-computed clip cases, and ρ ≡ 1 at μ = 1.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { mulberry32 } from '../helpers/rng';
import { pgLossRef, type PgRefInputs } from '../../src/reference/pg';
import type { KlType, PgHyper, RatioLevel } from '../../src/rl/hyper';

const base: PgHyper = { epsLow: 0.2, epsHigh: 0.28, dualClipC: null, klType: null, beta: 0, klClamp: 10, entCoef: 0, ratioLevel: 'token' };

/** Distance of ρ from every kink of the surrogate, relative. */
function kinkDistance(rho: number, h: PgHyper): number {
  const kinks = [1 - h.epsLow, 1 + h.epsHigh, ...(h.dualClipC ? [h.dualClipC] : [])];
  return Math.min(...kinks.map((k) => Math.abs(rho - k) / k));
}

/**
 * Random [B, T] inputs: rows of different lengths (a fully masked row included), masked holes,
 * log-ratios spanning both clips and the dual clip, some δ beyond the KL clamp. Values within
 * 1e-3 of a kink are redrawn so a central difference never straddles one.
 */
function randomInputs(seed: number, B: number, T: number, h: PgHyper): PgRefInputs {
  const rand = mulberry32(seed);
  const n = B * T;
  const x = { logp: new Float64Array(n), entropy: new Float64Array(n), oldLogp: new Float64Array(n), refLogp: new Float64Array(n), adv: new Float64Array(n), coef: new Float64Array(n) };
  for (let b = 0; b < B; b++) {
    const len = b === 1 ? 0 : Math.max(1, Math.floor(T * (0.3 + 0.7 * rand())));
    const offset = (rand() * 2 - 1) * 1.6; // per-row log-ratio shift so GSPO ratios span the clips too
    const A = rand() * 2 - 1;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      x.logp[i] = -0.1 - 3 * rand();
      x.entropy[i] = 2 * rand();
      x.adv[i] = rand() < 0.5 ? A : rand() * 2 - 1;
      x.coef[i] = t < len && rand() > 0.15 ? 0.05 + rand() * 0.1 : 0;
      const far = rand() < 0.1;
      x.refLogp[i] = x.logp[i] + (far ? (rand() < 0.5 ? -1 : 1) * (11 + 2 * rand()) : (rand() * 2 - 1) * 3);
      let lr: number;
      do lr = h.ratioLevel === 'sequence' ? (rand() * 2 - 1) * 0.3 : (rand() * 2 - 1) * 1.6;
      while (h.ratioLevel === 'token' && kinkDistance(Math.exp(lr), h) < 1e-3);
      x.oldLogp[i] = x.logp[i] - (h.ratioLevel === 'sequence' ? offset + lr : lr);
    }
    if (h.ratioLevel === 'sequence') nudgeRow(x, b, T, h);
  }
  return x;
}

/** Shifts a row's old log-probs until its sequence ratio is away from every kink. */
function nudgeRow(x: PgRefInputs & { oldLogp: Float64Array }, b: number, T: number, h: PgHyper): void {
  for (;;) {
    let s = 0, n = 0;
    for (let t = 0; t < T; t++) if (x.coef[b * T + t] > 0) (s += x.logp[b * T + t] - x.oldLogp[b * T + t]), n++;
    if (n === 0 || kinkDistance(Math.exp(s / n), h) >= 1e-3) return;
    for (let t = 0; t < T; t++) x.oldLogp[b * T + t] -= 3e-3;
  }
}

function finiteDiff(x: PgRefInputs, dims: { B: number; T: number }, h: PgHyper, field: 'logp' | 'entropy'): Float64Array {
  const arr = Float64Array.from(x[field]);
  const out = new Float64Array(arr.length);
  const eps = 1e-6;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    arr[i] = v + eps;
    const lp = pgLossRef({ ...x, [field]: arr }, dims, h).loss;
    arr[i] = v - eps;
    const lm = pgLossRef({ ...x, [field]: arr }, dims, h).loss;
    arr[i] = v;
    out[i] = (lp - lm) / (2 * eps);
  }
  return out;
}

describe('pgLossRef: weights are the derivatives of L (central differences, float64)', () => {
  const dims = { B: 8, T: 13 };
  const cases: [RatioLevel, KlType | null, number | null][] = [];
  for (const level of ['token', 'sequence'] as const) for (const kl of [null, 'k1', 'k2', 'k3'] as const) for (const dual of [null, 3]) cases.push([level, kl, dual]);

  it.each(cases)('ratio %s, KL %s, dual clip %s', (ratioLevel, klType, dualClipC) => {
    const h: PgHyper = { ...base, ratioLevel, klType, dualClipC, beta: klType ? 0.1 : 0, entCoef: 0.01 };
    const x = randomInputs(17 + cases.length, dims.B, dims.T, h);
    const r = pgLossRef(x, dims, h);
    // central differences in float64 with step 1e-6: truncation and rounding both below 1e-9
    expectClose('w vs dL/dlogp', r.w, finiteDiff(x, dims, h, 'logp'), { atol: 1e-8, rtol: 1e-6 });
    expectClose('e vs dL/dH', r.e, finiteDiff(x, dims, h, 'entropy'), { atol: 1e-8, rtol: 1e-6 });
    for (let i = 0; i < x.coef.length; i++) if (!(x.coef[i] > 0)) expect(r.w[i] === 0 && r.e[i] === 0).toBe(true);
    // the inputs really exercise the clips
    if (ratioLevel === 'token') expect(r.metrics['clip_ratio/low_mean'] * r.metrics['clip_ratio/high_mean']).toBeGreaterThan(0);
    if (ratioLevel === 'token' && dualClipC) expect(r.metrics['clip_ratio/dual_mean']).toBeGreaterThan(0);
    // sequence level: some rows clipped, some not
    if (ratioLevel === 'sequence') expect(r.metrics['clip_ratio/region_mean']).toBeGreaterThan(0);
    if (ratioLevel === 'sequence') expect(r.metrics['clip_ratio/region_mean'] + r.metrics['clip_ratio/dual_mean']).toBeLessThan(1);
  });

  it('sequence level couples the tokens: one token moves every weight of its row', () => {
    const h: PgHyper = { ...base, ratioLevel: 'sequence', epsLow: 0.9, epsHigh: 9 }; // clip out of the way
    const x = { logp: [-1, -2, -1.5], entropy: [0, 0, 0], oldLogp: [-1.1, -2, -1.4], refLogp: null, adv: [1, 1, 1], coef: [0.5, 0, 0.5] };
    const r = pgLossRef(x, { B: 1, T: 3 }, h);
    // ρ = exp(mean(0.1, −0.1)) = 1; L = Σ c·(−Aρ) = −ρ; dL/dlogp_t = −ρ·M_t/n = −0.5 on both counted tokens
    expect(r.loss).toBeCloseTo(-1, 12);
    expectClose('w', r.w, [-0.5, 0, -0.5], { atol: 1e-12, rtol: 0 });
  });
});

describe('pgLossRef: clipping by hand', () => {
  // five tokens of one row, coefficient 1 each (any aggregation would only scale them)
  const rho = [1.5, 0.5, 4, 0.5, 1.5];
  const A = [1, -1, -1, 1, -1];
  const x = { logp: rho.map(Math.log), entropy: [0, 0, 0, 0, 0], oldLogp: [0, 0, 0, 0, 0], refLogp: null, adv: A, coef: [1, 1, 1, 1, 1] };
  const dims = { B: 1, T: 5 };

  it('gradients are exactly zero where a clip is active, −A·ρ elsewhere', () => {
    const r = pgLossRef(x, dims, { ...base, dualClipC: 3 });
    // ρ=1.5,A=+1: clip high; ρ=.5,A=−1: clip low; ρ=4,A=−1: dual clip (c=3);
    // ρ=.5,A=+1 and ρ=1.5,A=−1 are inside the pessimistic bound: w = −A·ρ
    expect(Array.from(r.w)).toEqual([0, 0, 0, -0.5, 1.5]);
    // ℓ = −1.28, 0.8, 3, −0.5, 1.5
    expect(r.metrics['loss/pg']).toBeCloseTo(-1.28 + 0.8 + 3 - 0.5 + 1.5, 12);
    expect(r.metrics['clip_ratio/low_mean']).toBe(1 / 5);
    expect(r.metrics['clip_ratio/high_mean']).toBe(1 / 5);
    expect(r.metrics['clip_ratio/region_mean']).toBe(2 / 5);
    expect(r.metrics['clip_ratio/dual_mean']).toBe(1 / 5);
  });

  it('without the dual clip the large ratio with A < 0 keeps its gradient', () => {
    const r = pgLossRef(x, dims, base);
    expect(Array.from(r.w)).toEqual([0, 0, 4, -0.5, 1.5]);
    expect(r.metrics['loss/pg']).toBeCloseTo(-1.28 + 0.8 + 4 - 0.5 + 1.5, 12);
    expect(r.metrics['clip_ratio/dual_mean']).toBe(0);
  });
});

describe('pgLossRef: μ = 1 and one mini-batch make ρ ≡ 1 (the clip is inert)', () => {
  it('logp = oldLogp gives the plain policy gradient w = −c·A and no clipping', () => {
    // Whatever the advantages (far beyond any ε), the first and only update sees ρ = 1.
    const A = [5, -7, 0.3, -0.01, 2];
    const lp = [-0.2, -1.7, -3, -0.05, -9];
    const c = [0.2, 0.2, 0.2, 0.2, 0.2];
    for (const ratioLevel of ['token', 'sequence'] as const) {
      const r = pgLossRef({ logp: lp, entropy: [1, 1, 1, 1, 1], oldLogp: lp, refLogp: null, adv: A, coef: c }, { B: 1, T: 5 }, { ...base, ratioLevel, dualClipC: 3 });
      // token level: w_t = −c_t·A_t; sequence level the row shares ρ, so w_t = −Σ_s c_s·A_s / n
      const want = ratioLevel === 'token' ? [-1, 1.4, -0.06, 0.002, -0.4] : Array(5).fill((-0.2 * 0.29) / 5);
      expectClose(`w (${ratioLevel})`, r.w, want, { atol: 1e-15, rtol: 1e-12 });
      expect(r.metrics['ratio/mean']).toBe(1);
      expect(r.metrics['clip_ratio/region_mean'] + r.metrics['clip_ratio/dual_mean']).toBe(0);
      // L = −Σ c·A = −0.2·(5 − 7 + 0.3 − 0.01 + 2)
      expect(r.loss).toBeCloseTo(-0.2 * 0.29, 12);
    }
  });
});

describe('pgLossRef: KL and entropy terms by hand', () => {
  it('k1, k2, k3 values, the clamp, and the entropy weight', () => {
    // δ = refLogp − logp = 1, −2, 12 (clamped to 10: no gradient)
    const x = { logp: [-1, -1, -13], entropy: [2, 1, 0.5], oldLogp: [-1, -1, -13], refLogp: [0, -3, -1], adv: [0, 0, 0], coef: [0.5, 0.25, 0.25] };
    const dims = { B: 1, T: 3 };
    const h = (klType: KlType): PgHyper => ({ ...base, klType, beta: 2, entCoef: 0.1 });
    const k1 = pgLossRef(x, dims, h('k1'));
    expectClose('k1 w', k1.w, [2 * 0.5, 2 * 0.25, 0], { atol: 1e-15, rtol: 0 });
    expect(k1.metrics['loss/kl']).toBeCloseTo(0.5 * -1 + 0.25 * 2 + 0.25 * -10, 12);
    const k2 = pgLossRef(x, dims, h('k2'));
    // ∂(δ²/2)/∂logp = −δ
    expectClose('k2 w', k2.w, [2 * 0.5 * -1, 2 * 0.25 * 2, 0], { atol: 1e-15, rtol: 0 });
    expect(k2.metrics.kl).toBeCloseTo((0.5 + 2 + 50) / 3, 12);
    const k3 = pgLossRef(x, dims, h('k3'));
    // ∂(e^δ − δ − 1)/∂logp = 1 − e^δ
    expectClose('k3 w', k3.w, [2 * 0.5 * (1 - Math.E), 2 * 0.25 * (1 - Math.exp(-2)), 0], { atol: 1e-14, rtol: 0 });
    expect(k3.metrics['loss/kl']).toBeCloseTo(0.5 * (Math.E - 2) + 0.25 * (Math.exp(-2) + 1) + 0.25 * (Math.exp(10) - 11), 6);
    expectClose('e', k3.e, [-0.05, -0.025, -0.025], { atol: 1e-16, rtol: 0 });
    expect(k3.metrics['loss/entropy']).toBeCloseTo(0.5 * 2 + 0.25 * 1 + 0.25 * 0.5, 12);
    expect(k3.metrics.entropy).toBeCloseTo(3.5 / 3, 12);
    expect(k3.loss).toBeCloseTo(2 * k3.metrics['loss/kl'] - 0.1 * k3.metrics['loss/entropy'], 9);
  });

  it('rejects a β without a reference and out-of-range scalars', () => {
    const x = { logp: [0], entropy: [0], oldLogp: [0], refLogp: null, adv: [0], coef: [1] };
    expect(() => pgLossRef(x, { B: 1, T: 1 }, { ...base, beta: 0.1 })).toThrow(/set beta to 0/);
    expect(() => pgLossRef(x, { B: 1, T: 1 }, { ...base, dualClipC: 1 })).toThrow(/dualClipC = 1: must be > 1/);
    expect(() => pgLossRef(x, { B: 1, T: 1 }, { ...base, klType: 'k3' })).toThrow(/refLogp is null/);
  });
});
