// The exact interpreter: the oracle of the world. Values are small integers, so plain
// JavaScript numbers are exact; every intermediate result is checked against VALUE_LIMIT.
import { VALUE_LIMIT, type Expr, type Op } from './expr';

export type EvalErrorKind = 'out_of_range' | 'mod_by_zero' | 'unbound_variable';

export interface EvalError {
  kind: EvalErrorKind;
  message: string;
}

export type EvalResult = { ok: true; value: number } | { ok: false; error: EvalError };

/** Variable values, for document statements. Problems have no variables. */
export type Env = ReadonlyMap<string, number>;

/**
 * mod(a, b) is the floored remainder (Python's `%`): its sign follows b, so mod(-7,3) = 2.
 * The generators only use positive divisors; the language allows any nonzero one.
 */
function floorMod(a: number, b: number): number {
  return a - b * Math.floor(a / b);
}

/** One operation on two values; the arithmetic of a single trace step. */
export function applyOp(op: Op, a: number, b: number): EvalResult {
  let value: number;
  switch (op) {
    case '+':
      value = a + b;
      break;
    case '-':
      value = a - b;
      break;
    case '*':
      value = a * b;
      break;
    case 'min':
      value = Math.min(a, b);
      break;
    case 'max':
      value = Math.max(a, b);
      break;
    case 'mod':
      if (b === 0) return { ok: false, error: { kind: 'mod_by_zero', message: `mod(${a},0)` } };
      value = floorMod(a, b);
      break;
  }
  return checkRange(value);
}

function checkRange(value: number): EvalResult {
  if (Math.abs(value) > VALUE_LIMIT) {
    return { ok: false, error: { kind: 'out_of_range', message: `value ${value} is beyond ±${VALUE_LIMIT}` } };
  }
  // -4*0 is -0 in JavaScript; the world has one zero, so that 0 === answer and it prints as 0.
  return { ok: true, value: value === 0 ? 0 : value };
}

/** Evaluates a tree exactly; the first bound violation, division by zero or unknown name wins. */
export function evaluate(expr: Expr, env: Env = new Map()): EvalResult {
  switch (expr.kind) {
    case 'num':
      return checkRange(expr.value);
    case 'var': {
      const value = env.get(expr.name);
      if (value === undefined) {
        return { ok: false, error: { kind: 'unbound_variable', message: `${expr.name} is not defined before use` } };
      }
      return { ok: true, value };
    }
    case 'op': {
      const left = evaluate(expr.left, env);
      if (!left.ok) return left;
      const right = evaluate(expr.right, env);
      if (!right.ok) return right;
      return applyOp(expr.op, left.value, right.value);
    }
  }
}

