// SvS's rules (LOOPS.md §2), pure and engine-free so they are tested by hand: the pass-rate
// bands (inclusive), the variant reward (shaped or naive), which groups are kept, and the oracle
// diagnostics of a variant, which are displayed and never rewarded (DESIGN "Oracle discipline").
import { nodesWithPaths, type Expr } from '../../world/expr';
import { parseVary } from '../../world/index';
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

/** What the oracle says of a variant: never a reward, only shown. */
export interface VariantDiagnostics {
  /** it parses as a problem of the world (the loop's own "extracted") */
  parsed: boolean;
  /** the interpreter's value of the variant, null when it does not parse */
  value: number | null;
  /** it really evaluates to the original answer */
  trueValid: boolean;
  /** its text carries the answer: one of its numbers is the answer itself */
  leak: boolean;
  /** it is the original problem again (same canonical text) */
  copy: boolean;
}

function literals(e: Expr): number[] {
  return nodesWithPaths(e).flatMap(({ node }) => (node.kind === 'num' ? [node.value] : []));
}

/** Diagnoses variant text (the response before its end token; `ended` false: cut at the limit). */
export function diagnoseVariant(text: string, ended: boolean, original: { text: string; answer: number }): VariantDiagnostics {
  const p = ended ? parseVary(text) : null;
  if (!p?.ok) return { parsed: false, value: null, trueValid: false, leak: false, copy: false };
  const v = p.value.problem;
  return {
    parsed: true,
    value: v.oracleValue,
    trueValid: v.oracleValue === original.answer,
    leak: literals(v.expr).includes(original.answer),
    copy: v.text === original.text,
  };
}
