// Documents: the SPICE corpus. A document is one line of statements, each naming a value:
//
//   a=7;b=a+5;c=b*3;d=c-4
//
// A statement may also state its value (`b=a+5=12`); the loader then checks it. The challenge
// prompt shows the document as a worked record with every computed value (`b=a+5=12`), so the
// challenger can read a gold answer that the reasoner, who sees only the question, must compute.
import { MAX_TEXT_CHARS, num, opNode, parseExpr, printExpr, type Expr, type Op } from './expr';
import { evaluate, type Env } from './interpreter';
import { DEFAULT_MAX_OPERAND, toProblem, type Problem } from './generator';
import { makeRng, pick, randInt, type Rng } from './rng';
import { readInteger } from './trace';

export interface Statement {
  name: string;
  expr: Expr;
  value: number;
}

export interface Document {
  /** Canonical text, without values: `a=7;b=a+5;c=b*3;d=c-4`. */
  text: string;
  statements: Statement[];
}

export const MAX_STATEMENTS = 8;
/** Longest worked record (with values) that still leaves room for a question in the context. */
export const MAX_DOCUMENT_CHARS = 64;

export type DocumentParse = { ok: true; doc: Document } | { ok: false; message: string };

/** Parses one document line (no whitespace). Never throws. */
export function parseDocument(line: string): DocumentParse {
  if (line.length === 0) return { ok: false, message: 'empty document' };
  if (line.length > MAX_TEXT_CHARS) return { ok: false, message: `${line.length} characters, at most ${MAX_TEXT_CHARS}` };
  const parts = line.split(';');
  if (parts.length > MAX_STATEMENTS) return { ok: false, message: `${parts.length} statements, at most ${MAX_STATEMENTS}` };
  const statements: Statement[] = [];
  const env = new Map<string, number>();
  for (let i = 0; i < parts.length; i++) {
    const r = parseStatement(parts[i], env);
    if (typeof r === 'string') return { ok: false, message: `statement ${i + 1} '${parts[i]}': ${r}` };
    statements.push(r);
    env.set(r.name, r.value);
  }
  if (statements.every((s) => s.expr.kind !== 'op')) return { ok: false, message: 'no statement computes anything, so there is nothing to ask' };
  const doc = { text: documentText(statements), statements };
  const chars = renderDocument(doc, true).length;
  if (chars > MAX_DOCUMENT_CHARS) return { ok: false, message: `worked record is ${chars} characters, at most ${MAX_DOCUMENT_CHARS} fit the context` };
  return { ok: true, doc };
}

/** One `name=expr` or `name=expr=value`; a string is the reason it is invalid. */
function parseStatement(text: string, env: Env): Statement | string {
  const parts = text.split('=');
  if (parts.length < 2 || parts.length > 3) return "expected 'name=expression' or 'name=expression=value'";
  const [name, body, stated] = parts;
  if (!/^[a-z]$/.test(name)) return `name '${name}' must be one letter a..z`;
  if (env.has(name)) return `${name} is already defined`;
  const parsed = parseExpr(body, { variables: true });
  if (!parsed.ok) return `${parsed.error.message} (character ${name.length + 2 + parsed.error.position} of the statement)`;
  const r = evaluate(parsed.expr, env);
  if (!r.ok) return r.error.message;
  if (stated !== undefined) {
    const s = readInteger(stated);
    if (!s.ok) return `stated value '${stated}' is not an integer within bounds`;
    if (s.value !== r.value) return `stated value ${s.value} but ${body} is ${r.value}`;
  }
  return { name, expr: parsed.expr, value: r.value };
}

function documentText(statements: readonly Statement[]): string {
  return statements.map((s) => `${s.name}=${printExpr(s.expr)}`).join(';');
}

/** The document as text; with values, every computed statement shows its value (`b=a+5=12`). */
export function renderDocument(doc: Document, withValues: boolean): string {
  return doc.statements
    .map((s) => `${s.name}=${printExpr(s.expr)}${withValues && s.expr.kind !== 'num' ? `=${s.value}` : ''}`)
    .join(';');
}

export interface CorpusError {
  line: number;
  message: string;
}

export interface LoadedCorpus {
  docs: Document[];
  errors: CorpusError[];
}

/**
 * Loads a user's corpus: one document per line. Spaces, tabs and carriage returns are
 * removed first and blank lines are skipped; every other bad line is reported with its
 * (1-based) number. Throws when no valid document remains, with a summary of the errors.
 */
export function loadCorpus(text: string): LoadedCorpus {
  const docs: Document[] = [];
  const errors: CorpusError[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/[ \t\r]/g, '');
    if (line.length === 0) continue;
    const r = parseDocument(line);
    if (r.ok) docs.push(r.doc);
    else errors.push({ line: i + 1, message: r.message });
  }
  if (docs.length === 0) {
    const shown = errors.slice(0, 5).map((e) => `  line ${e.line}: ${e.message}`);
    const more = errors.length > 5 ? [`  ... and ${errors.length - 5} more`] : [];
    throw new Error(
      [`corpus has no valid document (${errors.length} bad lines); expected lines like a=7;b=a+5;c=b*3`, ...shown, ...more].join('\n'),
    );
  }
  return { docs, errors };
}

export interface DocumentSpec {
  /** Statements in the document, 2..MAX_STATEMENTS. */
  statements: number;
  /** Literals are drawn from 1..maxOperand (default DEFAULT_MAX_OPERAND, as problems). */
  maxOperand?: number;
}

const DOC_OPS: readonly Op[] = ['+', '-', '*', '+', '-', '*', 'min', 'max', 'mod'];

/** A random document: a chain of named values, each built from earlier ones. */
export function generateDocument(rng: Rng, spec: DocumentSpec): Document {
  const { statements: n, maxOperand = DEFAULT_MAX_OPERAND } = spec;
  if (!Number.isInteger(n) || n < 2 || n > MAX_STATEMENTS) throw new RangeError(`generateDocument: statements must be in 2..${MAX_STATEMENTS}`);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const doc = tryDocument(rng, n, maxOperand);
    if (doc && renderDocument(doc, true).length <= MAX_DOCUMENT_CHARS) return doc;
  }
  throw new Error(`generateDocument: no document within bounds for ${JSON.stringify(spec)}`);
}

function tryDocument(rng: Rng, n: number, maxOperand: number): Document | null {
  const statements: Statement[] = [];
  const env = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const name = String.fromCharCode(97 + i);
    const literal = i === 0 || (i < n - 1 && rng() < 0.2);
    const expr = literal ? num(randInt(rng, 1, maxOperand)) : derived(rng, statements, maxOperand);
    const r = evaluate(expr, env);
    if (!r.ok || r.value < 0 || !positiveDivisor(expr, env)) return null;
    statements.push({ name, expr, value: r.value });
    env.set(name, r.value);
  }
  return { text: documentText(statements), statements };
}

/** The generator keeps mod's divisor positive, as generator.ts does for problems. */
function positiveDivisor(e: Expr, env: Env): boolean {
  if (e.kind !== 'op' || e.op !== 'mod') return true;
  const d = evaluate(e.right, env);
  return d.ok && d.value > 0;
}

/** One operation on an earlier name (usually the latest) and a number or another name. */
function derived(rng: Rng, earlier: readonly Statement[], maxOperand: number): Expr {
  const latest = earlier[earlier.length - 1].name;
  const ref = (name: string): Expr => ({ kind: 'var', name });
  const first = rng() < 0.6 ? ref(latest) : ref(pick(rng, earlier).name);
  const second = rng() < 0.6 || earlier.length < 2 ? num(randInt(rng, 1, maxOperand)) : ref(pick(rng, earlier).name);
  const op = pick(rng, DOC_OPS);
  return op === 'mod' || op === '-' || rng() < 0.6 ? opNode(op, first, second) : opNode(op, second, first);
}

/** A generated corpus: `count` documents of 3..6 statements, fixed by the seed. */
export function generateCorpus(seed: number, count: number): Document[] {
  const rng = makeRng(seed);
  return Array.from({ length: count }, () => generateDocument(rng, { statements: randInt(rng, 3, 6) }));
}

/**
 * A gold challenge: a computed statement turned into a self-contained question by replacing
 * each name with its definition (inlined) or with its value as the record shows it; the gold
 * answer is the statement's value, read from the document.
 */
export function goldQuestion(rng: Rng, doc: Document, inlineRate = 0.5): { question: Problem; gold: number } {
  const byName = new Map(doc.statements.map((s) => [s.name, s]));
  const computed = doc.statements.filter((s) => s.expr.kind === 'op');
  const target = pick(rng, computed);
  const inline = (e: Expr): Expr => {
    if (e.kind === 'num') return e;
    if (e.kind === 'op') return opNode(e.op, inline(e.left), inline(e.right));
    const s = byName.get(e.name) as Statement;
    return s.expr.kind !== 'num' && rng() < inlineRate ? inline(s.expr) : num(s.value);
  };
  const question = toProblem(inline(target.expr));
  if (!question || question.answer !== target.value) throw new Error(`goldQuestion: inlining ${target.name} in ${doc.text} changed its value`);
  return { question, gold: target.value };
}
