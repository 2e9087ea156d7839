// A user's value as an error message quotes it: numbers as JavaScript writes them (Infinity,
// not JSON's null), strings escaped (no raw control bytes reach a terminal) and anything cut
// to about 80 characters, so a 50 MB value never becomes a 50 MB error line.
const MAX_SHOWN = 80;

// JSON.stringify escapes U+0000–U+001F; DEL, the C1 controls and the line separators reach a
// terminal raw, so they are escaped too
const UNSAFE = /[\u007f-\u009f\u2028\u2029]/g;
const escapeRest = (s: string): string => s.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `v` for an error message: escaped, and cut to about 80 characters with the length said. */
export function showValue(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return v.length <= MAX_SHOWN ? escapeRest(JSON.stringify(v)) : `${escapeRest(JSON.stringify(v.slice(0, MAX_SHOWN)))}… (${v.length} characters)`;
  let text: string;
  try {
    text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x)) ?? String(v);
  } catch {
    text = Object.prototype.toString.call(v);
  }
  return cut(escapeRest(text));
}

/** Text meant for a message as it is (a path, a flag's value): escaped only where it must be, and cut. */
export function showText(s: string): string {
  const head = s.length <= MAX_SHOWN ? s : s.slice(0, MAX_SHOWN);
  const json = escapeRest(JSON.stringify(head));
  // a plain path reads as itself; one with control bytes is quoted and escaped
  const shown = json.slice(1, -1) === head ? head : json;
  return s.length <= MAX_SHOWN ? shown : `${shown}… (${s.length} characters)`;
}

function cut(text: string): string {
  return text.length <= MAX_SHOWN ? text : `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)`;
}

/** Control bytes of a message made from the user's text, escaped (the rest kept as it is). */
export function escapeControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/\n/g, '\\n');
}

/** An error line kept under 300 characters. */
export function cutLine(s: string, max = 280): string {
  if (s.length <= max) return s;
  const keep = max - 30;
  return `${s.slice(0, keep)}… (${s.length - keep} more characters)`;
}
