import { describe, expect, it } from 'vitest';
import {
  BOS,
  CONCEPT_TAGS,
  decode,
  encode,
  EOS,
  PAD,
  responseText,
  ROLE_TOKEN,
  ROLES,
  SEP,
  TAG_TOKEN,
  VOCAB_SIZE,
  VOCABULARY,
} from '../../src/world/tokenizer';
import { mulberry32 } from '../helpers/rng';

describe('world tokenizer', () => {
  it('has exactly VOCAB_SIZE distinct tokens, the named ones first', () => {
    expect(VOCAB_SIZE).toBe(64);
    expect(VOCABULARY.length).toBe(VOCAB_SIZE);
    expect(new Set(VOCABULARY).size).toBe(VOCAB_SIZE);
    const named = [PAD, BOS, EOS, SEP, ...ROLES.map((r) => ROLE_TOKEN[r]), ...CONCEPT_TAGS.map((t) => TAG_TOKEN[t])];
    expect(new Set(named).size).toBe(named.length);
    for (const t of VOCABULARY) expect(t.length === 1 || /^<[a-z:0-9]+>$/.test(t), t).toBe(true);
  });

  it('covers every character of the language', () => {
    const text = '0123456789+-*()=;#,abcdefghijklmnopqrstuvwxyz';
    expect(encode(text).length).toBe(text.length);
    expect(decode(encode(text))).toBe(text);
  });

  it('encodes special tokens written in angle brackets', () => {
    const ids = encode('<bos><solve>7+5=<sep><c:add><eos>');
    expect(ids[0]).toBe(BOS);
    expect(ids[1]).toBe(ROLE_TOKEN.solve);
    expect(ids.slice(2, 6)).toEqual(encode('7+5='));
    expect(ids.slice(6)).toEqual([SEP, TAG_TOKEN.add, EOS]);
  });

  it('round-trips every token id sequence', () => {
    const rand = mulberry32(11);
    for (let n = 0; n < 2000; n++) {
      const ids = Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * VOCAB_SIZE));
      expect(encode(decode(ids))).toEqual(ids);
    }
  });

  it('names the unknown character and its position', () => {
    expect(() => encode('7 + 5')).toThrow(/unknown character " " at position 1/);
    expect(() => encode('12/3')).toThrow(/unknown character "\/" at position 2/);
    expect(() => encode('A')).toThrow(/"A" at position 0/);
    expect(() => encode('1+<nope>')).toThrow(/unknown special token "<nope>" at position 2/);
    expect(() => encode('1+<sep')).toThrow(/unknown special token "<sep" at position 2/);
  });

  it('refuses ids outside the vocabulary when decoding', () => {
    expect(() => decode([1, 64])).toThrow(/token id 64 at position 1/);
    expect(() => decode([-1])).toThrow(/token id -1/);
  });

  it('cuts a response at its first EOS and reports truncation', () => {
    expect(responseText([...encode('#7'), EOS, ...encode('junk')])).toEqual({ text: '#7', ended: true });
    expect(responseText(encode('1+1=2;'))).toEqual({ text: '1+1=2;', ended: false });
    expect(responseText([EOS])).toEqual({ text: '', ended: true });
  });
});
