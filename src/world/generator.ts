// Random problems at a chosen difficulty. Difficulty is the operation count first (the
// measured pass rates fall steeply with it), then tree depth and operand magnitude.
import { conceptsOf, type Concepts } from './concepts';
import { BINARY_OPS, FUNCTIONS, isFunction, num, opNode, printExpr, type Expr, type Op } from './expr';
import { applyOp } from './interpreter';
import { pickWeighted, randInt, type Rng } from './rng';
import { solveSteps, formatTrace } from './trace';

export const MAX_OPS = 5;
/**
 * Operands 0..9 by default: small values are what a small model learns fastest (NOTES); with
 * 0..12 the shipped small base reached only 0.17 average solve pass@1 in an hour of pretraining.
 */
export const DEFAULT_MAX_OPERAND = 9;

export interface DifficultySpec {
  /** Operations (binary operators and function calls), 1..MAX_OPS. */
  ops: number;
  /** Literals are drawn from 0..maxOperand (default DEFAULT_MAX_OPERAND, 9). */
  maxOperand?: number;
  /** Largest tree height in operations (default: no limit beyond ops). */
  maxDepth?: number;
  /** Probability that an operation is min, max or mod rather than + - * (default 0.15). */
  functionRate?: number;
  /** Allow negative intermediate values (default false: every value stays ≥ 0). */
  allowNegative?: boolean;
}

/** A bare number is shorthand for `{ ops: n }`. */
export type Difficulty = number | DifficultySpec;

export function resolveDifficulty(d: Difficulty): Required<DifficultySpec> {
  const spec = typeof d === 'number' ? { ops: d } : d;
  const full = {
    ops: spec.ops,
    maxOperand: spec.maxOperand ?? DEFAULT_MAX_OPERAND,
    maxDepth: spec.maxDepth ?? spec.ops,
    functionRate: spec.functionRate ?? 0.15,
    allowNegative: spec.allowNegative ?? false,
  };
  const bad = (what: string) => new RangeError(`difficulty: ${what} (got ${JSON.stringify(d)})`);
  if (!Number.isInteger(full.ops) || full.ops < 1 || full.ops > MAX_OPS) throw bad(`ops must be an integer in 1..${MAX_OPS}`);
  if (!Number.isInteger(full.maxOperand) || full.maxOperand < 1 || full.maxOperand > 99) throw bad('maxOperand must be an integer in 1..99');
  if (!Number.isInteger(full.maxDepth) || full.maxDepth < 1) throw bad('maxDepth must be a positive integer');
  if (full.ops > 2 ** full.maxDepth - 1) throw bad(`${full.ops} operations cannot fit in depth ${full.maxDepth}`);
  if (!(full.functionRate >= 0 && full.functionRate <= 1)) throw bad('functionRate must be in [0, 1]');
  return full;
}

/** A problem with everything the roles need: canonical text, gold answer, gold trace. */
export interface Problem {
  text: string;
  expr: Expr;
  answer: number;
  /** The gold step trace, `7+5=12;12*3=36;36-4=32;#32`. */
  solution: string;
  concepts: Concepts;
}

/** Wraps a tree as a Problem, or null when it does not evaluate within the bounds. */
export function toProblem(expr: Expr): Problem | null {
  const r = solveSteps(expr);
  if (!r.ok) return null;
  return { text: printExpr(expr), expr, answer: r.answer, solution: formatTrace(r.steps, r.answer), concepts: conceptsOf(expr) };
}

/** Whether a valid tree also keeps the generator's conventions for this difficulty. */
export function followsConventions(expr: Expr, spec: Required<DifficultySpec>): boolean {
  const r = solveSteps(expr);
  if (!r.ok) return false;
  return r.steps.every((s) => (spec.allowNegative || s.value >= 0) && (s.op !== 'mod' || s.right > 0));
}

const MAX_ATTEMPTS = 1000;

/** A random problem with exactly `ops` operations, following the difficulty's conventions. */
export function generateProblem(rng: Rng, difficulty: Difficulty): Problem {
  const spec = resolveDifficulty(difficulty);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const built = build(rng, spec.ops, spec.maxDepth, spec);
    if (built) return toProblem(built.expr) as Problem;
  }
  throw new Error(`generateProblem: no valid problem in ${MAX_ATTEMPTS} attempts for ${JSON.stringify(spec)}`);
}

type Built = { expr: Expr; value: number };

/** Builds a tree with n operations and height ≤ h bottom-up, redrawing an operator that breaks a bound. */
function build(rng: Rng, n: number, h: number, spec: Required<DifficultySpec>): Built | null {
  if (n === 0) {
    const value = randInt(rng, 0, spec.maxOperand);
    return { expr: num(value), value };
  }
  const side = 2 ** (h - 1) - 1; // most operations a subtree of height h-1 can hold
  const leftOps = randInt(rng, Math.max(0, n - 1 - side), Math.min(n - 1, side));
  const left = build(rng, leftOps, h - 1, spec);
  const right = left && build(rng, n - 1 - leftOps, h - 1, spec);
  if (!left || !right) return null;
  for (let draw = 0; draw < 6; draw++) {
    const op = drawOp(rng, spec.functionRate);
    const r = applyOp(op, left.value, right.value);
    if (!r.ok || (!spec.allowNegative && r.value < 0) || (op === 'mod' && right.value <= 0)) continue;
    return { expr: opNode(op, left.expr, right.expr), value: r.value };
  }
  return null;
}

const ALL_OPS: readonly Op[] = [...BINARY_OPS, ...FUNCTIONS];

function drawOp(rng: Rng, functionRate: number): Op {
  const weights = ALL_OPS.map((op) => (isFunction(op) ? functionRate / FUNCTIONS.length : (1 - functionRate) / BINARY_OPS.length));
  return pickWeighted(rng, ALL_OPS, weights);
}
