// The model card's role diagnostics: gold responses score as fully valid, so a card that reports
// a low rate measures the policy, not the metric; broken responses score as invalid.
import { describe, expect, it } from 'vitest';
import { scoreRole, trainWeighted } from '../../src/pretrain/card';
import { makeRng, parseVary, responseText, sampleExample, type Role } from '../../src/world/index';

const ROLES_SCORED: Exclude<Role, 'solve'>[] = ['vary', 'challenge', 'teach', 'propose'];

function examples(role: Exclude<Role, 'solve'>, n: number) {
  const rng = makeRng(11);
  return Array.from({ length: n }, (_, i) => sampleExample(rng, role, 1 + (i % 3)));
}

describe('model card role metrics', () => {
  it.each(ROLES_SCORED)('%s: gold responses parse and are valid every time', (role) => {
    const ex = examples(role, 40);
    const m = scoreRole(role, ex, ex.map((e) => responseText(e.response).text));
    expect(m.parseRate).toBe(1);
    if (role === 'vary') expect(m.trueSameAnswerRate).toBe(1);
    if (role === 'challenge') expect(m.goldAccuracy).toBe(1);
    if (role === 'teach') expect(m.legalRate).toBe(1);
    if (role === 'propose') expect(m.validRate).toBe(1);
  });

  it('vary: a variant with another value parses but is not a true same-answer variant', () => {
    const ex = examples('vary', 20);
    const m = scoreRole('vary', ex, ex.map(() => '1+1'));
    expect(m.parseRate).toBe(1);
    // exactly the problems whose value happens to be 2 count
    const value = (e: (typeof ex)[number]) => {
      const g = parseVary(responseText(e.response).text);
      return g.ok ? g.value.problem.oracleValue : null;
    };
    const twos = ex.filter((e) => value(e) === 2).length;
    expect(twos).toBeLessThan(20);
    expect(m.trueSameAnswerRate).toBe(twos / 20);
  });

  it('propose: a well-formed proposal with a wrong reference solution parses but is not valid', () => {
    const ex = examples('propose', 4);
    // a wrong step, a missing step, a wrong final answer, and one correct proposal
    const texts = ['2+3*4=3*4=13;2+13=15;#15', '2+3*4=3*4=12;#12', '2+3*4=3*4=12;2+12=14;#15', '2+3*4=3*4=12;2+12=14;#14'];
    const m = scoreRole('propose', ex, texts);
    expect(m.parseRate).toBe(1);
    expect(m.validRate).toBe(0.25);
    // without a trace, or with a step that is not arithmetic, it does not parse
    expect(scoreRole('propose', ex.slice(0, 2), ['2+3*4', '2+3*4=3*x=1;#1']).parseRate).toBe(0);
  });

  it('malformed responses parse nowhere', () => {
    for (const role of ROLES_SCORED) {
      const ex = examples(role, 5);
      const m = scoreRole(role, ex, ['', ')(', '#', 'x'.repeat(200), '<sep>']);
      expect(m.parseRate, role).toBe(0);
    }
    expect(() => scoreRole('vary', examples('vary', 2), ['1'])).toThrow(/2 examples but 1 responses/);
  });

  it('solve pass@1 on the training set weighs each level by its share of the train set', () => {
    const { pass1, weights } = trainWeighted({ ops1: { pass1: 1 }, ops2: { pass1: 0 }, ops3: { pass1: 0 }, ops4: { pass1: 0 } });
    expect(Object.keys(weights).sort()).toEqual(['ops1', 'ops2', 'ops3', 'ops4']);
    expect(Object.values(weights).reduce((a, w) => a + w, 0)).toBeCloseTo(1, 3);
    expect(pass1).toBeCloseTo(weights.ops1, 3);
    expect(() => trainWeighted({ ops1: { pass1: 1 } })).toThrow(/no solve metrics for ops[234]/);
  });
});
