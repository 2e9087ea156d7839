// Supervised pretraining examples of every role: a prompt and its gold response, as token
// ids. The base policies are trained on a mixture of these (the lead's pretraining script
// chooses the role mix and the difficulty curriculum).
import { conceptTags } from './concepts';
import { generateDocument, goldQuestion, MAX_STATEMENTS } from './corpus';
import { isHeldOut } from './datasets';
import { generateProblem, resolveDifficulty, type Difficulty, type DifficultySpec, type Problem } from './generator';
import {
  challengePrompt,
  challengeResponse,
  MAX_CONCEPT_TAGS,
  MAX_PROBLEM_CHARS,
  proposePrompt,
  proposeResponse,
  ROLE_LIMITS,
  solvePrompt,
  solveResponse,
  teachPrompt,
  teachResponse,
  varyPromptFor,
  varyResponse,
  type VariantContext,
} from './roles';
import { randInt, type Rng } from './rng';
import type { Role } from './tokenizer';
import { goldVariant, relatedProblem, teachProblem } from './variants';

export interface Example {
  role: Role;
  prompt: number[];
  /** The gold response; ends with EOS. */
  response: number[];
}

type Spec = Required<DifficultySpec>;

/** Problem texts an example uses; none may be held out, and all must fit a solve prompt. */
type Draft = { example: Omit<Example, 'role'>; problems: string[] } | null;

/**
 * Choices of an example's format. Unset, a vary example shows the solution alone two times in
 * three and the problem with it otherwise (SvS's format and its ablation, so a base serves both).
 */
export interface ExampleOptions {
  varyContext?: VariantContext;
}

/** Share of vary examples in the solution-only format when `varyContext` is unset. */
export const SOLUTION_ONLY_SHARE = 2 / 3;

/**
 * Earlier proposals a propose example shows after its target: 0..TTSP's default
 * `contextProblems` (3), as many as fit the prompt, so the base has seen the context the loop builds.
 */
export const PROPOSE_EARLIER_MAX = 3;

/**
 * One gold example of `role` at `difficulty` (the operation count of its main problem; for
 * challenge, documents get ops + 2 statements). Deterministic for a given rng state; never
 * uses a held-out problem; always fits the role's token limits.
 */
export function sampleExample(rng: Rng, role: Role, difficulty: Difficulty, opts: ExampleOptions = {}): Example {
  const spec = resolveDifficulty(difficulty);
  for (let attempt = 0; attempt < 200; attempt++) {
    const draft = DRAFTERS[role](rng, spec, opts);
    if (draft && acceptable(role, draft)) return { role, ...draft.example };
  }
  throw new Error(`sampleExample: no ${role} example fits the limits at ${JSON.stringify(spec)}`);
}

function acceptable(role: Role, draft: NonNullable<Draft>): boolean {
  const limits = ROLE_LIMITS[role];
  const { prompt, response } = draft.example;
  if (prompt.length > limits.prompt || response.length > limits.response) return false;
  return draft.problems.every((t) => t.length <= MAX_PROBLEM_CHARS && !isHeldOut(t));
}

/** A training problem: generated until it is not held out and fits a solve prompt. */
function trainingProblem(rng: Rng, spec: Spec): Problem {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const p = generateProblem(rng, spec);
    if (!isHeldOut(p.text) && p.text.length <= MAX_PROBLEM_CHARS) return p;
  }
  throw new Error(`sampleExample: every problem drawn at ${JSON.stringify(spec)} is held out or too long`);
}

const DRAFTERS: Readonly<Record<Role, (rng: Rng, spec: Spec, opts: ExampleOptions) => Draft>> = {
  solve(rng, spec) {
    const p = trainingProblem(rng, spec);
    return { example: { prompt: solvePrompt(p.text), response: solveResponse(p.solution) }, problems: [p.text] };
  },

  vary(rng, spec, opts) {
    const context = opts.varyContext ?? (rng() < SOLUTION_ONLY_SHARE ? 'solution' : 'problem+solution');
    const p = trainingProblem(rng, spec);
    const v = goldVariant(rng, p, spec);
    if (!v) return null;
    return { example: { prompt: varyPromptFor(context, p.text, p.solution), response: varyResponse(v.text) }, problems: [p.text, v.text] };
  },

  challenge(rng, spec) {
    const statements = Math.min(MAX_STATEMENTS, spec.ops + 2);
    const doc = generateDocument(rng, { statements, maxOperand: spec.maxOperand });
    const { question, gold } = goldQuestion(rng, doc);
    return {
      example: { prompt: challengePrompt(doc), response: challengeResponse(question.text, gold) },
      problems: [question.text],
    };
  },

  teach(rng, spec) {
    const pool = trainingProblem(rng, spec);
    const p = teachProblem(rng, pool, spec);
    const tags = conceptTags(p.concepts).slice(0, MAX_CONCEPT_TAGS);
    return { example: { prompt: teachPrompt(pool.text), response: teachResponse(p.text, tags) }, problems: [pool.text, p.text] };
  },

  propose(rng, spec) {
    const target = trainingProblem(rng, spec);
    const earlier: string[] = [];
    for (let i = randInt(rng, 0, PROPOSE_EARLIER_MAX); i > 0; i--) {
      const e = relatedProblem(rng, target, spec, earlier);
      if (e) earlier.push(e.text);
    }
    const proposal = relatedProblem(rng, target, spec, earlier);
    if (!proposal) return null;
    return {
      example: { prompt: proposePrompt(target.text, earlier), response: proposeResponse(proposal.text, proposal.solution) },
      problems: [target.text, ...earlier, proposal.text],
    };
  },
};
