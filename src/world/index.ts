// The verifiable task world: problem language, exact interpreter, step traces, concepts,
// generators, role formats, documents and data sets. A leaf layer: it imports nothing else.
export { makeRng, randInt, type Rng } from './rng';
export {
  VOCAB_SIZE,
  VOCABULARY,
  PAD,
  BOS,
  EOS,
  SEP,
  TAG_TOKEN,
  ROLES,
  CONCEPT_TAGS,
  encode,
  decode,
  responseText,
  type Role,
  type ConceptTag,
} from './tokenizer';
export { parseExpr, countOps, type Expr } from './expr';
export { evaluate } from './interpreter';
export { STEP_END, solutionOf, extractAnswer, parseTrace } from './trace';
export { conceptsOf, conceptTags, conceptKey, type Concepts } from './concepts';
export { resolveDifficulty, toProblem, MAX_OPS, type Problem } from './generator';
export { goldVariant } from './variants';
export { handsOverAnswer } from './leak';
export {
  parseDocument,
  renderDocument,
  loadCorpus,
  generateCorpus,
  goldQuestion,
  type Document,
} from './corpus';
export {
  MAX_CONCEPT_TAGS,
  ROLE_LIMITS,
  promptFits,
  readProblem,
  solvePrompt,
  varyPrompt,
  varyPromptWithProblem,
  varyPromptFor,
  VARIANT_CONTEXTS,
  type VariantContext,
  parseVary,
  challengePrompt,
  parseChallenge,
  teachPrompt,
  parseTeach,
  proposePrompt,
  parsePropose,
  type ParseFailure,
} from './roles';
export { sampleExample, PROPOSE_EARLIER_MAX, type Example, type ExampleOptions } from './examples';
export { listSets, loadSet, splitTargets } from './datasets';
