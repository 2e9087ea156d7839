import { describe, expect, it } from 'vitest';
import {
  generateCorpus,
  generateDocument,
  goldQuestion,
  loadCorpus,
  MAX_DOCUMENT_CHARS,
  MAX_STATEMENTS,
  parseDocument,
  renderDocument,
} from '../../src/world/corpus';
import { evaluate } from '../../src/world/interpreter';
import { makeRng } from '../../src/world/rng';

describe('world corpus: documents', () => {
  it('parses the worked record of the design', () => {
    const r = parseDocument('a=7;b=a+5;c=b*3;d=c-4');
    if (!r.ok) throw new Error(r.message);
    expect(r.doc.statements.map((s) => [s.name, s.value])).toEqual([['a', 7], ['b', 12], ['c', 36], ['d', 32]]);
    expect(renderDocument(r.doc, true)).toBe('a=7;b=a+5=12;c=b*3=36;d=c-4=32');
    expect(renderDocument(r.doc, false)).toBe('a=7;b=a+5;c=b*3;d=c-4');
  });

  it('generates documents that reparse to the same values, with and without values shown', () => {
    const rng = makeRng(12);
    for (let i = 0; i < 3000; i++) {
      const doc = generateDocument(rng, { statements: 2 + (i % (MAX_STATEMENTS - 1)) });
      expect(renderDocument(doc, true).length).toBeLessThanOrEqual(MAX_DOCUMENT_CHARS);
      for (const text of [doc.text, renderDocument(doc, true)]) {
        const r = parseDocument(text);
        if (!r.ok) throw new Error(`${text}: ${r.message}`);
        expect(r.doc.text).toBe(doc.text);
        expect(r.doc.statements.map((s) => s.value)).toEqual(doc.statements.map((s) => s.value));
      }
      for (const s of doc.statements) expect(s.value).toBeGreaterThanOrEqual(0);
      const { question, gold } = goldQuestion(rng, doc);
      expect(question.text).not.toMatch(/[a-z](?![a-z]*\()/); // no variables: only function names
      expect(evaluate(question.expr)).toEqual({ ok: true, value: gold });
      expect(doc.statements.some((s) => s.expr.kind === 'op' && s.value === gold)).toBe(true);
    }
  });

  it('generates the same corpus for the same seed', () => {
    const texts = (seed: number) => generateCorpus(seed, 100).map((d) => d.text);
    expect(texts(3)).toEqual(texts(3));
    expect(texts(3)).not.toEqual(texts(4));
  });
});

describe('world corpus: loading a user file', () => {
  const lines = [
    'a=7;b=a+5;c=b*3;d=c-4', // 1 good
    '', // 2 blank: skipped
    'a=7;b=c+1', // 3 undefined name
    'a=7;a=a+1', // 4 redefinition
    'a=7;b=a+5=13', // 5 wrong stated value
    'ab=3;c=ab+1', // 6 name too long
    'a=7;b=a+', // 7 syntax
    'a=7;b=a*999', // 8 out of range
    ' a = 7 ; b = a + 5 = 12 \r', // 9 good after removing whitespace
    'a=7', // 10 nothing computed
    'a=7;b=mod(a,0)', // 11 mod by zero
    'a=1;b=a+1;c=b+1;d=c+1;e=d+1;f=e+1;g=f+1;h=g+1;i=h+1', // 12 too many statements
    'a=7;b=a+5;', // 13 empty statement
    '7+5', // 14 not a statement
    'a=100;b=a+100;c=b+100;d=c+100;e=d+100;f=e+100;g=f+100', // 15 worked record too long
    'a=7;b=a/2', // 16 unknown character
  ];

  it('keeps the good lines and reports each bad one with its number', () => {
    const { docs, errors } = loadCorpus(lines.join('\n'));
    expect(docs.map((d) => d.text)).toEqual(['a=7;b=a+5;c=b*3;d=c-4', 'a=7;b=a+5']);
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16]);
    const message = (line: number) => errors.find((e) => e.line === line)?.message ?? '';
    expect(message(3)).toMatch(/statement 2 'b=c\+1': c is not defined/);
    expect(message(4)).toMatch(/a is already defined/);
    expect(message(5)).toMatch(/stated value 13 but a\+5 is 12/);
    expect(message(6)).toMatch(/name 'ab' must be one letter/);
    expect(message(7)).toMatch(/statement 2 'b=a\+'/);
    expect(message(8)).toMatch(/beyond ±999/);
    expect(message(10)).toMatch(/nothing to ask/);
    expect(message(11)).toMatch(/mod\(7,0\)/);
    expect(message(12)).toMatch(/9 statements, at most 8/);
    expect(message(13)).toMatch(/statement 3 '': expected/);
    expect(message(14)).toMatch(/expected 'name=expression'/);
    expect(message(15)).toMatch(/characters, at most 64/);
    expect(message(16)).toMatch(/character "\/" cannot appear/);
  });

  it('throws a clear error when nothing valid remains', () => {
    expect(() => loadCorpus('a=7;b=c\nhello\n')).toThrow(/no valid document \(2 bad lines\)[\s\S]*line 1: [\s\S]*line 2: /);
    expect(() => loadCorpus('')).toThrow(/no valid document \(0 bad lines\)/);
    const many = Array.from({ length: 9 }, () => 'x').join('\n');
    expect(() => loadCorpus(many)).toThrow(/and 4 more/);
  });

  it('loads a generated corpus written one document per line', () => {
    const corpus = generateCorpus(5, 200);
    const { docs, errors } = loadCorpus(corpus.map((d) => d.text).join('\n') + '\n');
    expect(errors).toEqual([]);
    expect(docs.map((d) => d.text)).toEqual(corpus.map((d) => d.text));
  });
});
