// The five roles as token formats. Each has a prompt builder, a gold-response builder (for
// supervised pretraining) and a parser of model output that never throws:
//
//   solve      <bos><solve>(7+5)*3-4=             → 7+5=12;12*3=36;36-4=32;#32<eos>
//   vary       <bos><vary>TRACE<sep>              → a new problem with the same answer<eos>
//              (ablation: <bos><vary>PROBLEM=TRACE<sep>, see VariantContext)
//   challenge  <bos><challenge>WORKED-DOC<sep>    → QUESTION#GOLD<eos>
//   teach      <bos><teach>PROBLEM<sep>           → NEW-PROBLEM<c:tag>…(at most 3)<eos>
//   propose    <bos><propose>TARGET<sep>(EARLIER<sep>)*  → PROBLEM=TRACE<eos>
//
// Parsers take the response text before EOS (see `responseText` in tokenizer.ts).
import { MAX_TEXT_CHARS, parseExpr, printExpr, type Expr, type ParseErrorKind } from './expr';
import { renderDocument, MAX_DOCUMENT_CHARS, type Document } from './corpus';
import { evaluate } from './interpreter';
import { BOS, CONCEPT_TAGS, encode, EOS, ROLE_TOKEN, SEP, TAG_TOKEN, type ConceptTag, type Role } from './tokenizer';
import { checkTrace, parseTrace, readAnswer, readInteger, ANSWER_MARKER, type Step } from './trace';

/** The model's context: every prompt plus its response fits in it. */
export const CONTEXT_TOKENS = 128;

/** Longest problem text any role may write: it must fit a solve prompt. */
export const MAX_PROBLEM_CHARS = 40;

/** Most tokens per role; `response` is the sampler's maxNewTokens, EOS included. */
export const ROLE_LIMITS: Readonly<Record<Role, { prompt: number; response: number }>> = {
  solve: { prompt: MAX_PROBLEM_CHARS + 4, response: CONTEXT_TOKENS - (MAX_PROBLEM_CHARS + 4) },
  vary: { prompt: 88, response: MAX_PROBLEM_CHARS },
  challenge: { prompt: MAX_DOCUMENT_CHARS + 4, response: CONTEXT_TOKENS - (MAX_DOCUMENT_CHARS + 4) },
  teach: { prompt: MAX_PROBLEM_CHARS + 4, response: MAX_PROBLEM_CHARS + 8 },
  propose: { prompt: 64, response: 64 },
};

export const MAX_CONCEPT_TAGS = 3;

/** Whether a built prompt leaves its role's full response room in the context. */
export function promptFits(role: Role, prompt: readonly number[]): boolean {
  return prompt.length <= ROLE_LIMITS[role].prompt;
}

export type ParseFailure =
  | 'empty' // nothing before EOS
  | 'missing_marker' // no '#'
  | 'bad_answer' // the text after the last '#' is not an integer
  | 'answer_out_of_range' // an integer beyond ±999
  | 'bad_problem' // the problem does not parse
  | 'problem_out_of_range' // a literal or intermediate value beyond ±999
  | 'mod_by_zero'
  | 'too_long' // a problem longer than MAX_PROBLEM_CHARS, or a text beyond MAX_TEXT_CHARS
  | 'bad_tag' // not a concept tag, or a repeated one
  | 'too_many_tags'
  | 'missing_trace' // propose: no '=' between problem and solution
  | 'bad_step' // a step is not `a op b = v` on numbers
  | 'step_not_in_problem' // a step reduces nothing the problem contains
  | 'wrong_step' // a step's arithmetic is wrong
  | 'incomplete_trace' // the steps stop before one number remains
  | 'answer_mismatch'; // the stated answer is not what the steps computed

export type RoleParse<T> = { ok: true; value: T } | { ok: false; reason: ParseFailure };

/**
 * A problem written by the model. `oracleValue` is the interpreter's value: a diagnostic
 * (true validity), never a reward where the paper uses a proxy (see DESIGN "Oracle discipline").
 */
export interface ParsedProblem {
  text: string;
  expr: Expr;
  oracleValue: number;
}

const fail = (reason: ParseFailure) => ({ ok: false as const, reason });

/** The checks every generating role makes before reading: something, and not too much. */
function refuseShape(text: string): RoleParse<never> | null {
  if (text.length === 0) return fail('empty');
  return text.length > MAX_TEXT_CHARS ? fail('too_long') : null;
}

const PROBLEM_FAILURE: Partial<Record<ParseErrorKind, ParseFailure>> = { number_too_large: 'problem_out_of_range', too_long: 'too_long' };

/** A self-contained problem: parses, fits MAX_PROBLEM_CHARS, evaluates within the bounds. */
export function readProblem(text: string): RoleParse<ParsedProblem> {
  const parsed = parseExpr(text);
  if (!parsed.ok) return fail(PROBLEM_FAILURE[parsed.error.kind] ?? 'bad_problem');
  const canonical = printExpr(parsed.expr);
  if (canonical.length > MAX_PROBLEM_CHARS) return fail('too_long');
  const r = evaluate(parsed.expr);
  if (!r.ok) return fail(r.error.kind === 'mod_by_zero' ? 'mod_by_zero' : 'problem_out_of_range');
  return { ok: true, value: { text: canonical, expr: parsed.expr, oracleValue: r.value } };
}

const prompt = (role: Role, body: string, end: number[] = []) => [BOS, ROLE_TOKEN[role], ...encode(body), ...end];
const response = (body: string, tags: readonly ConceptTag[] = []) => [...encode(body), ...tags.map((t) => TAG_TOKEN[t]), EOS];

// ---- solve ------------------------------------------------------------------------------

export const solvePrompt = (problemText: string): number[] => prompt('solve', `${problemText}=`);

/** Gold: the problem's step trace, e.g. `7+5=12;12*3=36;36-4=32;#32`. */
export const solveResponse = (solution: string): number[] => response(solution);

/** The answer after the last '#'; the steps before it are not checked (the reward is the answer). */
export function parseSolve(text: string): RoleParse<{ answer: number }> {
  const r = readAnswer(text);
  return r.ok ? { ok: true, value: { answer: r.answer } } : fail(r.reason);
}

// ---- vary (SvS) -------------------------------------------------------------------------

/**
 * What a vary prompt shows. `solution` is SvS's format: "each solution y_i serves as context",
 * and the released prompt holds only the response (conditioning on the problem invites
 * rephrasings of it). `problem+solution` is the ablation: the problem, then its solution.
 */
export const VARIANT_CONTEXTS = ['solution', 'problem+solution'] as const;
export type VariantContext = (typeof VARIANT_CONTEXTS)[number];

/** A correct solution alone (the policy's own response in SvS): `<bos><vary>TRACE<sep>`. */
export const varyPrompt = (solution: string): number[] => prompt('vary', solution, [SEP]);

/** The ablation's prompt: the problem and its solution, `<bos><vary>PROBLEM=TRACE<sep>`. */
export const varyPromptWithProblem = (problemText: string, solution: string): number[] =>
  prompt('vary', `${problemText}=${solution}`, [SEP]);

/** The vary prompt of `context`; the problem text is read only for `problem+solution`. */
export const varyPromptFor = (context: VariantContext, problemText: string, solution: string): number[] =>
  context === 'solution' ? varyPrompt(solution) : varyPromptWithProblem(problemText, solution);

export const varyResponse = (variantText: string): number[] => response(variantText);

export function parseVary(text: string): RoleParse<{ problem: ParsedProblem }> {
  const refused = refuseShape(text);
  if (refused) return refused;
  const p = readProblem(text);
  return p.ok ? { ok: true, value: { problem: p.value } } : p;
}

// ---- challenge (SPICE) ------------------------------------------------------------------

/** The document as a worked record, values shown: the challenger reads its gold from it. */
export const challengePrompt = (doc: Document): number[] => prompt('challenge', renderDocument(doc, true), [SEP]);

export const challengeResponse = (questionText: string, gold: number): number[] =>
  response(`${questionText}${ANSWER_MARKER}${gold}`);

/** `QUESTION#GOLD`: the question is everything before the last '#', the gold after it. */
export function parseChallenge(text: string): RoleParse<{ question: ParsedProblem; gold: number }> {
  const refused = refuseShape(text);
  if (refused) return refused;
  const at = text.lastIndexOf(ANSWER_MARKER);
  if (at < 0) return fail('missing_marker');
  const gold = readInteger(text.slice(at + 1));
  if (!gold.ok) return fail(gold.reason);
  const question = readProblem(text.slice(0, at));
  return question.ok ? { ok: true, value: { question: question.value, gold: gold.value } } : question;
}

// ---- teach (OpenSIR) --------------------------------------------------------------------

export const teachPrompt = (poolProblemText: string): number[] => prompt('teach', poolProblemText, [SEP]);

export function teachResponse(problemText: string, tags: readonly ConceptTag[]): number[] {
  if (tags.length > MAX_CONCEPT_TAGS) throw new RangeError(`teachResponse: ${tags.length} tags, at most ${MAX_CONCEPT_TAGS}`);
  return response(problemText, tags);
}

/** A problem followed by at most three distinct concept tags. */
export function parseTeach(text: string): RoleParse<{ problem: ParsedProblem; tags: ConceptTag[] }> {
  const refused = refuseShape(text);
  if (refused) return refused;
  const cut = text.indexOf('<');
  const problem = readProblem(cut < 0 ? text : text.slice(0, cut));
  if (!problem.ok) return problem;
  const tagText = cut < 0 ? '' : text.slice(cut);
  const found = [...tagText.matchAll(/<c:([a-z]+)>/g)];
  if (found.map((m) => m[0]).join('') !== tagText) return fail('bad_tag');
  const tags = found.map((m) => m[1]) as ConceptTag[];
  if (tags.some((t, i) => !CONCEPT_TAGS.includes(t) || tags.indexOf(t) !== i)) return fail('bad_tag');
  if (tags.length > MAX_CONCEPT_TAGS) return fail('too_many_tags');
  return { ok: true, value: { problem: problem.value, tags } };
}

// ---- propose (TTSP) ---------------------------------------------------------------------

/**
 * The target, then earlier proposals in the order given, as many as fit the role's prompt
 * limit (the rest are left out). Throws if the target alone does not fit.
 */
export function proposePrompt(targetText: string, earlier: readonly string[]): number[] {
  const ids = prompt('propose', targetText, [SEP]);
  if (!promptFits('propose', ids)) throw new RangeError(`proposePrompt: target ${targetText} does not fit the prompt`);
  for (const p of earlier) {
    const part = [...encode(p), SEP];
    if (ids.length + part.length > ROLE_LIMITS.propose.prompt) break;
    ids.push(...part);
  }
  return ids;
}

/** Gold: a problem and its worked reference solution, `PROBLEM=TRACE`. */
export const proposeResponse = (problemText: string, solution: string): number[] => response(`${problemText}=${solution}`);

/** A proposal passes when it parses and its reference solution checks step by step. */
export function parsePropose(text: string): RoleParse<{ problem: ParsedProblem; steps: Step[]; answer: number }> {
  const refused = refuseShape(text);
  if (refused) return refused;
  const eq = text.indexOf('=');
  if (eq < 0) return fail('missing_trace');
  const problem = readProblem(text.slice(0, eq));
  if (!problem.ok) return problem;
  const trace = parseTrace(text.slice(eq + 1));
  if (!trace.ok) return fail(trace.reason === 'empty' ? 'missing_marker' : trace.reason);
  const check = checkTrace(problem.value.expr, trace.steps, trace.answer);
  if (!check.ok) return fail(check.reason);
  return { ok: true, value: { problem: problem.value, steps: trace.steps, answer: trace.answer } };
}
