import { describe, expect, it } from 'vitest';
import { conceptsOf, conceptTags } from '../../src/world/concepts';
import { parseDocument } from '../../src/world/corpus';
import { sampleExample } from '../../src/world/examples';
import { printExpr } from '../../src/world/expr';
import { generateProblem } from '../../src/world/generator';
import { evaluate } from '../../src/world/interpreter';
import { REWRITES, rewritesOf, type Rewrite } from '../../src/world/variants';
import { makeRng } from '../../src/world/rng';
import {
  CONTEXT_TOKENS,
  parseChallenge,
  parsePropose,
  parseSolve,
  parseTeach,
  parseVary,
  promptFits,
  proposePrompt,
  readProblem,
  ROLE_LIMITS,
  VARIANT_CONTEXTS,
  varyPrompt,
  varyPromptFor,
  varyPromptWithProblem,
  type ParseFailure,
  type RoleParse,
} from '../../src/world/roles';
import { BOS, decode, encode, EOS, responseText, ROLE_TOKEN, ROLES, SEP, VOCAB_SIZE, type Role } from '../../src/world/tokenizer';

const PARSERS: Record<Role, (text: string) => RoleParse<unknown>> = {
  solve: parseSolve,
  vary: parseVary,
  challenge: parseChallenge,
  teach: parseTeach,
  propose: parsePropose,
};

/** The prompt's text after `<bos><role>`, split at its separators. */
function promptParts(prompt: number[]): string[] {
  return decode(prompt.slice(2)).split('<sep>').filter((s) => s.length > 0);
}

function okValue<T>(r: RoleParse<T>, text: string): T {
  if (!r.ok) throw new Error(`${JSON.stringify(text)} rejected: ${r.reason}`);
  return r.value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What is wrong with a gold example, beyond its format: its meaning. Empty when nothing. */
function semanticFaults(role: Role, parts: string[], text: string): string[] {
  const faults: string[] = [];
  const check = (cond: boolean, what: string) => cond || faults.push(what);
  switch (role) {
    case 'solve': {
      const problem = okValue(readProblem(parts[0].slice(0, -1)), parts[0]);
      check(okValue(parseSolve(text), text).answer === problem.oracleValue, 'gold answer is not the value');
      break;
    }
    case 'vary': {
      // `PROBLEM=TRACE` (the ablation's format) has two '=' in its first step, `TRACE` (SvS's) one
      const withProblem = parts[0].split(';')[0].split('=').length === 3;
      const trace = withProblem ? parts[0].slice(parts[0].indexOf('=') + 1) : parts[0];
      const value = Number(trace.slice(trace.lastIndexOf('#') + 1));
      const { problem } = okValue(parseVary(text), text);
      check(problem.oracleValue === value, 'variant changes the answer');
      check(problem.expr.kind === 'op', 'variant is a bare number');
      if (withProblem) check(problem.text !== okValue(readProblem(parts[0].split('=')[0]), parts[0]).text, 'variant is the source');
      const steps = trace.split(';');
      check(steps.length < 2 || problem.text !== steps[steps.length - 2].split('=')[0], 'variant is the trivial last step');
      break;
    }
    case 'challenge': {
      const doc = parseDocument(parts[0]);
      if (!doc.ok) throw new Error(doc.message);
      const { question, gold } = okValue(parseChallenge(text), text);
      check(question.oracleValue === gold, 'question does not evaluate to the gold');
      check(doc.doc.statements.some((s) => s.value === gold && s.expr.kind === 'op'), 'gold is not a computed value of the document');
      break;
    }
    case 'teach': {
      const { problem, tags } = okValue(parseTeach(text), text);
      check(problem.text !== parts[0], 'teach repeats the pool problem');
      check(tags.length > 0 && same(tags, conceptTags(conceptsOf(problem.expr)).slice(0, 3)), 'tags are not the first three concepts');
      break;
    }
    case 'propose': {
      const { problem, answer } = okValue(parsePropose(text), text);
      check(!parts.includes(problem.text), 'proposal repeats the target or an earlier proposal');
      check(same(evaluate(problem.expr), { ok: true, value: answer }), 'reference answer is not the value');
      break;
    }
  }
  return faults;
}

/** Format faults of a gold example: role token, limits, EOS, round trip. */
function formatFaults(role: Role, ex: { prompt: number[]; response: number[] }): string[] {
  const faults: string[] = [];
  const check = (cond: boolean, what: string) => cond || faults.push(what);
  check(same(ex.prompt.slice(0, 2), [BOS, ROLE_TOKEN[role]]), 'prompt does not start with BOS and the role token');
  check(promptFits(role, ex.prompt), 'prompt over its limit');
  check(ex.response.length <= ROLE_LIMITS[role].response, 'response over its limit');
  check(ex.prompt.length + ex.response.length <= CONTEXT_TOKENS, 'example over the context');
  check(ex.response.indexOf(EOS) === ex.response.length - 1, 'response does not end with its only EOS');
  check(same(encode(decode(ex.prompt)), ex.prompt) && same(encode(decode(ex.response)), ex.response), 'no token round trip');
  return faults;
}

describe('world roles: gold examples', () => {
  it('keeps the role limits inside the context', () => {
    for (const role of ROLES) expect(ROLE_LIMITS[role].prompt + ROLE_LIMITS[role].response).toBeLessThanOrEqual(CONTEXT_TOKENS);
  });

  for (const role of ROLES) {
    it(`${role}: the parser accepts every generated example, which fits the context and round-trips`, () => {
      const rng = makeRng(100 + ROLES.indexOf(role));
      const faults: string[] = [];
      for (let i = 0; i < 2500; i++) {
        const ex = sampleExample(rng, role, 1 + (i % 5));
        const { text } = responseText(ex.response);
        const found = [...formatFaults(role, ex), ...semanticFaults(role, promptParts(ex.prompt), text)];
        if (found.length > 0) faults.push(`${decode(ex.prompt)} → ${text}: ${found.join(', ')}`);
      }
      expect(faults.slice(0, 5)).toEqual([]);
    });
  }

  it('is deterministic for a seed', () => {
    const draw = (seed: number) => {
      const rng = makeRng(seed);
      return ROLES.flatMap((role) => [1, 3, 5].map((d) => decode([...sampleExample(rng, role, d).prompt, ...sampleExample(rng, role, d).response])));
    };
    expect(draw(9)).toEqual(draw(9));
    expect(draw(9)).not.toEqual(draw(10));
  });
});

describe('world variants: meaning-preserving rewrites', () => {
  it('keeps the value under every rewrite kind, and every kind occurs', () => {
    const rng = makeRng(55);
    const faults: string[] = [];
    const uses = Object.fromEntries(REWRITES.map((k) => [k, 0])) as Record<Rewrite, number>;
    for (let i = 0; i < 1500; i++) {
      const p = generateProblem(rng, { ops: 1 + (i % 4), allowNegative: i % 2 === 0 });
      for (const kind of REWRITES) {
        for (const e of rewritesOf(rng, p.expr, kind)) {
          const r = evaluate(e);
          if (!r.ok) continue; // a rewrite may leave the bounds; goldVariant drops those
          uses[kind]++;
          if (r.value !== p.answer) faults.push(`${kind}: ${p.text} → ${printExpr(e)} = ${r.value}`);
        }
      }
    }
    expect(faults.slice(0, 5)).toEqual([]);
    for (const kind of REWRITES) expect(uses[kind], kind).toBeGreaterThan(100);
  });

  it('shows the rewrites on a worked example', () => {
    const rng = makeRng(1);
    const e = okValue(readProblem('(7+5)*3-4'), '').expr;
    const texts = (kind: Rewrite) => rewritesOf(rng, e, kind).map(printExpr);
    expect(texts('commute')).toEqual(['3*(7+5)-4', '(5+7)*3-4']);
    expect(texts('substitute')).toEqual(['36-4', '12*3-4']);
    expect(texts('distribute')).toEqual(['7*3+5*3-4']);
    expect(texts('reassociate')).toEqual([]);
    expect(texts('split')).toHaveLength(4);
  });
});

const MALFORMED: Record<Role, [string, ParseFailure][]> = {
  solve: [
    ['', 'empty'],
    ['garbage', 'missing_marker'],
    ['7+5=12;12*3=36;', 'missing_marker'],
    ['#', 'bad_answer'],
    ['#abc', 'bad_answer'],
    ['#3.5', 'bad_answer'],
    ['#03', 'bad_answer'],
    ['1+1=2;#2#', 'bad_answer'],
    ['#12<sep>', 'bad_answer'],
    ['#1000', 'answer_out_of_range'],
    ['#99999999999999999999', 'answer_out_of_range'],
  ],
  vary: [
    ['', 'empty'],
    [')(', 'bad_problem'],
    ['(1+2', 'bad_problem'],
    ['1+2)', 'bad_problem'],
    ['12*3-4#32', 'bad_problem'],
    ['a+1', 'bad_problem'],
    ['1+1<c:add>', 'bad_problem'],
    ['1+', 'bad_problem'],
    ['1000+1', 'problem_out_of_range'],
    ['999+1', 'problem_out_of_range'],
    ['40*40-999', 'problem_out_of_range'],
    ['mod(3,0)', 'mod_by_zero'],
    ['1+'.repeat(20) + '1', 'too_long'], // 41 characters, one more than MAX_PROBLEM_CHARS
  ],
  challenge: [
    ['', 'empty'],
    ['3+4', 'missing_marker'],
    ['3+4#', 'bad_answer'],
    ['3+4#x', 'bad_answer'],
    ['3+4#7.0', 'bad_answer'],
    ['3+4#1000', 'answer_out_of_range'],
    ['3+4#7#7', 'bad_problem'],
    ['#7', 'bad_problem'],
    ['3+#7', 'bad_problem'],
    ['(3+4#7', 'bad_problem'],
    ['a+4#7', 'bad_problem'],
    ['mod(1,0)#0', 'mod_by_zero'],
    ['999*2#1', 'problem_out_of_range'],
  ],
  teach: [
    ['', 'empty'],
    ['<c:add>', 'bad_problem'],
    ['(3+4<c:add>', 'bad_problem'],
    ['3+4<c:foo>', 'bad_tag'],
    ['3+4<c:add><c:add>', 'bad_tag'],
    ['3+4<c:add', 'bad_tag'],
    ['3+4<sep>', 'bad_tag'],
    ['3+4<c:add>5', 'bad_tag'],
    ['3+4<eos>', 'bad_tag'],
    ['3+4<c:add><c:mul><c:sub><c:nest>', 'too_many_tags'],
    ['999+999<c:add>', 'problem_out_of_range'],
  ],
  propose: [
    ['', 'empty'],
    ['3+4', 'missing_trace'],
    ['3+4=', 'missing_marker'],
    ['3+4=3+4=7;', 'missing_marker'],
    ['3+4=3+4=7;#x', 'bad_answer'],
    ['3+4=3+4=7;#1000', 'answer_out_of_range'],
    ['3+4=3+4=7#7', 'bad_step'],
    ['3+4=3+4=7;;#7', 'bad_step'],
    ['(3+4=3+4=7;#7', 'bad_problem'],
    ['mod(3,0)=#0', 'mod_by_zero'],
    ['3+4=3+4=8;#8', 'wrong_step'],
    ['3+4=2+5=7;#7', 'step_not_in_problem'],
    ['3+4*2=4*2=8;#8', 'incomplete_trace'],
    ['3+4=#7', 'incomplete_trace'],
    ['3+4=3+4=7;#8', 'answer_mismatch'],
  ],
};

describe('world roles: parsers', () => {
  for (const role of ROLES) {
    it(`${role}: rejects malformed output with the right reason`, () => {
      for (const [text, reason] of MALFORMED[role]) expect(PARSERS[role](text), `${role} ${JSON.stringify(text)}`).toEqual({ ok: false, reason });
    });
  }

  it('reads the last marker, parses tags and accepts any legal step order', () => {
    expect(parseSolve('x#5#7')).toEqual({ ok: true, value: { answer: 7 } });
    expect(parseSolve('<solve>#3')).toEqual({ ok: true, value: { answer: 3 } });
    expect(parseTeach('3+4')).toMatchObject({ ok: true, value: { tags: [] } });
    expect(parseTeach('((3+4))<c:add><c:nest>')).toMatchObject({ ok: true, value: { problem: { text: '3+4' }, tags: ['add', 'nest'] } });
    expect(parsePropose('7=#7')).toMatchObject({ ok: true, value: { answer: 7 } });
    expect(parsePropose('(1+2)*(3+4)=3+4=7;1+2=3;3*7=21;#21')).toMatchObject({ ok: true, value: { answer: 21 } });
    expect(parseChallenge('5--4#9')).toMatchObject({ ok: true, value: { question: { text: '5-(-4)', oracleValue: 9 }, gold: 9 } });
    expect(parseVary('(2+3)')).toMatchObject({ ok: true, value: { problem: { text: '2+3', oracleValue: 5 } } });
  });

  it('rejects every strict prefix of a gold proposal (a truncated reference is not checked)', () => {
    const rng = makeRng(77);
    for (let i = 0; i < 200; i++) {
      const { text } = responseText(sampleExample(rng, 'propose', 1 + (i % 4)).response);
      for (let cut = 0; cut < text.length; cut++) expect(parsePropose(text.slice(0, cut)).ok, text.slice(0, cut)).toBe(false);
    }
  });

  it('never throws on random token sequences', () => {
    const rng = makeRng(31);
    let accepted = 0;
    for (let i = 0; i < 20000; i++) {
      const ids = Array.from({ length: Math.floor(rng() * 60) }, () => Math.floor(rng() * VOCAB_SIZE));
      const { text } = responseText(ids);
      for (const role of ROLES) if (PARSERS[role](text).ok) accepted++;
    }
    expect(accepted).toBeLessThan(20000); // mostly garbage is rejected, and nothing threw
  });

  it('keeps earlier proposals only while they fit the prompt', () => {
    const earlier = Array.from({ length: 10 }, (_, i) => `${i}+${i}*(${i}+1)`);
    const ids = proposePrompt('1+2*3', earlier);
    expect(promptFits('propose', ids)).toBe(true);
    const parts = promptParts(ids);
    expect(parts[0]).toBe('1+2*3');
    expect(parts.slice(1)).toEqual(earlier.slice(0, parts.length - 1));
    expect(parts.length).toBeLessThan(earlier.length + 1);
    expect(() => proposePrompt('1+'.repeat(40) + '1', [])).toThrow(/does not fit/);
  });
});

describe('world roles: the vary prompt (SvS conditions on the solution alone)', () => {
  const trace = '7+5=12;12*3=36;#36';
  it('varyPrompt(s) is <bos><vary>s<sep>, without the problem', () => {
    expect(varyPrompt(trace)).toEqual([BOS, ROLE_TOKEN.vary, ...encode(trace), SEP]);
    expect(varyPromptFor('solution', '(7+5)*3', trace)).toEqual(varyPrompt(trace));
  });
  it('the ablation shows the problem before its solution', () => {
    expect(varyPromptWithProblem('(7+5)*3', trace)).toEqual([BOS, ROLE_TOKEN.vary, ...encode(`(7+5)*3=${trace}`), SEP]);
    expect(varyPromptFor('problem+solution', '(7+5)*3', trace)).toEqual(varyPromptWithProblem('(7+5)*3', trace));
  });
  it('pretraining draws both formats, the solution alone about two times in three', () => {
    const rng = makeRng(5);
    let solutionOnly = 0;
    const n = 600;
    for (let i = 0; i < n; i++) {
      const part = decode(sampleExample(rng, 'vary', 1 + (i % 3)).prompt.slice(2, -1));
      if (part.split(';')[0].split('=').length === 2) solutionOnly++;
    }
    expect(solutionOnly / n).toBeGreaterThan(0.58);
    expect(solutionOnly / n).toBeLessThan(0.75);
    for (const varyContext of VARIANT_CONTEXTS) {
      const ex = sampleExample(makeRng(9), 'vary', 2, { varyContext });
      expect(decode(ex.prompt.slice(2, -1)).split(';')[0].split('=').length).toBe(varyContext === 'solution' ? 2 : 3);
    }
  });
  it('propose examples show 0 to 3 earlier problems (TTSP shows up to contextProblems = 3)', () => {
    const rng = makeRng(11);
    const counts = new Set<number>();
    for (let i = 0; i < 400; i++) counts.add(sampleExample(rng, 'propose', 1 + (i % 3)).prompt.filter((t) => t === SEP).length - 1);
    expect([...counts].sort()).toEqual([0, 1, 2, 3]);
  });
});
