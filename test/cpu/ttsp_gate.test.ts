// TTSP's validity gate and replay buffer (LOOPS.md §6), groundwork for the loop: crafted proposals
// land in their categories (valid, cut at the limit, unparseable, a reference that does not check
// step by step, a stated answer the steps do not reach, a duplicate of an earlier problem or the
// target, a proposal containing the target), counts cover every category, and the buffer draws distinct entries, keeps a replayed
// problem only at 0 < p < 1, and round-trips as a run's state.
import { describe, expect, it } from 'vitest';
import { containsTarget, gate, keepReplayed, problemForm, ReplayBuffer, verdictCounts } from '../../src/loops/ttsp/gate';
import { readProblem } from '../../src/world/index';

const expr = (text: string) => {
  const p = readProblem(text);
  if (!p.ok) throw new Error(`${text}: ${p.reason}`);
  return p.value.expr;
};

describe('TTSP validity gate', () => {
  const seen = new Set([problemForm('9-2') as string]);
  it('passes a proposal whose reference checks and whose stated answer it reaches', () => {
    expect(gate('7+5=7+5=12;#12', true, seen)).toEqual({ verdict: 'valid', problem: '7+5', answer: 12, reason: null });
    expect(gate('(7+5)*3=7+5=12;12*3=36;#36', true, seen)).toMatchObject({ verdict: 'valid', answer: 36 });
  });
  it('rejects by category: cut, unparseable, bad reference, answer mismatch, duplicate', () => {
    expect(gate('7+5=7+5=12;#12', false, seen).verdict).toBe('cut');
    expect(gate('7+*5=12;#12', true, seen)).toMatchObject({ verdict: 'unparseable', reason: 'bad_problem' });
    expect(gate('7+5=7+5=13;#13', true, seen)).toMatchObject({ verdict: 'bad_reference', reason: 'wrong_step' });
    expect(gate('7+5', true, seen)).toMatchObject({ verdict: 'bad_reference', reason: 'missing_trace' });
    expect(gate('hello', true, seen)).toMatchObject({ verdict: 'unparseable', reason: 'bad_problem' });
    expect(gate('7+5=7+5=12;#13', true, seen)).toMatchObject({ verdict: 'answer_mismatch', reason: 'answer_mismatch' });
    expect(gate('9-2=9-2=7;#7', true, seen)).toMatchObject({ verdict: 'duplicate', problem: '9-2', answer: 7 });
  });
  it('refuses a rewording of the target or of an earlier problem (operands of +, *, min, max reordered or regrouped), in both gate modes', () => {
    const target = new Set([problemForm('min(9,9-1+4)') as string]);
    expect(gate('min(9-1+4,9)=9-1=8;8+4=12;min(12,9)=9;#9', true, target)).toMatchObject({ verdict: 'duplicate', problem: 'min(9-1+4,9)' });
    expect(gate('min(9-1+4,9)=#9', true, target, 'answer-only').verdict).toBe('duplicate');
    expect(gate('min(9,9-1+4)=#9', true, target, 'answer-only').verdict).toBe('duplicate');
    expect(problemForm('2+(3+4)')).toBe(problemForm('(4+2)+3'));
    expect(problemForm('2*3*max(1,5)')).toBe(problemForm('max(5,1)*(3*2)'));
    // not the same problem: subtraction and mod keep their order, and + does not regroup across -
    expect(problemForm('9-2')).not.toBe(problemForm('2-9'));
    expect(problemForm('mod(9,2)')).not.toBe(problemForm('mod(2,9)'));
    expect(problemForm('1+2-3')).not.toBe(problemForm('1+(2-3)'));
    expect(problemForm('hello')).toBeNull();
  });

  it('finds the target inside a problem up to the order of commutative operands, not a rewrite of its value', () => {
    const t = expr('2*max(4,5)');
    for (const inside of ['max(2*max(4,5),2)', '2*max(4,5)', 'max(5,4)*2', '3*max(5,4)*2', '(2*3)*max(4,5)', '9-2*max(4,5)', 'mod(max(4,5)*2+1,7)']) expect(containsTarget(expr(inside), t), inside).toBe(true);
    // same value (10) or a part of the target only: not the target
    for (const outside of ['2*5', '(1+1)*max(4,5)', 'max(4,5)+max(4,5)', 'max(4,5)', '2*max(4,6)', '2+max(4,5)', 'max(2*4,5)']) expect(containsTarget(expr(outside), t), outside).toBe(false);
    // a target that is no chain: a subtree of the same form
    expect(containsTarget(expr('max(9-2,1)'), expr('9-2'))).toBe(true);
    expect(containsTarget(expr('max(2-9,1)'), expr('9-2'))).toBe(false);
    expect(containsTarget(expr('max(max(4,5),4)'), expr('max(4,4)'))).toBe(true);
    expect(containsTarget(expr('max(4,5)'), expr('max(4,4)'))).toBe(false);
  });

  it('refuses a proposal containing the target as contains_target when asked, in both gate modes, after the duplicate check', () => {
    const target = expr('2*max(4,5)');
    const seenT = new Set([problemForm('2*max(4,5)') as string]);
    const proposal = 'max(2*max(4,5),2)=max(4,5)=5;2*5=10;max(10,2)=10;#10';
    expect(gate(proposal, true, seenT)).toMatchObject({ verdict: 'valid', problem: 'max(2*max(4,5),2)', answer: 10 });
    expect(gate(proposal, true, seenT, 'full', target)).toEqual({ verdict: 'contains_target', problem: 'max(2*max(4,5),2)', answer: 10, reason: null });
    expect(gate('max(2*max(4,5),2)=#10', true, seenT, 'answer-only', target).verdict).toBe('contains_target');
    // the target itself stays a duplicate; a rewrite of its value passes (the oracle's metric counts it)
    expect(gate('max(5,4)*2=max(5,4)=5;5*2=10;#10', true, seenT, 'full', target).verdict).toBe('duplicate');
    expect(gate('2*5=2*5=10;#10', true, seenT, 'full', target).verdict).toBe('valid');
    // a failing reference is still its own category
    expect(gate('max(2*max(4,5),2)=max(4,5)=4;#4', true, seenT, 'full', target).verdict).toBe('bad_reference');
  });

  it('counts a step\'s verdicts, every category present', () => {
    expect(verdictCounts(['valid', 'valid', 'duplicate', 'cut', 'contains_target'])).toEqual({ valid: 2, cut: 1, unparseable: 0, bad_reference: 0, answer_mismatch: 0, duplicate: 1, contains_target: 1 });
  });
});

describe('TTSP replay buffer', () => {
  it('draws distinct entries, at most what it holds, and round-trips as state', () => {
    const b = new ReplayBuffer();
    for (let i = 0; i < 5; i++) b.add({ problem: `${i}+1`, answer: i + 1, step: i });
    let s = 0.37;
    const rand = () => (s = (s * 9.1) % 1);
    const d = b.draw(3, rand);
    expect(d).toHaveLength(3);
    expect(new Set(d.map((e) => e.problem)).size).toBe(3);
    expect(b.draw(9, rand)).toHaveLength(5);
    expect(ReplayBuffer.from(b.toJSON()).toJSON()).toEqual(b.toJSON());
    expect([0, 0.125, 0.875, 1].map(keepReplayed)).toEqual([false, true, true, false]);
  });
});
