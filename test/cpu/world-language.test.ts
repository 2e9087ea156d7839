import { describe, expect, it } from 'vitest';
import { exprEquals, parseExpr, printExpr, type Expr, type ParseErrorKind } from '../../src/world/expr';
import { evaluate } from '../../src/world/interpreter';
import { generateProblem, type DifficultySpec } from '../../src/world/generator';
import { makeRng } from '../../src/world/rng';
import { VOCABULARY } from '../../src/world/tokenizer';

function parsed(text: string, variables = false): Expr {
  const r = parseExpr(text, { variables });
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
  return r.expr;
}

function value(text: string): number {
  const r = evaluate(parsed(text));
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
  return r.value;
}

/** An independent oracle: JavaScript's own arithmetic on the printed text. */
function jsValue(text: string): number {
  const mod = (a: number, b: number) => a - b * Math.floor(a / b);
  const jsEval = new Function('min', 'max', 'mod', `return ${text};`) as (...fs: ((a: number, b: number) => number)[]) => number;
  const v = jsEval(Math.min, Math.max, mod);
  return v === 0 ? 0 : v; // JavaScript's -0 is the world's 0

}

const SPECS: DifficultySpec[] = [
  { ops: 1 },
  { ops: 3 },
  { ops: 5 },
  { ops: 4, functionRate: 0.6 },
  { ops: 5, allowNegative: true, functionRate: 0.3 },
  { ops: 3, maxOperand: 99, allowNegative: true },
  { ops: 3, maxDepth: 2 },
];

describe('world language: parser and printer', () => {
  it('follows precedence and left associativity', () => {
    const cases: [string, number][] = [
      ['1+2*3', 7],
      ['(1+2)*3', 9],
      ['10-3-2', 5],
      ['10-(3-2)', 9],
      ['2*3*4', 24],
      ['min(3,max(1,2))', 2],
      ['max(2*3,7-5)+1', 7],
      ['mod(17,5)', 2],
      ['mod(-7,3)', 2],
      ['mod(7,-3)', -2],
      ['5--4', 9],
      ['-4*2', -8],
      ['2*-4', -8],
      ['-0', 0],
      ['999', 999],
    ];
    for (const [text, v] of cases) expect(value(text), text).toBe(v);
  });

  it('prints with the fewest parentheses that keep the tree', () => {
    const cases: [string, string][] = [
      ['((1+2))', '1+2'],
      ['1+(2*3)', '1+2*3'],
      ['(1+2)+3', '1+2+3'],
      ['1+(2+3)', '1+(2+3)'],
      ['1-(2+3)', '1-(2+3)'],
      ['(2*3)*4', '2*3*4'],
      ['2*(3*4)', '2*(3*4)'],
      ['(1+2)*(3-4)', '(1+2)*(3-4)'],
      ['min((1+2),3)', 'min(1+2,3)'],
      ['5--4', '5-(-4)'],
      ['2*-4', '2*(-4)'],
      ['(-4)*2', '-4*2'],
      ['min(-4,-3)', 'min(-4,-3)'],
    ];
    for (const [text, printed] of cases) expect(printExpr(parsed(text)), text).toBe(printed);
  });

  it('round-trips generated trees and agrees with an independent evaluator', () => {
    const rng = makeRng(3);
    const faults: string[] = [];
    for (const spec of SPECS) {
      for (let i = 0; i < 1000; i++) {
        const p = generateProblem(rng, spec);
        const reparsed = parseExpr(p.text);
        if (!reparsed.ok || !exprEquals(reparsed.expr, p.expr)) faults.push(`${p.text}: parse(print(tree)) is another tree`);
        if (printExpr(p.expr) !== p.text) faults.push(`${p.text}: printed differently`);
        if (value(p.text) !== jsValue(p.text) || p.answer !== jsValue(p.text)) faults.push(`${p.text}: JavaScript says ${jsValue(p.text)}`);
      }
    }
    expect(faults.slice(0, 5)).toEqual([]);
  });

  it('returns typed errors for malformed text', () => {
    const cases: [string, ParseErrorKind][] = [
      ['', 'empty'],
      ['1+', 'unexpected_end'],
      ['min(1', 'unexpected_end'],
      ['(1+2', 'unbalanced_parens'],
      ['min(1,2', 'unbalanced_parens'],
      ['1+2)', 'unbalanced_parens'],
      [')(', 'unexpected_token'],
      ['1 + 2', 'unexpected_char'],
      ['#5', 'unexpected_char'],
      ['1+2=3', 'unexpected_char'],
      ['1000', 'number_too_large'],
      ['123456789012345678901234567890', 'number_too_large'],
      ['007', 'leading_zero'],
      ['foo(1,2)', 'unknown_name'],
      ['m(1,2)', 'unknown_name'],
      ['ab+1', 'unknown_name'],
      ['x+1', 'variable_not_allowed'],
      ['min(1)', 'unexpected_token'],
      ['min', 'unexpected_end'],
      ['-(3)', 'unexpected_token'],
      ['---4', 'unexpected_token'],
      ['3(4)', 'unexpected_token'],
      ['1**2', 'unexpected_token'],
      ['('.repeat(40) + '1' + ')'.repeat(40), 'too_deep'],
      ['min('.repeat(40) + '1', 'too_deep'],
    ];
    for (const [text, kind] of cases) {
      const r = parseExpr(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) {
        expect(r.error.kind, text).toBe(kind);
        expect(r.error.position).toBeGreaterThanOrEqual(0);
        expect(r.error.position).toBeLessThanOrEqual(text.length);
      }
    }
  });

  it('allows variables only when asked', () => {
    const e = parsed('a*(b+2)', true);
    expect(evaluate(e, new Map([['a', 3], ['b', 4]]))).toEqual({ ok: true, value: 18 });
    expect(evaluate(e, new Map([['a', 3]]))).toMatchObject({ ok: false, error: { kind: 'unbound_variable' } });
  });

  it('never throws on arbitrary strings', () => {
    const rng = makeRng(5);
    const alphabet = [...VOCABULARY.slice(0, 62), ' ', '\n', '.', '/', 'é', '(', ')', '-'];
    for (let i = 0; i < 30000; i++) {
      const n = Math.floor(rng() * 30);
      let text = '';
      for (let k = 0; k < n; k++) text += alphabet[Math.floor(rng() * alphabet.length)];
      const r = parseExpr(text);
      if (r.ok) expect(parseExpr(printExpr(r.expr))).toEqual(r);
    }
  });
});

describe('world language: interpreter bounds', () => {
  it('flags any value beyond ±999, including intermediate ones', () => {
    expect(evaluate(parsed('999+1'))).toMatchObject({ ok: false, error: { kind: 'out_of_range' } });
    expect(evaluate(parsed('-999-1'))).toMatchObject({ ok: false, error: { kind: 'out_of_range' } });
    // The final value 601 is in range, but the product 1600 is not.
    expect(evaluate(parsed('40*40-999'))).toMatchObject({ ok: false, error: { kind: 'out_of_range' } });
    expect(evaluate(parsed('min(40*40,3)'))).toMatchObject({ ok: false, error: { kind: 'out_of_range' } });
    expect(evaluate(parsed('999-1+1'))).toEqual({ ok: true, value: 999 });
  });

  it('flags mod by zero', () => {
    expect(evaluate(parsed('mod(5,0)'))).toMatchObject({ ok: false, error: { kind: 'mod_by_zero' } });
    expect(evaluate(parsed('mod(5,3-3)'))).toMatchObject({ ok: false, error: { kind: 'mod_by_zero' } });
  });
});
