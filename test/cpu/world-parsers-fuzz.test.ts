// The world's parsers read model output and user files: whatever the text, they answer with a
// value or a reason, never an exception. Seeded, so a failure replays exactly.
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/world/corpus';
import { sampleExample } from '../../src/world/examples';
import { MAX_TEXT_CHARS, parseExpr, printExpr } from '../../src/world/expr';
import { makeRng, pick, randInt, type Rng } from '../../src/world/rng';
import { parseChallenge, parsePropose, parseSolve, parseTeach, parseVary, readProblem } from '../../src/world/roles';
import { decode, responseText, ROLES } from '../../src/world/tokenizer';
import { parseTrace } from '../../src/world/trace';

const PARSERS: Record<string, (text: string) => unknown> = {
  parseExpr: (t) => {
    const r = parseExpr(t);
    return r.ok ? printExpr(r.expr) : r;
  },
  parseExprWithVariables: (t) => parseExpr(t, { variables: true }),
  readProblem,
  parseSolve,
  parseVary,
  parseChallenge,
  parseTeach,
  parsePropose,
  parseDocument,
  parseTrace,
};

/** The name of every parser that throws on `text`, with its error. */
function throwers(text: string): string[] {
  const found: string[] = [];
  for (const [name, parse] of Object.entries(PARSERS)) {
    try {
      parse(text);
    } catch (e) {
      found.push(`${name}: ${String(e).slice(0, 80)}`);
    }
  }
  return found;
}

const ALPHABET = '0123456789+-*()=;#,abcdefghijklmnopqrstuvwxyz<>:';
const FRAGMENTS = ['min(', 'max(', 'mod(', '<c:add>', '<c:big>', '<sep>', '<eos>', '#', '=', ';', '-', '999', '(', ')'];

function randomText(rng: Rng, n: number, alphabet: string): string {
  return Array.from({ length: n }, () => alphabet[randInt(rng, 0, alphabet.length - 1)]).join('');
}

/** Any UTF-16 code unit, lone surrogates included. */
const randomBytes = (rng: Rng, n: number) => String.fromCharCode(...Array.from({ length: n }, () => randInt(rng, 0, 0xffff)));

function mutate(rng: Rng, text: string): string {
  let t = text;
  for (let k = randInt(rng, 1, 4); k > 0; k--) {
    const at = randInt(rng, 0, t.length);
    const kind = randInt(rng, 0, 4);
    if (kind === 0) t = t.slice(0, at) + pick(rng, FRAGMENTS) + t.slice(at);
    else if (kind === 1) t = t.slice(0, at) + t.slice(at + randInt(rng, 1, 5));
    else if (kind === 2) t = t.slice(0, at) + ALPHABET[randInt(rng, 0, ALPHABET.length - 1)] + t.slice(at + 1);
    else if (kind === 3) t = t.slice(0, at) + t.slice(randInt(rng, 0, t.length)) + t.slice(at);
    else t = t.slice(0, at) + t.slice(at).repeat(randInt(rng, 2, 60));
  }
  return t;
}

function goldText(rng: Rng): string {
  const ex = sampleExample(rng, pick(rng, ROLES), randInt(rng, 1, 5));
  return rng() < 0.5 ? responseText(ex.response).text : decode(ex.prompt.slice(2));
}

function deepNesting(rng: Rng): string {
  const n = randInt(rng, 1, 3000);
  const open = pick(rng, ['(', 'min(', 'max(1,', '-(']);
  return open.repeat(n) + '1' + pick(rng, [')', ',1)', '']).repeat(randInt(rng, 0, n));
}

function longChain(rng: Rng): string {
  const terms = Array.from({ length: randInt(rng, 2, 8000) }, () => String(randInt(rng, 0, 999)));
  const chain = terms.join(pick(rng, ['+', '-', '*', '+(1)+']));
  return pick(rng, [chain, `${chain}#1`, `${chain}=1+1=2;#2`, `a=${chain}`, `${chain}<c:add>`]);
}

const hugeNumber = (rng: Rng) => pick(rng, ['', '-', '#', '#-', '1+']) + '9'.repeat(randInt(rng, 4, 20000)) + pick(rng, ['', '#1', '=1', '+1']);

function fuzzInput(rng: Rng, i: number): string {
  switch (i % 6) {
    case 0: return deepNesting(rng);
    case 1: return longChain(rng);
    case 2: return rng() < 0.5 ? randomBytes(rng, randInt(rng, 0, 300)) : randomText(rng, randInt(rng, 0, 300), ALPHABET);
    case 3: return hugeNumber(rng);
    default: return mutate(rng, goldText(rng));
  }
}

describe('world parsers: never throw', () => {
  it('the 14 000-character chain that used to exhaust the stack', () => {
    const chain = Array(7000).fill('1').join('+');
    expect(throwers(chain)).toEqual([]);
    expect(throwers(`${chain}=1+1=2;#2`)).toEqual([]);
    expect(throwers(`${chain}#2`)).toEqual([]);
    expect(throwers(`a=1;b=${chain}`)).toEqual([]);
  });

  it('12 000 seeded inputs: deep nesting, long chains, random bytes, huge numbers, mutated role texts', () => {
    const rng = makeRng(16);
    const faults: string[] = [];
    for (let i = 0; i < 12_000; i++) {
      const text = fuzzInput(rng, i);
      for (const f of throwers(text)) faults.push(`input ${i} (${text.length} chars, ${JSON.stringify(text.slice(0, 40))}…): ${f}`);
    }
    expect(faults.slice(0, 5)).toEqual([]);
  });

  it('refuses a text beyond MAX_TEXT_CHARS as too long, before reading it', () => {
    const long = '1+'.repeat(MAX_TEXT_CHARS) + '1';
    const parse = parseExpr(long);
    expect(parse.ok ? 'parsed' : parse.error.kind).toBe('too_long');
    for (const parse of [readProblem, parseVary, parseTeach]) expect(parse(long)).toEqual({ ok: false, reason: 'too_long' });
    expect(parseChallenge(`${long}#1`)).toEqual({ ok: false, reason: 'too_long' });
    expect(parsePropose(`1+1=${'1+1=2;'.repeat(MAX_TEXT_CHARS)}#2`)).toEqual({ ok: false, reason: 'too_long' });
    const doc = parseDocument(`a=1;b=${long}`);
    expect(doc.ok ? 'parsed' : doc.message).toContain(`at most ${MAX_TEXT_CHARS}`);
  });
});
