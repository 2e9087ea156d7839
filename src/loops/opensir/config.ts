// OpenSIR's configuration (LOOPS.md §4, the paper's §2): the shared loop fields plus the teacher
// and student group sizes, the solvability window, the reward weights, the diversity measure and
// the embedder, the length scale and the ablations (no diversity, s_min, student-only), each with
// the paper's value as its default; presets; a validator that names the field to change.
import { count, defaultsOf, num, RATE, type FieldSpecs } from '../../config/fields';
import { ConfigError } from '../../util/errors';
import { readProblem, ROLE_LIMITS } from '../../world/index';
import { BOUNDS, loopFields, MAX_STEPS, str, TOP_P, validateLoopConfig, type BaseLoopConfig } from '../base_config';
import type { LoopPreset } from '../spec';

export type DiversityMode = 'top5' | 'min';
export type Embedder = 'policy' | 'ngram';

export interface OpensirConfig extends BaseLoopConfig {
  teacherGroups: number;
  teacherSamples: number;
  studentSamples: number;
  sMin: number;
  sMax: number;
  solWeight: number;
  divWeight: number;
  fmtWeight: number;
  lenWeight: number;
  lenCap: number;
  lenBase: number;
  diversity: DiversityMode;
  diversityTopK: number;
  embedder: Embedder;
  frozenTeacher: boolean;
  seedProblem: string;
  maxNewTokens: number;
  maxProblemTokens: number;
  topP: number;
  probeEvery: number;
  probePrompts: number;
  probeSamples: number;
}

const rate = RATE;
const weight = num(0);

const OWN_FIELDS: FieldSpecs<Omit<OpensirConfig, keyof BaseLoopConfig>> = {
  teacherGroups: { default: 4, type: count(1, BOUNDS.perStep), paper: '4', help: 'teacher groups a step, each conditioned on one pool problem drawn uniformly' },
  teacherSamples: { default: 8, type: count(2, BOUNDS.group), paper: '8', help: 'problems the teacher writes per group (one teacher advantage group)' },
  studentSamples: { default: 8, type: count(2, BOUNDS.group), paper: '8', help: 'student answers per legal problem; the majority answer is its pseudo-label' },
  sMin: { default: 0.5, type: rate, paper: '0.5 (ablation 0.1)', help: 's_min: lower end of the solvability window; a solve rate outside [s_min, s_max] earns sol = 0' },
  sMax: { default: 0.9, type: rate, paper: '0.9', help: 's_max: upper end of the solvability window; sol peaks at its midpoint' },
  solWeight: { default: 1, type: weight, paper: '1 (α)', help: 'weight of sol, the solvability triangle, in the teacher reward and in the selection score α·sol + γ·div' },
  divWeight: { default: 1, type: weight, paper: '1 (γ; 0 = the no-diversity ablation)', help: 'weight of div, the diversity against this step\'s candidates and the pool, in the teacher reward and in the selection score α·sol + γ·div that picks the teacher group (highest variance) and the student\'s problem (highest score), as the released code\'s combined score; 0 takes diversity out of both' },
  fmtWeight: { default: 0.1, type: weight, paper: '0.1 (δ)', help: 'weight of fmt in both rewards: the teacher\'s problem is legal; the student\'s answer is in the #answer form' },
  lenWeight: { default: 1, type: weight, paper: '1 (λ)', help: 'weight of len, the students\' mean answer length scaled by l_base and capped at l_cap' },
  lenCap: { default: 48, type: count(1, BOUNDS.tokens), paper: 'l_cap (scaled to the world)', help: 'l_cap in tokens: longer mean answers earn no more length reward' },
  lenBase: { default: 48, type: count(1, BOUNDS.tokens), paper: 'l_base = l_cap (scaled to the world)', help: 'l_base in tokens: len = min(mean answer tokens, l_cap) / l_base' },
  diversity: {
    default: 'top5', type: { kind: 'enum', choices: ['top5', 'min'] }, paper: 'top5 (LOOPS.md); min (the paper\'s text)',
    help: 'top5: div = (1 − mean of the k largest cosine similarities)/2 against this step\'s other legal problems and the pool before the step; min (the paper\'s text): div = (1 − the largest similarity)/2, the distance to the nearest problem of the pool before the step',
  },
  diversityTopK: { default: 5, type: count(1, BOUNDS.perStep), paper: '5', help: 'k of the top-k diversity' },
  embedder: {
    default: 'policy', type: { kind: 'enum', choices: ['policy', 'ngram'] }, paper: 'policy (an embedding model)',
    help: 'policy: the mean of the frozen starting policy\'s final hidden states over the problem\'s tokens; ngram: a bag of character 1- to 3-grams (no model)',
  },
  frozenTeacher: { default: false, type: { kind: 'boolean' }, paper: 'false', help: 'student-only ablation: the teacher\'s problems are not trained on; only the student learns' },
  seedProblem: { default: '1+1', type: str, paper: '1+1', help: 'the pool\'s first problem: the whole curriculum grows from it' },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest student answer, end token included' },
  maxProblemTokens: { default: ROLE_LIMITS.teach.response, type: count(1, BOUNDS.tokens), paper: '—', help: 'longest teacher output (problem and concept tags), end token included' },
  topP: TOP_P,
  probeEvery: {
    default: 10, type: count(0, MAX_STEPS), paper: '— (the lab\'s measurement, never trained on)',
    help: 'steps between coverage probes (0 = none): the teacher writes probeSamples problems for each of a fixed set of probe prompts with a fixed sampling seed at the run\'s first temperature, at step 1 before its update (step 1 reports the base), and after the update of every probeEvery-th step after it and of the run\'s last; probe/* counts the distinct concept signatures, tag sets and problems among them, so coverage is seen over time, not only as the pool\'s running count',
  },
  probePrompts: { default: 8, type: count(1, BOUNDS.perStep), paper: '—', help: 'probe prompts: the seed problem and the first probePrompts − 1 problems of the evaluation set, each the parent of a teacher prompt' },
  probeSamples: { default: 8, type: count(1, BOUNDS.group), paper: '—', help: 'problems the teacher writes for each probe prompt' },
};

export const OPENSIR_FIELDS: FieldSpecs<Omit<OpensirConfig, 'rl'>> = loopFields(OWN_FIELDS);

export const OPENSIR_DEFAULTS = defaultsOf(OPENSIR_FIELDS);

export const OPENSIR_PRESETS: Readonly<Record<string, LoopPreset<OpensirConfig>>> = {
  paper: {
    title: 'paper',
    note: 'LOOPS.md §4: 4 teacher groups × 8, 8 student answers, window [0.5, 0.9], R_T = sol + div + 0.1·fmt + len, top-5 diversity, group_std ε 1e-4, clip 0.2/0.2, β = 1e-4 (k3)',
    config: {},
  },
  lab: {
    title: 'lab (a few minutes here)',
    note: 'sized for a CPU adapter: 2 teacher groups × 4, 6 student answers, 20 steps, a 16 × 8 evaluation every 10 steps',
    config: { teacherGroups: 2, teacherSamples: 4, studentSamples: 6, steps: 20, evalProblems: 16, evalN: 8 },
  },
  'no-diversity': { title: 'ablation: no diversity reward', note: 'γ = 0: div no longer pays the teacher nor picks the group and problem trained on, which the selection then chooses by sol alone (the paper: concept coverage nearly halves)', config: { divWeight: 0 } },
  's-min-0.1': { title: 'ablation: s_min = 0.1', note: 'a wider window admits harder problems (the paper: validity of the pseudo-labels collapses)', config: { sMin: 0.1 } },
  'student-only': { title: 'ablation: student only', note: 'the teacher is frozen: only the student trains on the problems the base writes', config: { frozenTeacher: true } },
};

function check(c: OpensirConfig, where: string): void {
  if (c.sMin > c.sMax) throw new ConfigError(`${where}.sMin = ${c.sMin}: must be ≤ sMax (${c.sMax}); the solvability window is [s_min, s_max]`);
  const seed = readProblem(c.seedProblem);
  if (!seed.ok) throw new ConfigError(`${where}.seedProblem = ${JSON.stringify(c.seedProblem)}: not a problem of the world (${seed.reason}); write one like 1+1 or (7+5)*3`);
  if (c.rl.advantage === 'external') throw new ConfigError(`${where}.rl.advantage = external: opensir computes its advantages from rewards per role and group; pick group_std (the paper), none or batch_std`);
}

/** OpenSIR selects its groups itself (highest variance, highest novelty): DAPO's dynamic sampling is not its. */
export const OPENSIR_RL_UNUSED = ['dynamicSampling', 'maxGenBatches'] as const;

export function validateOpensirConfig(obj: unknown, where = 'opensir'): OpensirConfig {
  return validateLoopConfig<OpensirConfig>(obj, where, OPENSIR_FIELDS, OPENSIR_DEFAULTS, 'opensir', check, OPENSIR_RL_UNUSED);
}
