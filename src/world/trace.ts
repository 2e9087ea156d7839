// Step traces: the solution format. One reduction per step, innermost-leftmost first, each
// step followed by ';', then the answer marker '#' and the answer:
//
//   (7+5)*3-4   →   7+5=12;12*3=36;36-4=32;#32
//
// The verifier reads the answer after the LAST '#'; anything malformed is simply wrong.
import { num, opNode, parseExpr, printExpr, VALUE_LIMIT, type Expr, type Op } from './expr';
import { applyOp, type EvalError } from './interpreter';

export const STEP_END = ';';
export const ANSWER_MARKER = '#';

/** One reduction: `left op right = value` on plain numbers. */
export interface Step {
  op: Op;
  left: number;
  right: number;
  value: number;
}

export type SolveResult = { ok: true; steps: Step[]; answer: number } | { ok: false; error: EvalError };

/** The canonical step list: operations in post-order, which is innermost-leftmost first. */
export function solveSteps(expr: Expr): SolveResult {
  const steps: Step[] = [];
  const reduce = (e: Expr): number | EvalError => {
    if (e.kind === 'num') return e.value;
    if (e.kind === 'var') return { kind: 'unbound_variable', message: `variable ${e.name} in a problem` };
    const left = reduce(e.left);
    if (typeof left !== 'number') return left;
    const right = reduce(e.right);
    if (typeof right !== 'number') return right;
    const r = applyOp(e.op, left, right);
    if (!r.ok) return r.error;
    steps.push({ op: e.op, left, right, value: r.value });
    return r.value;
  };
  const answer = reduce(expr);
  return typeof answer === 'number' ? { ok: true, steps, answer } : { ok: false, error: answer };
}

/** `7+5=12`, `min(3,9)=3`, `5-(-4)=9`: the step's operation printed like a problem. */
export function formatStep(step: Step): string {
  return `${printExpr(opNode(step.op, num(step.left), num(step.right)))}=${step.value}`;
}

export function formatTrace(steps: readonly Step[], answer: number): string {
  return steps.map((s) => formatStep(s) + STEP_END).join('') + ANSWER_MARKER + answer;
}

/** The gold solution text of a valid problem; throws on an invalid one (a generator bug). */
export function solutionOf(expr: Expr): string {
  const r = solveSteps(expr);
  if (!r.ok) throw new Error(`solutionOf(${printExpr(expr)}): ${r.error.message}`);
  return formatTrace(r.steps, r.answer);
}

export type AnswerFailure = 'empty' | 'missing_marker' | 'bad_answer' | 'answer_out_of_range';
export type AnswerRead = { ok: true; answer: number } | { ok: false; reason: AnswerFailure };

const INTEGER = /^(0|-?[1-9][0-9]*)$/;

/** Reads a canonical integer (no sign on zero, no leading zeros) within the value bound. */
export function readInteger(text: string): { ok: true; value: number } | { ok: false; reason: 'bad_answer' | 'answer_out_of_range' } {
  if (!INTEGER.test(text)) return { ok: false, reason: 'bad_answer' };
  const value = Number(text);
  return Math.abs(value) > VALUE_LIMIT ? { ok: false, reason: 'answer_out_of_range' } : { ok: true, value };
}

/** The answer after the last marker, with the reason when there is none. */
export function readAnswer(text: string): AnswerRead {
  if (text.length === 0) return { ok: false, reason: 'empty' };
  const at = text.lastIndexOf(ANSWER_MARKER);
  if (at < 0) return { ok: false, reason: 'missing_marker' };
  const r = readInteger(text.slice(at + 1));
  return r.ok ? { ok: true, answer: r.value } : r;
}

/** The verifier's view of a response: the integer after the last '#', else null. */
export function extractAnswer(text: string): number | null {
  const r = readAnswer(text);
  return r.ok ? r.answer : null;
}

export type TraceFailure = AnswerFailure | 'bad_step';
export type TraceParse = { ok: true; steps: Step[]; answer: number } | { ok: false; reason: TraceFailure; step?: number };

/** Parses `s1;s2;...;#answer` into steps (unchecked arithmetic) and the stated answer. */
export function parseTrace(text: string): TraceParse {
  const answer = readAnswer(text);
  if (!answer.ok) return answer;
  const body = text.slice(0, text.lastIndexOf(ANSWER_MARKER));
  if (body.length > 0 && !body.endsWith(STEP_END)) return { ok: false, reason: 'bad_step', step: 0 };
  const parts = body.length === 0 ? [] : body.slice(0, -1).split(STEP_END);
  const steps: Step[] = [];
  for (let i = 0; i < parts.length; i++) {
    const step = parseStep(parts[i]);
    if (!step) return { ok: false, reason: 'bad_step', step: i };
    steps.push(step);
  }
  return { ok: true, steps, answer: answer.answer };
}

function parseStep(text: string): Step | null {
  const eq = text.indexOf('=');
  if (eq < 0 || text.indexOf('=', eq + 1) >= 0) return null;
  const lhs = parseExpr(text.slice(0, eq));
  const rhs = readInteger(text.slice(eq + 1));
  if (!lhs.ok || !rhs.ok) return null;
  const e = lhs.expr;
  if (e.kind !== 'op' || e.left.kind !== 'num' || e.right.kind !== 'num') return null;
  return { op: e.op, left: e.left.value, right: e.right.value, value: rhs.value };
}

export type CheckFailure = 'step_not_in_problem' | 'wrong_step' | 'incomplete_trace' | 'answer_mismatch';
export type CheckResult = { ok: true } | { ok: false; reason: CheckFailure; step?: number };

/**
 * Verifies a worked solution against its problem, step by step: each step must reduce an
 * operation of the current expression whose operands are already numbers (any order is
 * accepted, not only innermost-leftmost), its arithmetic must be right, the steps must
 * reduce the problem to one number, and the stated answer must be that number.
 */
export function checkTrace(problem: Expr, steps: readonly Step[], answer: number): CheckResult {
  let current = problem;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const reduced = reduceMatching(current, s);
    if (!reduced) return { ok: false, reason: 'step_not_in_problem', step: i };
    const r = applyOp(s.op, s.left, s.right);
    if (!r.ok || r.value !== s.value) return { ok: false, reason: 'wrong_step', step: i };
    current = reduced;
  }
  if (current.kind !== 'num') return { ok: false, reason: 'incomplete_trace' };
  if (current.value !== answer) return { ok: false, reason: 'answer_mismatch' };
  return { ok: true };
}

/** Replaces the leftmost ready operation equal to the step's left side by the step's value. */
function reduceMatching(e: Expr, s: Step): Expr | null {
  if (e.kind !== 'op') return null;
  if (e.left.kind === 'num' && e.right.kind === 'num') {
    return e.op === s.op && e.left.value === s.left && e.right.value === s.right ? num(s.value) : null;
  }
  const left = reduceMatching(e.left, s);
  if (left) return opNode(e.op, left, e.right);
  const right = reduceMatching(e.right, s);
  return right ? opNode(e.op, e.left, right) : null;
}
