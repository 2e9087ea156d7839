// TTSP's validity gate and replay buffer (LOOPS.md §6), pure and engine-free (the loop's body,
// run.ts, uses them).
// A proposal is `PROBLEM=TRACE` written by the propose role; it passes the gate when it parses,
// its reference solution checks step by step in the interpreter, the result equals the answer it
// states, and it is not a duplicate of a problem proposed before (or of the target); with
// `refuseTarget`, it also does not contain the target as a sub-expression (an exact checker would
// otherwise certify the target's own answer inside it). Every rejection is counted by category.
import { parsePropose, parseTrace, readProblem, type ParseFailure } from '../../world/index';
import type { Expr } from '../../world/expr';

/** full: the paper's gate; answer-only: the ablation that skips the reference's check (duplicates are still refused). */
export type GateMode = 'full' | 'answer-only';

export type GateVerdict = 'valid' | 'cut' | 'unparseable' | 'bad_reference' | 'answer_mismatch' | 'duplicate' | 'contains_target';
export const GATE_VERDICTS: readonly GateVerdict[] = ['valid', 'cut', 'unparseable', 'bad_reference', 'answer_mismatch', 'duplicate', 'contains_target'];

/** Which category a parse failure of a proposal falls in. */
function categoryOf(reason: ParseFailure): Exclude<GateVerdict, 'valid' | 'cut' | 'duplicate' | 'contains_target'> {
  if (reason === 'answer_mismatch') return 'answer_mismatch';
  if (reason === 'bad_step' || reason === 'step_not_in_problem' || reason === 'wrong_step' || reason === 'incomplete_trace' || reason === 'missing_trace' || reason === 'missing_marker' || reason === 'bad_answer' || reason === 'answer_out_of_range') return 'bad_reference';
  return 'unparseable';
}

export interface GateResult {
  verdict: GateVerdict;
  /** the problem's canonical text and its reference answer (when it parsed) */
  problem: string | null;
  answer: number | null;
  /** the parser's reason for a rejection other than a duplicate or a cut */
  reason: ParseFailure | null;
}

const COMMUTATIVE = new Set(['+', '*', 'min', 'max']);

/** The operands of a chain of one commutative, associative operation (a+b+c → a, b, c). */
function chain(e: Expr, op: string): Expr[] {
  return e.kind === 'op' && e.op === op ? [...chain(e.left, op), ...chain(e.right, op)] : [e];
}

/**
 * A problem's form up to the order of +, *, min and max operands (and their grouping): two
 * rewordings of one problem share it, so a proposal cannot bring the target back in disguise
 * (min(9-1+4,9) for min(9,9-1+4)), nor an earlier problem.
 */
export function normalForm(e: Expr): string {
  if (e.kind === 'num') return String(e.value);
  if (e.kind === 'var') return e.name;
  if (COMMUTATIVE.has(e.op)) return `${e.op}(${chain(e, e.op).map(normalForm).sort().join(',')})`;
  return `${e.op}(${normalForm(e.left)},${normalForm(e.right)})`;
}

/** Whether every item of `part` is in `whole`, as many times (normal forms of a chain's operands). */
function subMultiset(part: readonly string[], whole: readonly string[]): boolean {
  const left = [...whole];
  return part.every((x) => {
    const i = left.indexOf(x);
    return i >= 0 && left.splice(i, 1).length === 1;
  });
}

/**
 * Whether `target` is a sub-expression of `e` up to normalForm: a subtree of the same normal
 * form, or (the target a chain of +, *, min or max) some of the operands of a chain of the same
 * operation (2*max(4,5) in max(2*max(4,5),2) and in 3*max(5,4)*2). Equality counts.
 */
export function containsTarget(e: Expr, target: Expr): boolean {
  const form = normalForm(target);
  const parts = target.kind === 'op' && COMMUTATIVE.has(target.op) ? chain(target, target.op).map(normalForm) : null;
  const visit = (x: Expr): boolean => {
    if (x.kind !== 'op') return normalForm(x) === form;
    if (!COMMUTATIVE.has(x.op)) return normalForm(x) === form || visit(x.left) || visit(x.right);
    const operands = chain(x, x.op);
    if (parts && target.kind === 'op' && x.op === target.op && subMultiset(parts, operands.map(normalForm))) return true;
    return operands.some(visit);
  };
  return visit(e);
}

/** The normal form of a problem's text (null when it is not a problem). */
export function problemForm(text: string): string | null {
  const p = readProblem(text);
  return p.ok ? normalForm(p.value.expr) : null;
}

/**
 * Judges a proposal (the response text before its end token; `ended` false: cut at the limit)
 * against the problems `seen` so far (their normal forms, problemForm: the target's included);
 * with `refuseTarget` (the target's expression), a new problem that contains it is refused as
 * contains_target, in either mode.
 */
export function gate(text: string, ended: boolean, seen: ReadonlySet<string>, mode: GateMode = 'full', refuseTarget: Expr | null = null): GateResult {
  const r = judge(text, ended, seen, mode);
  if (r.verdict !== 'valid' || !refuseTarget) return r;
  const p = readProblem(r.problem as string);
  return p.ok && containsTarget(p.value.expr, refuseTarget) ? { ...r, verdict: 'contains_target' } : r;
}

function judge(text: string, ended: boolean, seen: ReadonlySet<string>, mode: GateMode): GateResult {
  if (!ended) return { verdict: 'cut', problem: null, answer: null, reason: null };
  if (mode === 'answer-only') {
    const r = answerOnly(text);
    return r.verdict === 'valid' && seen.has(problemForm(r.problem as string) as string) ? { ...r, verdict: 'duplicate' } : r;
  }
  const p = parsePropose(text);
  // no '=' at all: a problem without its solution is a bad reference, anything else unparseable
  if (!p.ok && p.reason === 'missing_trace' && !readProblem(text).ok) return { verdict: 'unparseable', problem: null, answer: null, reason: 'bad_problem' };
  if (!p.ok) return { verdict: categoryOf(p.reason), problem: null, answer: null, reason: p.reason };
  const problem = p.value.problem.text;
  if (seen.has(normalForm(p.value.problem.expr))) return { verdict: 'duplicate', problem, answer: p.value.answer, reason: null };
  return { verdict: 'valid', problem, answer: p.value.answer, reason: null };
}

/** The ablation's gate: a problem that parses and an answer after the marker, the steps unchecked. */
function answerOnly(text: string): GateResult {
  const eq = text.indexOf('=');
  const problem = readProblem(eq < 0 ? text : text.slice(0, eq));
  if (!problem.ok) return { verdict: 'unparseable', problem: null, answer: null, reason: problem.reason };
  if (eq < 0) return { verdict: 'unparseable', problem: null, answer: null, reason: 'missing_trace' };
  const trace = parseTrace(text.slice(eq + 1));
  if (!trace.ok) return { verdict: 'unparseable', problem: null, answer: null, reason: trace.reason === 'empty' ? 'missing_marker' : trace.reason };
  return { verdict: 'valid', problem: problem.value.text, answer: trace.answer, reason: null };
}

/** Counts of a step's verdicts, every category present (0 when none). */
export function verdictCounts(vs: readonly GateVerdict[]): Record<GateVerdict, number> {
  const out = Object.fromEntries(GATE_VERDICTS.map((v) => [v, 0])) as Record<GateVerdict, number>;
  for (const v of vs) out[v]++;
  return out;
}

export interface ReplayEntry {
  problem: string;
  answer: number;
  /** the step it was proposed at */
  step: number;
}

/**
 * The replay buffer: every valid problem is stored; each step R of them are drawn (without
 * replacement, by `rand`) to be answered again by the current solver, and a replayed problem is
 * kept for training iff its pass rate is strictly between 0 and 1.
 */
export class ReplayBuffer {
  private readonly entries: ReplayEntry[] = [];

  get size(): number {
    return this.entries.length;
  }

  add(e: ReplayEntry): void {
    this.entries.push(e);
  }

  /** Up to `r` distinct entries. */
  draw(r: number, rand: () => number): ReplayEntry[] {
    const pool = [...this.entries];
    const out: ReplayEntry[] = [];
    while (out.length < r && pool.length > 0) out.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]);
    return out;
  }

  /** The buffer as plain JSON (a run's state) and back. */
  toJSON(): ReplayEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  static from(entries: readonly ReplayEntry[]): ReplayBuffer {
    const b = new ReplayBuffer();
    for (const e of entries) b.add({ ...e });
    return b;
  }
}

/** A replayed problem trains iff the current solver sometimes but not always solves it. */
export const keepReplayed = (passRate: number): boolean => passRate > 0 && passRate < 1;
