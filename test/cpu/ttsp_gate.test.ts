// TTSP's validity gate and replay buffer (LOOPS.md §6), groundwork for the loop: crafted proposals
// land in their categories (valid, cut at the limit, unparseable, a reference that does not check
// step by step, a stated answer the steps do not reach, a duplicate of an earlier problem or the
// target), counts cover every category, and the buffer draws distinct entries, keeps a replayed
// problem only at 0 < p < 1, and round-trips as a run's state.
import { describe, expect, it } from 'vitest';
import { gate, keepReplayed, problemForm, ReplayBuffer, verdictCounts } from '../../src/loops/ttsp/gate';

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

  it('counts a step\'s verdicts, every category present', () => {
    expect(verdictCounts(['valid', 'valid', 'duplicate', 'cut'])).toEqual({ valid: 2, cut: 1, unparseable: 0, bad_reference: 0, answer_mismatch: 0, duplicate: 1 });
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
