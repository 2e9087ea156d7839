// SvS's rules (LOOPS.md §2), pure and engine-free so they are tested by hand: the pass-rate
// bands (inclusive), the variant reward (shaped or naive), which groups are kept, and the oracle
// diagnostics of a variant, which are displayed and never rewarded (DESIGN "Oracle discipline").
import { goldVariant, handsOverAnswer, MAX_OPS, parseVary, resolveDifficulty, type Expr, type Problem, type Rng } from '../../world/index';
import type { SvsConfig } from './config';

/** Pass rates are k/G; the bands' edges (1/8, 4/8, 5/8) must count as inside whatever the rounding. */
const EDGE = 1e-9;

export function passRate(rewards: readonly number[]): number {
  return rewards.length === 0 ? 0 : rewards.reduce((a, r) => a + r, 0) / rewards.length;
}

/** A challenging problem: acc_l ≤ p ≤ acc_h, both ends included. */
export function isChallenging(p: number, c: Pick<SvsConfig, 'accLow' | 'accHigh'>): boolean {
  return p >= c.accLow - EDGE && p <= c.accHigh + EDGE;
}

/**
 * R_v of a variant from its answers' pass rate p̂ against the ORIGINAL answer (null: the variant
 * could not be extracted, R_v = 0). shaped: 𝟙[acĉ_l ≤ p̂ ≤ acĉ_h]; naive: 𝟙[p̂ > 0].
 */
export function variantReward(pHat: number | null, c: Pick<SvsConfig, 'variantReward' | 'variantAccLow' | 'variantAccHigh'>): number {
  if (pHat === null) return 0;
  if (c.variantReward === 'naive') return pHat > 0 ? 1 : 0;
  return pHat >= c.variantAccLow - EDGE && pHat <= c.variantAccHigh + EDGE ? 1 : 0;
}

/** A solve group (OQA or SPA) trains only with mixed outcomes: 0 < p < 1. */
export function keepSolveGroup(p: number): boolean {
  return p > 0 && p < 1;
}

/** A VPS group (all G_v variants of one solution) trains iff at least one variant earned R_v = 1. */
export function keepVariantGroup(rewards: readonly number[]): boolean {
  return rewards.some((r) => r === 1);
}

/**
 * The cost guard's seeded subset: `k` of the indices 0..n-1 drawn without replacement (a partial
 * Fisher-Yates shuffle, one draw each), returned in increasing order so the sources keep their
 * problem order; all of them, with no draw, when n ≤ k. The draws come from the loop's counted
 * rng, so a resumed run draws the same subsets.
 */
export function seededSubset(rand: () => number, n: number, k: number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  if (n <= k) return idx;
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (n - i));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, k).sort((a, b) => a - b);
}

/** What the oracle says of a variant: never a reward, only shown. */
export interface VariantDiagnostics {
  /** it parses as a problem of the world (the loop's own "extracted") */
  parsed: boolean;
  /** the interpreter's value of the variant, null when it does not parse */
  value: number | null;
  /** it really evaluates to the original answer */
  trueValid: boolean;
  /** it hands the answer over and the original did not (leaksAnswer) */
  leak: boolean;
  /** it is the original problem again (same canonical text) */
  copy: boolean;
}

/**
 * A variant leaks the answer when it hands it over (src/world/leak.ts: it evaluates to the answer
 * and one of its literals is the answer with the rest cancelling out, as in 36+0, 36*1, max(36,2),
 * (36+5)-5) and the original problem did not. A literal that merely equals the answer is no leak:
 * that is true of a third of the training problems and of a quarter of gold variants. An original
 * that already hands its answer over (max(7,3)) has no variant that leaks. Over gold variants of
 * the training set this fires about 2 % of the time (vps/leak_base measures it each step).
 */
export function leaksAnswer(variant: Expr, original: Expr, answer: number): boolean {
  return handsOverAnswer(variant, answer) && !handsOverAnswer(original, answer);
}

/** Gold variants need only the generator's conventions (no negative values, mod by a positive): the operation count is not checked. */
const GOLD_SPEC = resolveDifficulty(MAX_OPS);

/**
 * The leak flag's base rate: the share of `n` gold, truly valid variants of `problem`
 * (src/world/variants.ts, meaning-preserving rewrites that hand nothing over by intent) that it
 * flags: `drawn` counts the variants found (0 when no rewrite of the problem applies).
 */
export function leakBase(rng: Rng, problem: Problem, n: number): { flagged: number; drawn: number } {
  let flagged = 0, drawn = 0;
  for (let i = 0; i < n; i++) {
    const v = goldVariant(rng, problem, GOLD_SPEC);
    if (!v) continue;
    drawn++;
    if (leaksAnswer(v.expr, problem.expr, problem.answer)) flagged++;
  }
  return { flagged, drawn };
}

/** Diagnoses variant text (the response before its end token; `ended` false: cut at the limit). */
export function diagnoseVariant(text: string, ended: boolean, original: { text: string; expr: Expr; answer: number }): VariantDiagnostics {
  const p = ended ? parseVary(text) : null;
  if (!p?.ok) return { parsed: false, value: null, trueValid: false, leak: false, copy: false };
  const v = p.value.problem;
  return {
    parsed: true,
    value: v.oracleValue,
    trueValid: v.oracleValue === original.answer,
    leak: leaksAnswer(v.expr, original.expr, original.answer),
    copy: v.text === original.text,
  };
}
