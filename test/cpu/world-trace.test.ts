import { describe, expect, it } from 'vitest';
import { conceptKey, conceptsOf, conceptTags } from '../../src/world/concepts';
import { countOps, parseExpr, type Expr } from '../../src/world/expr';
import { applyOp, evaluate } from '../../src/world/interpreter';
import { generateProblem, resolveDifficulty, type DifficultySpec, type Problem } from '../../src/world/generator';
import { makeRng } from '../../src/world/rng';
import { checkTrace, extractAnswer, formatStep, parseTrace, solutionOf, solveSteps, type Step } from '../../src/world/trace';

function parsed(text: string): Expr {
  const r = parseExpr(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.expr;
}

function steps(trace: string): Step[] {
  const r = parseTrace(trace);
  if (!r.ok) throw new Error(`${trace}: ${r.reason}`);
  return r.steps;
}

/** What is wrong with a generated problem's gold trace, or null. */
function traceFault(p: Problem, ops: number): string | null {
  const ev = evaluate(p.expr);
  if (!ev.ok || ev.value !== p.answer) return 'answer is not the interpreter value';
  const trace = parseTrace(p.solution);
  if (!trace.ok) return `trace does not parse: ${trace.reason}`;
  if (trace.steps.length !== ops) return 'not one step per operation';
  for (const s of trace.steps) {
    const r = applyOp(s.op, s.left, s.right);
    if (!r.ok || r.value !== s.value) return `step ${formatStep(s)} is wrong`;
  }
  if (trace.answer !== p.answer || trace.steps[ops - 1].value !== p.answer) return 'final answer is not the last step';
  if (!checkTrace(p.expr, trace.steps, trace.answer).ok) return 'checker rejects the trace';
  if (extractAnswer(p.solution) !== p.answer) return 'extraction misses the answer';
  return null;
}

describe('world trace: the step-trace solver', () => {
  it('writes one reduction per step, innermost-leftmost first', () => {
    expect(solutionOf(parsed('(7+5)*3-4'))).toBe('7+5=12;12*3=36;36-4=32;#32');
    expect(solutionOf(parsed('(1+2)*(3+4)'))).toBe('1+2=3;3+4=7;3*7=21;#21');
    expect(solutionOf(parsed('1+2*3'))).toBe('2*3=6;1+6=7;#7');
    expect(solutionOf(parsed('min(3+4,2*5)'))).toBe('3+4=7;2*5=10;min(7,10)=7;#7');
    expect(solutionOf(parsed('mod(17,5)*2'))).toBe('mod(17,5)=2;2*2=4;#4');
    expect(solutionOf(parsed('(3-7)*2'))).toBe('3-7=-4;-4*2=-8;#-8');
    expect(solutionOf(parsed('5-(3-7)'))).toBe('3-7=-4;5-(-4)=9;#9');
    expect(solutionOf(parsed('7'))).toBe('#7');
    expect(solutionOf(parsed('(0-4)*0'))).toBe('0-4=-4;-4*0=0;#0');
    expect(() => solutionOf(parsed('mod(1,0)'))).toThrow(/mod/);
  });

  it('gives every generated problem a correct trace whose answer is the interpreter value', () => {
    const rng = makeRng(21);
    const specs: DifficultySpec[] = [1, 2, 3, 4, 5].map((ops) => ({ ops }));
    specs.push({ ops: 5, allowNegative: true, functionRate: 0.5 }, { ops: 4, maxOperand: 40, allowNegative: true });
    const faults: string[] = [];
    for (const spec of specs) {
      for (let i = 0; i < 1500; i++) {
        const p = generateProblem(rng, spec);
        const fault = traceFault(p, spec.ops);
        if (fault) faults.push(`${p.text} → ${p.solution}: ${fault}`);
      }
    }
    expect(faults.slice(0, 5)).toEqual([]);
  });
});

describe('world trace: answer extraction', () => {
  it('reads the integer after the last marker, else null', () => {
    const cases: [string, number | null][] = [
      ['7+5=12;12*3=36;36-4=32;#32', 32],
      ['#32', 32],
      ['#-3', -3],
      ['#0', 0],
      ['x#5#7', 7],
      ['#5#', null],
      ['', null],
      ['32', null],
      ['7+5=12;', null],
      ['#', null],
      ['#3.5', null],
      ['#+3', null],
      ['#03', null],
      ['#-0', null],
      ['#1000', null],
      ['#-1000', null],
      ['#12abc', null],
      ['#99999999999999999999999', null],
      ['# 3', null],
      ['#3<eos>', null],
    ];
    for (const [text, answer] of cases) expect(extractAnswer(text), JSON.stringify(text)).toBe(answer);
  });
});

describe('world trace: the step checker', () => {
  it('accepts any legal reduction order', () => {
    const e = parsed('(1+2)*(3+4)');
    expect(checkTrace(e, steps('3+4=7;1+2=3;3*7=21;#21'), 21)).toEqual({ ok: true });
    expect(checkTrace(e, steps('1+2=3;3+4=7;3*7=21;#21'), 21)).toEqual({ ok: true });
  });

  it('names the first failing step and the reason', () => {
    const e = parsed('(7+5)*3-4');
    const check = (trace: string) => {
      const t = parseTrace(trace);
      if (!t.ok) throw new Error(t.reason);
      return checkTrace(e, t.steps, t.answer);
    };
    expect(check('7+5=13;13*3=39;39-4=35;#35')).toEqual({ ok: false, reason: 'wrong_step', step: 0 });
    expect(check('7+5=12;12*3=36;36-4=31;#31')).toEqual({ ok: false, reason: 'wrong_step', step: 2 });
    expect(check('12*3=36;#36')).toEqual({ ok: false, reason: 'step_not_in_problem', step: 0 });
    expect(check('7+5=12;36-4=32;#32')).toEqual({ ok: false, reason: 'step_not_in_problem', step: 1 });
    expect(check('7+5=12;12*3=36;#36')).toEqual({ ok: false, reason: 'incomplete_trace' });
    expect(check('#32')).toEqual({ ok: false, reason: 'incomplete_trace' });
    expect(check('7+5=12;12*3=36;36-4=32;#33')).toEqual({ ok: false, reason: 'answer_mismatch' });
    expect(check('7+5=12;12*3=36;36-4=32;36-4=32;#32')).toEqual({ ok: false, reason: 'step_not_in_problem', step: 3 });
  });

  it('rejects malformed steps with their index', () => {
    const cases: [string, string, number?][] = [
      ['1+2=3#3', 'bad_step', 0],
      ['1+2=3;;#3', 'bad_step', 1],
      ['1+2;#3', 'bad_step', 0],
      ['1+2=3=3;#3', 'bad_step', 0],
      ['(1+2)*3=9;#9', 'bad_step', 0],
      ['1+x=3;#3', 'bad_step', 0],
      ['1+2=03;#3', 'bad_step', 0],
      ['1+2=1000;#3', 'bad_step', 0],
      ['1+2=3;', 'missing_marker'],
      ['1+2=3;#', 'bad_answer'],
      ['1+2=3;#1234', 'answer_out_of_range'],
    ];
    for (const [text, reason, step] of cases) {
      expect(parseTrace(text), text).toEqual(step === undefined ? { ok: false, reason } : { ok: false, reason, step });
    }
  });
});

describe('world concepts and difficulty', () => {
  it('reads concepts off the tree', () => {
    const c = conceptsOf(parsed('(7+5)*3-4'));
    expect(c).toEqual({ ops: 3, operators: ['+', '-', '*'], functions: [], depth: 3, nesting: 1, magnitude: 'medium' });
    expect(conceptTags(c)).toEqual(['nest', 'mul', 'sub', 'add']);
    expect(conceptKey(c)).toBe('ops3 +-* d3 n1 medium');
    expect(conceptsOf(parsed('1+2*3'))).toMatchObject({ nesting: 0, depth: 2, magnitude: 'small' });
    expect(conceptsOf(parsed('min(1,mod(9,4))'))).toMatchObject({ functions: ['min', 'mod'], nesting: 1, operators: [] });
    expect(conceptsOf(parsed('12*12'))).toMatchObject({ magnitude: 'large' });
    expect(conceptTags(conceptsOf(parsed('max(12*12,1)')))).toEqual(['max', 'nest', 'big', 'mul']);
  });

  it('generates exactly the requested operation count, depth and operand range', () => {
    const rng = makeRng(8);
    for (const spec of [{ ops: 1 }, { ops: 4, maxDepth: 3 }, { ops: 5, maxOperand: 5 }, { ops: 3, functionRate: 0 }]) {
      const full = resolveDifficulty(spec);
      for (let i = 0; i < 500; i++) {
        const p = generateProblem(rng, spec);
        expect(countOps(p.expr)).toBe(full.ops);
        expect(p.concepts.depth).toBeLessThanOrEqual(full.maxDepth);
        const r = solveSteps(p.expr);
        if (!r.ok) throw new Error(p.text);
        for (const s of r.steps) {
          expect(s.value).toBeGreaterThanOrEqual(0);
          if (s.op === 'mod') expect(s.right).toBeGreaterThan(0);
          if (full.functionRate === 0) expect(['+', '-', '*']).toContain(s.op);
        }
        const literals = p.text.match(/[0-9]+/g)?.map(Number) ?? [];
        for (const n of literals) expect(n).toBeLessThanOrEqual(full.maxOperand);
      }
    }
  });

  it('is deterministic for a seed', () => {
    const draw = (seed: number) => {
      const rng = makeRng(seed);
      return Array.from({ length: 50 }, (_, i) => generateProblem(rng, 1 + (i % 5)).text);
    };
    expect(draw(4)).toEqual(draw(4));
    expect(draw(4)).not.toEqual(draw(5));
  });

  it('rejects impossible difficulties with a message saying what to change', () => {
    expect(() => resolveDifficulty(0)).toThrow(/ops must be an integer in 1\.\.5/);
    expect(() => resolveDifficulty(6)).toThrow(/ops/);
    expect(() => resolveDifficulty({ ops: 4, maxDepth: 2 })).toThrow(/cannot fit in depth 2/);
    expect(() => resolveDifficulty({ ops: 2, maxOperand: 0 })).toThrow(/maxOperand/);
    expect(() => resolveDifficulty({ ops: 2, functionRate: 2 })).toThrow(/functionRate/);
  });
});
