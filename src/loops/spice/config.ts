// SPICE's configuration (LOOPS.md §3, the paper's §2): the shared loop fields plus the
// challenger and reasoner group sizes, the challenger reward's shape and τ, the invalid-question
// reward, the corpus and the two ablations (no corpus, frozen challenger), each with the paper's
// value as its default; presets; a validator that names the field to change.
import { count, defaultsOf, GENERATED_CORPUS, num, type FieldSpecs } from '../../config/fields';
import { ConfigError } from '../../util/errors';
import { ROLE_LIMITS } from '../../world/index';
import { BOUNDS, loopFields, TOP_P, validateLoopConfig, type BaseLoopConfig } from '../base_config';
import type { LoopPreset } from '../spec';
import { FRONTIER_SHAPES, type FrontierShape } from '../frontier';
import { corpusError } from './corpus';
import { cutLine, escapeControls } from '../../util/show';

export type ChallengerRewardShape = FrontierShape;

export interface SpiceConfig extends BaseLoopConfig {
  documentsPerStep: number;
  questionsPerDocument: number;
  answersPerQuestion: number;
  challengerReward: ChallengerRewardShape;
  tau: number;
  invalidReward: number;
  useCorpus: boolean;
  frozenChallenger: boolean;
  corpus: string;
  corpusDocuments: number;
  maxNewTokens: number;
  maxQuestionTokens: number;
  topP: number;
}

/** The generated corpus is built at the run's start: 100,000 documents take seconds on a laptop. */
const MAX_CORPUS_DOCUMENTS = 100_000;

const OWN_FIELDS: FieldSpecs<Omit<SpiceConfig, keyof BaseLoopConfig>> = {
  documentsPerStep: { default: 8, type: count(1, BOUNDS.perStep), paper: '128 (batch size)', help: 'corpus documents drawn per step; the challenger writes questions about each' },
  questionsPerDocument: { default: 8, type: count(1, BOUNDS.group), paper: '8', help: 'N_C: questions the challenger writes per document (one challenger advantage group)' },
  answersPerQuestion: { default: 8, type: count(1, BOUNDS.group), paper: '8', help: 'K: reasoner answers per valid question (one reasoner advantage group; its pass rate p sets the challenger\'s reward)' },
  challengerReward: {
    default: 'gaussian', type: { kind: 'enum', choices: FRONTIER_SHAPES }, paper: 'gaussian',
    help: 'the challenger\'s reward from the reasoner pass rate p: gaussian exp(−(p(1−p) − ¼)²/2τ) (the paper); r-zero 1 − 2|p − ½|; absolute-zero 1 − p on 0 < p < 1; threshold 𝟙[0 < p < 1] (the paper\'s ablation, Table 4)',
  },
  tau: { default: 0.01, type: num(0, { minExclusive: true }), paper: '0.01', help: 'τ of the gaussian reward: how sharply it peaks at p = ½ (used by gaussian only)' },
  invalidReward: { default: 0, type: num(-1, { max: 1 }), paper: '0', help: 'challenger reward of an output that is not a valid question with a gold answer (unparseable, no #gold, cut at the limit)' },
  useCorpus: { default: true, type: { kind: 'boolean' }, paper: 'true', help: 'show the challenger a document; off = the no-corpus ablation: it writes questions without one (ungrounded self-play)' },
  frozenChallenger: { default: false, type: { kind: 'boolean' }, paper: 'false', help: 'ablation: the challenger\'s outputs are not trained on; only the reasoner learns (the paper: the reasoner is then insufficiently challenged)' },
  corpus: { default: GENERATED_CORPUS, type: { kind: 'string', holds: 'corpus' }, paper: 'Nemotron-CC-Math + NaturalReasoning', help: `"${GENERATED_CORPUS}" (the lab's corpus of worked documents, fixed) or the text of a corpus file: one document per line, e.g. a=7;b=a+5;c=b*3` },
  corpusDocuments: { default: 512, type: count(1, MAX_CORPUS_DOCUMENTS), paper: '—', help: 'documents of the generated corpus (a corpus file uses all of its own)' },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest reasoner answer, end token included; also constant_norm\'s L_max' },
  maxQuestionTokens: { default: ROLE_LIMITS.challenge.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest challenger output (question#gold), end token included' },
  topP: TOP_P,
};

export const SPICE_FIELDS: FieldSpecs<Omit<SpiceConfig, 'rl'>> = loopFields(OWN_FIELDS);

export const SPICE_DEFAULTS = defaultsOf(SPICE_FIELDS);

export const SPICE_PRESETS: Readonly<Record<string, LoopPreset<SpiceConfig>>> = {
  paper: {
    title: 'paper',
    note: 'LOOPS.md §3: N_C = K = 8, gaussian challenger reward (τ = 0.01), invalid questions 0, Dr. GRPO advantages per role, constant_norm; 8 documents a step here (the paper takes 128)',
    config: {},
  },
  lab: {
    title: 'lab (a few minutes here)',
    note: 'sized for a CPU adapter: 4 documents × 4 questions × 8 answers, 20 steps, a 16 × 8 evaluation every 10 steps',
    config: { documentsPerStep: 4, questionsPerDocument: 4, steps: 20, evalProblems: 16, evalN: 8 },
  },
  'no-corpus': {
    title: 'ablation: no corpus',
    note: 'the challenger writes without a document (ungrounded self-play, as R-Zero): its gold answers are its own guesses, so watch gold accuracy',
    config: { useCorpus: false },
  },
  'frozen-challenger': {
    title: 'ablation: frozen challenger',
    note: 'only the reasoner trains; the challenger\'s questions stay as the base writes them',
    config: { frozenChallenger: true },
  },
  'r-zero': { title: 'ablation: R-Zero reward', note: 'challenger reward 1 − 2|p − ½| (Table 4)', config: { challengerReward: 'r-zero' } },
  'absolute-zero': { title: 'ablation: Absolute-Zero reward', note: 'challenger reward 1 − p on 0 < p < 1, else 0 (Table 4)', config: { challengerReward: 'absolute-zero' } },
  threshold: { title: 'ablation: threshold reward', note: 'challenger reward 𝟙[0 < p < 1] (Table 4)', config: { challengerReward: 'threshold' } },
};

function check(c: SpiceConfig, where: string): void {
  if (c.corpus !== GENERATED_CORPUS) {
    const e = corpusError(c.corpus);
    // the bad lines are the user's bytes: one line, escaped and cut (a file of long bad lines made a 2,500-character message)
    if (e) throw new ConfigError(cutLine(`${where}.corpus: ${escapeControls(e.replace(/\n\s*/g, '; '))}`));
  }
  if (c.rl.advantage === 'external') throw new ConfigError(`${where}.rl.advantage = external: spice computes its advantages from rewards per role and group; pick none (Dr. GRPO, the paper), group_std or batch_std`);
  if (c.answersPerQuestion === 1 && c.rl.singletonAdvantage !== 'verl') {
    throw new ConfigError(`${where}.answersPerQuestion = 1: one answer gives a pass rate of 0 or 1, which every shape pays the same, so the challenger learns nothing, and a reasoner group of one has no baseline; use 2 or more`);
  }
  if (c.questionsPerDocument === 1 && !c.frozenChallenger && c.rl.singletonAdvantage !== 'verl') {
    throw new ConfigError(`${where}.questionsPerDocument = 1: a challenger group of one question has no baseline, so the challenger never learns; use 2 or more (or frozenChallenger = true)`);
  }
}

/** SPICE draws documents, not problems of a training set: DAPO's dynamic sampling is not its. */
export const SPICE_RL_UNUSED = ['dynamicSampling', 'maxGenBatches'] as const;

export function validateSpiceConfig(obj: unknown, where = 'spice'): SpiceConfig {
  return validateLoopConfig<SpiceConfig>(obj, where, SPICE_FIELDS, SPICE_DEFAULTS, 'spice', check, SPICE_RL_UNUSED);
}
