// Concepts of a problem, read off its syntax tree. Because they are computed exactly, concept
// coverage and topic mix (OpenSIR) are exact too; tags are the teach role's short form.
import { BINARY_OPS, countOps, FUNCTIONS, isFunction, needsParens, type BinaryOp, type Expr, type FunctionName } from './expr';
import { solveSteps } from './trace';
import type { ConceptTag } from './tokenizer';

/** Magnitude buckets by the largest |value| met while solving: small operands learn fastest. */
export type Magnitude = 'small' | 'medium' | 'large';
export const MAGNITUDE_LIMITS: Readonly<Record<Magnitude, number>> = { small: 20, medium: 99, large: 999 };

export interface Concepts {
  /** Operations (binary operators and function calls). */
  ops: number;
  operators: BinaryOp[];
  functions: FunctionName[];
  /** Height of the tree in operations: 1 for `3+4`, 3 for `1+2+3+4`. */
  depth: number;
  /** Most parenthesised groups (or function arguments) around one operation: 0 for `1+2*3`. */
  nesting: number;
  magnitude: Magnitude;
}

function depthOf(e: Expr): number {
  return e.kind === 'op' ? 1 + Math.max(depthOf(e.left), depthOf(e.right)) : 0;
}

function nestingOf(e: Expr): number {
  if (e.kind !== 'op') return 0;
  const inner = (child: Expr, side: 'left' | 'right') =>
    child.kind === 'op' && (isFunction(e.op) || needsParens(e.op, child, side)) ? 1 : 0;
  return Math.max(nestingOf(e.left) + inner(e.left, 'left'), nestingOf(e.right) + inner(e.right, 'right'));
}

function collectOps(e: Expr, into: Set<string>): Set<string> {
  if (e.kind === 'op') {
    into.add(e.op);
    collectOps(e.left, into);
    collectOps(e.right, into);
  }
  return into;
}

function largestValue(e: Expr): number {
  const literals = (x: Expr): number[] => (x.kind === 'num' ? [Math.abs(x.value)] : x.kind === 'op' ? [...literals(x.left), ...literals(x.right)] : []);
  const r = solveSteps(e);
  const results = r.ok ? r.steps.map((s) => Math.abs(s.value)) : [];
  return Math.max(0, ...literals(e), ...results);
}

function magnitudeOf(value: number): Magnitude {
  if (value <= MAGNITUDE_LIMITS.small) return 'small';
  return value <= MAGNITUDE_LIMITS.medium ? 'medium' : 'large';
}

export function conceptsOf(expr: Expr): Concepts {
  const used = collectOps(expr, new Set());
  return {
    ops: countOps(expr),
    operators: BINARY_OPS.filter((op) => used.has(op)),
    functions: FUNCTIONS.filter((fn) => used.has(fn)),
    depth: depthOf(expr),
    nesting: nestingOf(expr),
    magnitude: magnitudeOf(largestValue(expr)),
  };
}

const OPERATOR_TAG: Readonly<Record<BinaryOp, ConceptTag>> = { '+': 'add', '-': 'sub', '*': 'mul' };

/** Every tag that applies, rarest kind first: functions, nesting, large values, operators. */
export function conceptTags(c: Concepts): ConceptTag[] {
  const tags: ConceptTag[] = [...c.functions];
  if (c.nesting > 0) tags.push('nest');
  if (c.magnitude === 'large') tags.push('big');
  const operators: BinaryOp[] = ['*', '-', '+'];
  for (const op of operators) if (c.operators.includes(op)) tags.push(OPERATOR_TAG[op]);
  return tags;
}

/** A short stable key for topic-mix counts, e.g. `ops3 +* min d2 n1 medium`. */
export function conceptKey(c: Concepts): string {
  const fns = c.functions.length > 0 ? ` ${c.functions.join(',')}` : '';
  return `ops${c.ops} ${c.operators.join('')}${fns} d${c.depth} n${c.nesting} ${c.magnitude}`;
}
