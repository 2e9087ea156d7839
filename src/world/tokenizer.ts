// The tokenizer: one token per character, plus special tokens written `<name>` in text.
// The whole vocabulary is the table below; its order fixes the token ids the model sees.

/** The model's vocabulary size. Ids beyond the named tokens are reserved (never produced). */
export const VOCAB_SIZE = 64;

/** Concept tags the teach role (OpenSIR) writes after its problem; see concepts.ts. */
export const CONCEPT_TAGS = ['add', 'sub', 'mul', 'min', 'max', 'mod', 'nest', 'big'] as const;
export type ConceptTag = (typeof CONCEPT_TAGS)[number];

/** The five roles; each prompt starts with BOS and the role's own token. */
export const ROLES = ['solve', 'vary', 'challenge', 'teach', 'propose'] as const;
export type Role = (typeof ROLES)[number];

const SPECIALS = ['<pad>', '<bos>', '<eos>', '<sep>', ...ROLES.map((r) => `<${r}>`)];
const CHARACTERS = [...'0123456789', ...'+-*()=;#,', ...'abcdefghijklmnopqrstuvwxyz'];
const TAG_TOKENS = CONCEPT_TAGS.map((t) => `<c:${t}>`);

function buildVocabulary(): string[] {
  const named = [...SPECIALS, ...CHARACTERS, ...TAG_TOKENS];
  if (named.length > VOCAB_SIZE) throw new Error(`vocabulary has ${named.length} tokens, more than ${VOCAB_SIZE}`);
  const reserved = Array.from({ length: VOCAB_SIZE - named.length }, (_, i) => `<reserved${i}>`);
  return [...named, ...reserved];
}

/** Token strings by id: `VOCABULARY[id]`. */
export const VOCABULARY: readonly string[] = buildVocabulary();
const ID_OF = new Map(VOCABULARY.map((s, id) => [s, id]));

function idOf(token: string): number {
  const id = ID_OF.get(token);
  if (id === undefined) throw new Error(`tokenizer: no token ${token}`);
  return id;
}

export const PAD = idOf('<pad>');
export const BOS = idOf('<bos>');
export const EOS = idOf('<eos>');
/** Separates the parts of a prompt (e.g. a problem from earlier proposals). */
export const SEP = idOf('<sep>');
export const ROLE_TOKEN: Readonly<Record<Role, number>> = {
  solve: idOf('<solve>'),
  vary: idOf('<vary>'),
  challenge: idOf('<challenge>'),
  teach: idOf('<teach>'),
  propose: idOf('<propose>'),
};
export const TAG_TOKEN: Readonly<Record<ConceptTag, number>> = Object.fromEntries(
  CONCEPT_TAGS.map((t) => [t, idOf(`<c:${t}>`)]),
) as Record<ConceptTag, number>;

/** Text → ids. Special tokens are written `<name>`; anything outside the vocabulary throws. */
export function encode(text: string): number[] {
  const ids: number[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '<') {
      const close = text.indexOf('>', i);
      const token = close < 0 ? text.slice(i) : text.slice(i, close + 1);
      const id = ID_OF.get(token);
      if (close < 0 || id === undefined) {
        throw new Error(`encode: unknown special token ${JSON.stringify(token)} at position ${i}`);
      }
      ids.push(id);
      i = close + 1;
      continue;
    }
    const id = ID_OF.get(ch);
    if (id === undefined) throw new Error(`encode: unknown character ${JSON.stringify(ch)} at position ${i}`);
    ids.push(id);
    i++;
  }
  return ids;
}

/** Ids → text; special tokens come back as `<name>`. */
export function decode(ids: ArrayLike<number>): string {
  let text = '';
  for (let i = 0; i < ids.length; i++) {
    const token = VOCABULARY[ids[i]];
    if (token === undefined) throw new Error(`decode: token id ${ids[i]} at position ${i} is outside 0..${VOCAB_SIZE - 1}`);
    text += token;
  }
  return text;
}

/**
 * A sampled response as text: everything before the first EOS. `ended` is false when the
 * model never wrote EOS (it ran out of tokens), which the loops may treat as truncation.
 */
export function responseText(ids: ArrayLike<number>): { text: string; ended: boolean } {
  const all = Array.from(ids);
  const end = all.indexOf(EOS);
  return end < 0 ? { text: decode(all), ended: false } : { text: decode(all.slice(0, end)), ended: true };
}
