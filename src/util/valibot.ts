// The project's refusal line for a file checked by a valibot schema: the field path, what was
// expected and what was there, cut to 80 characters. Built from the issue's parts, not valibot's
// message, which quotes the value whole (a 50 MB string would become a 50 MB error line).
import * as v from 'valibot';
import { showValue } from './show';

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `results[0].start.passAtK["1"]`: a field path as JavaScript writes it; '' for the top level. */
function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = '';
  for (const item of issue.path ?? []) {
    const key: unknown = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${showValue(typeof key === 'string' ? key : String(key))}]`;
  }
  return out;
}

/** What an action without an `expected` of its own asks for, in words. */
const WANTED: Readonly<Record<string, string>> = { safe_integer: 'a whole number', integer: 'a whole number', finite: 'a finite number' };
const OBJECTS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);

/**
 * The first issue in one short line: `path: expected …, got …`. A check or a pattern words its
 * own message (it says what is wrong); a field that is missing or unknown says so.
 */
export function issueLine(issues: readonly v.BaseIssue<unknown>[], root?: string): string {
  const first = issues[0];
  const inner = issuePath(first);
  // `root` names the document the path starts in (`state.json.step`)
  const rooted = root === undefined ? inner : inner === '' || inner.startsWith('[') ? root + inner : `${root}.${inner}`;
  const path = cut(rooted || '(top level)', 80);
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  if (first.type === 'check' || first.type === 'regex') return `${path}: ${cut(first.message, 120)}${more}`;
  if (OBJECTS.has(first.type) && first.path?.length && first.expected === 'never') return `${path}: unknown field${more}`;
  if (OBJECTS.has(first.type) && first.path?.length && first.input === undefined) return `${path}: missing${more}`;
  // a custom schema's message is what it wants (`v.custom(isNumber, 'a number')`)
  const want = first.type === 'custom' ? first.message : (first.expected ?? WANTED[first.type] ?? first.type);
  return `${path}: expected ${cut(want, 60)}, got ${showValue(first.input)}${more}`;
}

/** Keys that JavaScript objects treat specially; valibot's records and objects drop them silently. */
const RESERVED = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * JSON.parse that refuses the keys valibot would drop without a word, so a file never loads with
 * part of it silently missing. Throws a SyntaxError for bad JSON and a RangeError for such a key.
 */
export function parseJsonStrict(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => {
    if (RESERVED.has(key)) throw new RangeError(`a field is named "${key}", which no file of the lab has`);
    return value;
  });
}

/** `schema`'s output for `input`, or `fail` called with the first issue's line (`fail` throws the caller's error type); `root` names the document in paths. */
export function parseOr<S extends v.GenericSchema>(schema: S, input: unknown, fail: (line: string) => never, root?: string): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (!r.success) fail(issueLine(r.issues, root));
  return r.output;
}
