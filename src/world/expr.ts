// The problem language: integer expressions with + - * and the functions min, max, mod.
//
//   expr    := term (('+' | '-') term)*              left-associative
//   term    := factor ('*' factor)*                  left-associative
//   factor  := number | '-' number | '(' expr ')' | fn '(' expr ',' expr ')' | variable
//   number  := '0' | [1-9][0-9]{0,2}                 at most 999, no leading zeros
//   fn      := 'min' | 'max' | 'mod'
//   variable:= one letter a..z                       only inside documents (corpus.ts)
//
// A minus sign in front of a number makes a negative literal; there is no general unary
// minus. The parser never throws: any string yields a tree or a typed error.

export type BinaryOp = '+' | '-' | '*';
export type FunctionName = 'min' | 'max' | 'mod';
export type Op = BinaryOp | FunctionName;

export const BINARY_OPS: readonly BinaryOp[] = ['+', '-', '*'];
export const FUNCTIONS: readonly FunctionName[] = ['min', 'max', 'mod'];

/** Every value in the world (literals, intermediate results, answers) lies in [-999, 999]. */
export const VALUE_LIMIT = 999;

export type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'var'; name: string }
  | { kind: 'op'; op: Op; left: Expr; right: Expr };

export type OpNode = Extract<Expr, { kind: 'op' }>;

export const num = (value: number): Expr => ({ kind: 'num', value });
export const variable = (name: string): Expr => ({ kind: 'var', name });
export const opNode = (op: Op, left: Expr, right: Expr): OpNode => ({ kind: 'op', op, left, right });

export function isFunction(op: Op): op is FunctionName {
  return op === 'min' || op === 'max' || op === 'mod';
}

export type ParseErrorKind =
  | 'empty'
  | 'unexpected_char' // a character that has no place in an expression
  | 'unexpected_token' // a known symbol in the wrong place
  | 'unexpected_end'
  | 'unbalanced_parens'
  | 'leading_zero'
  | 'number_too_large' // a literal beyond VALUE_LIMIT
  | 'unknown_name' // letters that are neither a function nor (in documents) a variable
  | 'variable_not_allowed' // a variable in a problem (problems are self-contained)
  | 'too_deep' // nesting beyond MAX_NESTING, refused before it can exhaust the stack
  | 'too_long'; // a text beyond MAX_TEXT_CHARS, refused before it is read

export interface ParseError {
  kind: ParseErrorKind;
  /** Index into the text where the problem was found. */
  position: number;
  message: string;
}

export type ParseResult = { ok: true; expr: Expr } | { ok: false; error: ParseError };

export interface ParseOptions {
  /** Allow one-letter variables (document statements). Default false. */
  variables?: boolean;
}

const MAX_NESTING = 32;

/**
 * Longest text any of the world's parsers reads (expressions, role texts, documents). Every
 * legitimate text is far shorter: a prompt or response fits CONTEXT_TOKENS = 128 tokens, one
 * character each but for at most three concept tags, and even a worked solution of a
 * 40-character problem stays under 400 characters. Refusing longer input at once keeps
 * parsing fast and bounds a tree's depth, so the recursive printer, interpreter and trace
 * checker cannot exhaust the stack (a 14 000-character `1+1+…+1` did).
 */
export const MAX_TEXT_CHARS = 512;

type Token =
  | { type: 'num'; value: number; pos: number }
  | { type: 'name'; name: string; pos: number }
  | { type: 'sym'; sym: string; pos: number }
  | { type: 'end'; pos: number };

class Failure {
  constructor(readonly error: ParseError) {}
}

function fail(kind: ParseErrorKind, position: number, message: string): never {
  throw new Failure({ kind, position, message });
}

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch >= '0' && ch <= '9') {
      let j = i;
      while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
      const digits = text.slice(i, j);
      if (digits.length > 1 && digits[0] === '0') fail('leading_zero', i, `number ${digits} has a leading zero`);
      if (digits.length > 3) fail('number_too_large', i, `number ${digits} is beyond ${VALUE_LIMIT}`);
      tokens.push({ type: 'num', value: Number(digits), pos: i });
      i = j;
    } else if (ch >= 'a' && ch <= 'z') {
      let j = i;
      while (j < text.length && text[j] >= 'a' && text[j] <= 'z') j++;
      tokens.push({ type: 'name', name: text.slice(i, j), pos: i });
      i = j;
    } else if ('+-*(),'.includes(ch)) {
      tokens.push({ type: 'sym', sym: ch, pos: i });
      i++;
    } else {
      fail('unexpected_char', i, `character ${JSON.stringify(ch)} cannot appear in an expression`);
    }
  }
  tokens.push({ type: 'end', pos: text.length });
  return tokens;
}

class Parser {
  private at = 0;
  private nesting = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly options: ParseOptions,
  ) {}

  private peek(): Token {
    return this.tokens[this.at];
  }

  private isSym(sym: string): boolean {
    const t = this.peek();
    return t.type === 'sym' && t.sym === sym;
  }

  private expect(sym: string): void {
    const t = this.peek();
    if (t.type === 'sym' && t.sym === sym) {
      this.at++;
      return;
    }
    if (t.type === 'end') fail(sym === ')' ? 'unbalanced_parens' : 'unexpected_end', t.pos, `expected '${sym}' at the end`);
    fail('unexpected_token', t.pos, `expected '${sym}' at position ${t.pos}`);
  }

  parseAll(): Expr {
    const expr = this.expr();
    const t = this.peek();
    if (t.type === 'sym' && t.sym === ')') fail('unbalanced_parens', t.pos, `')' at position ${t.pos} closes nothing`);
    if (t.type !== 'end') fail('unexpected_token', t.pos, `unexpected input at position ${t.pos}`);
    return expr;
  }

  private expr(): Expr {
    let left = this.term();
    while (this.isSym('+') || this.isSym('-')) {
      const op: BinaryOp = this.isSym('+') ? '+' : '-';
      this.at++;
      left = opNode(op, left, this.term());
    }
    return left;
  }

  private term(): Expr {
    let left = this.factor();
    while (this.isSym('*')) {
      this.at++;
      left = opNode('*', left, this.factor());
    }
    return left;
  }

  private factor(): Expr {
    const t = this.tokens[this.at++];
    if (t.type === 'num') return num(t.value);
    if (t.type === 'end') fail('unexpected_end', t.pos, 'the expression ends where a number was expected');
    if (t.type === 'name') return this.nameFactor(t.name, t.pos);
    if (t.sym === '-') {
      const n = this.tokens[this.at++];
      if (n.type !== 'num') fail('unexpected_token', t.pos, `a minus sign at position ${t.pos} must be followed by a number`);
      return num(n.value === 0 ? 0 : -n.value);
    }
    if (t.sym === '(') {
      this.enter(t.pos);
      const inner = this.expr();
      this.expect(')');
      this.nesting--;
      return inner;
    }
    return fail('unexpected_token', t.pos, `unexpected '${t.sym}' at position ${t.pos}`);
  }

  private nameFactor(name: string, pos: number): Expr {
    if ((FUNCTIONS as readonly string[]).includes(name)) {
      this.expect('(');
      this.enter(pos);
      const left = this.expr();
      this.expect(',');
      const right = this.expr();
      this.expect(')');
      this.nesting--;
      return opNode(name as FunctionName, left, right);
    }
    if (name.length === 1 && !this.isSym('(')) {
      if (!this.options.variables) fail('variable_not_allowed', pos, `variable ${name} in a self-contained problem`);
      return variable(name);
    }
    return fail('unknown_name', pos, `unknown name '${name}' (functions are min, max, mod)`);
  }

  private enter(pos: number): void {
    if (++this.nesting > MAX_NESTING) fail('too_deep', pos, `nesting deeper than ${MAX_NESTING}`);
  }
}

/** Parses text into a syntax tree, or says why it cannot. Never throws. */
export function parseExpr(text: string, options: ParseOptions = {}): ParseResult {
  if (text.length === 0) return { ok: false, error: { kind: 'empty', position: 0, message: 'empty expression' } };
  if (text.length > MAX_TEXT_CHARS) {
    return { ok: false, error: { kind: 'too_long', position: MAX_TEXT_CHARS, message: `${text.length} characters, at most ${MAX_TEXT_CHARS}` } };
  }
  try {
    return { ok: true, expr: new Parser(lex(text), options).parseAll() };
  } catch (e) {
    if (e instanceof Failure) return { ok: false, error: e.error };
    throw e;
  }
}

const PRECEDENCE: Record<BinaryOp, number> = { '+': 1, '-': 1, '*': 2 };

/**
 * Whether the printer wraps `child` in parentheses under `parent`. A right operand of equal
 * precedence is wrapped too, so that printing then parsing gives back the same tree
 * (`a+(b+c)` stays distinct from `a+b+c`: the trace reduces them in different orders).
 */
export function needsParens(parent: Op, child: Expr, side: 'left' | 'right'): boolean {
  if (isFunction(parent)) return false;
  if (child.kind === 'num') return child.value < 0 && side === 'right';
  if (child.kind !== 'op' || isFunction(child.op)) return false;
  const p = PRECEDENCE[parent];
  const c = PRECEDENCE[child.op as BinaryOp];
  return side === 'left' ? c < p : c <= p;
}

/** The canonical text of a tree, with the fewest parentheses that keep its shape. */
export function printExpr(expr: Expr): string {
  if (expr.kind === 'num') return String(expr.value);
  if (expr.kind === 'var') return expr.name;
  const l = printExpr(expr.left);
  const r = printExpr(expr.right);
  if (isFunction(expr.op)) return `${expr.op}(${l},${r})`;
  const wrap = (s: string, child: Expr, side: 'left' | 'right') => (needsParens(expr.op, child, side) ? `(${s})` : s);
  return `${wrap(l, expr.left, 'left')}${expr.op}${wrap(r, expr.right, 'right')}`;
}

/** Number of operations (binary operators and function calls). */
export function countOps(expr: Expr): number {
  return expr.kind === 'op' ? 1 + countOps(expr.left) + countOps(expr.right) : 0;
}

export function exprEquals(a: Expr, b: Expr): boolean {
  if (a.kind === 'num') return b.kind === 'num' && a.value === b.value;
  if (a.kind === 'var') return b.kind === 'var' && a.name === b.name;
  return b.kind === 'op' && a.op === b.op && exprEquals(a.left, b.left) && exprEquals(a.right, b.right);
}

/** A route from the root to a node: the sides taken at each operation. */
export type Path = readonly ('left' | 'right')[];

/** Every node with its path, parents before children, left before right. */
export function nodesWithPaths(expr: Expr, path: Path = []): { node: Expr; path: Path }[] {
  const here = [{ node: expr, path }];
  if (expr.kind !== 'op') return here;
  return [...here, ...nodesWithPaths(expr.left, [...path, 'left']), ...nodesWithPaths(expr.right, [...path, 'right'])];
}

/** A copy of `expr` with the node at `path` replaced. */
export function replaceAt(expr: Expr, path: Path, replacement: Expr): Expr {
  if (path.length === 0) return replacement;
  if (expr.kind !== 'op') throw new Error('replaceAt: path leads through a leaf');
  const [side, ...rest] = path;
  return side === 'left'
    ? opNode(expr.op, replaceAt(expr.left, rest, replacement), expr.right)
    : opNode(expr.op, expr.left, replaceAt(expr.right, rest, replacement));
}
