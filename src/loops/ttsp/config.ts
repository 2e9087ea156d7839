// TTSP's configuration (LOOPS.md §6, the paper's Tables 6 and 7): the shared loop fields plus the
// target, the two LoRA adapter sets (rank, α), the proposer contexts and proposals, the validity
// gate, the solver attempts, the proposer's frontier reward, the replay buffer and the target's
// evaluation, each with the paper's value as its default where the paper gives one; presets; a
// validator that names the field to change.
import { count, defaultsOf, num, type FieldSpecs } from '../../config/fields';
import { ConfigError } from '../../util/errors';
import { PROPOSE_EARLIER_MAX, proposePrompt, readProblem, ROLE_LIMITS } from '../../world/index';
import { BOUNDS, loopFields, MAX_STEPS, TOP_P, validateLoopConfig, type BaseLoopConfig } from '../base_config';
import { FRONTIER_SHAPES, frontierHelp, type FrontierShape } from '../frontier';
import type { LoopPreset } from '../spec';
import type { GateMode } from './gate';
import type { LoraTarget } from '../../model/lora';

/** The choices of loraTargets and the projections each adapts. */
export const LORA_TARGET_SETS: Readonly<Record<string, readonly LoraTarget[]>> = {
  all: ['attn.c_attn', 'attn.c_proj', 'mlp.c_fc', 'mlp.c_proj'],
  attention: ['attn.c_attn', 'attn.c_proj'],
  mlp: ['mlp.c_fc', 'mlp.c_proj'],
  qkv: ['attn.c_attn'],
};
export type LoraTargetSet = keyof typeof LORA_TARGET_SETS;

/** The first MidHard target of the shipped `small` base (public/models/small/ttsp_targets.json) and its base mean@512. */
export const DEFAULT_TARGET = 'min(9,9-1+4)';
export const DEFAULT_TARGET_BASE_RATE = 0.111328125;

export interface TtspConfig extends BaseLoopConfig {
  target: string;
  targetBaseRate: number;
  loraRank: number;
  loraAlpha: number;
  loraTargets: LoraTargetSet;
  proposerContexts: number;
  proposalsPerContext: number;
  contextProblems: number;
  gate: GateMode;
  refuseContainsTarget: boolean;
  solverAttempts: number;
  proposerReward: FrontierShape;
  tau: number;
  invalidReward: number;
  replay: number;
  targetEvalEvery: number;
  targetEvalN: number;
  basePassRate: boolean;
  maxNewTokens: number;
  maxProposalTokens: number;
  topP: number;
  solverProblems: SolverProblems;
}

/** Where the solver's fresh problems come from: the proposer (the loop) or the training set (the generic control). */
export type SolverProblems = 'proposals' | 'training';

/** An adapter of rank past the policy's width adds nothing; 256 admits the paper's 32 on any policy the lab trains. */
const MAX_LORA_RANK = 256;
/** Earlier problems in a proposer prompt: as many as fit it, and a prompt holds far fewer than 64. */
const MAX_CONTEXT_PROBLEMS = 64;

const OWN_FIELDS: FieldSpecs<Omit<TtspConfig, keyof BaseLoopConfig>> = {
  target: {
    default: DEFAULT_TARGET, type: { kind: 'string', holds: 'target' }, paper: 'one hard problem x* (HardLCBv6)',
    help: 'the one problem the run adapts to (x*): a problem of the world, e.g. 6*(max(3,5+0)+6). Its answer is never shown to training: the interpreter grades only the target evaluation',
  },
  targetBaseRate: {
    default: DEFAULT_TARGET_BASE_RATE, type: num(-1, { max: 1 }), paper: '—',
    help: 'the base policy\'s mean@512 on the target, from the shipped target list (drawn as a reference line; never used in training); −1 = not measured (a typed target; a target given without its rate gets −1)',
  },
  loraRank: { default: 8, type: count(1, MAX_LORA_RANK), paper: '32', help: 'rank r of both adapter sets (proposer and solver), on the four projections of every block' },
  loraAlpha: { default: 8, type: num(0, { minExclusive: true }), paper: '32', help: 'α of both adapter sets: the update is scaled by α / r (the paper: 32 / 32 = 1)' },
  loraTargets: {
    default: 'all', type: { kind: 'enum', choices: Object.keys(LORA_TARGET_SETS) }, paper: 'all linear layers',
    help: 'the projections both adapter sets adapt in every block: all (qkv, attention output, both MLP layers), attention (qkv and its output), mlp (both MLP layers), qkv (the fused query-key-value projection only)',
  },
  proposerContexts: { default: 2, type: count(1, BOUNDS.perStep), paper: '2', help: 'proposer contexts per step: the target plus a sample of earlier synthetic problems' },
  proposalsPerContext: { default: 8, type: count(2, BOUNDS.group), paper: '8', help: 'proposals per context (one proposer advantage group)' },
  contextProblems: {
    default: PROPOSE_EARLIER_MAX, type: count(0, MAX_CONTEXT_PROBLEMS), paper: 'a sample of history',
    help: `earlier valid synthetic problems shown in a proposer context after the target (as many as fit the prompt); the shipped bases were pretrained on propose prompts with 0 to ${PROPOSE_EARLIER_MAX} earlier problems, so the default ${PROPOSE_EARLIER_MAX} is the most they have seen (more is a context they were not trained on)`,
  },
  gate: {
    default: 'full', type: { kind: 'enum', choices: ['full', 'answer-only'] }, paper: 'full',
    help: 'the validity gate: full = the proposal parses, its reference solution checks step by step in the interpreter, its result is the answer it states, and it is not a duplicate; answer-only = the ablation: any parsed problem with a stated answer passes, and the solver is rewarded against that answer, right or wrong',
  },
  refuseContainsTarget: {
    default: true, type: { kind: 'boolean' }, paper: '— (no such case: the paper has no exact checker)',
    help: 'the gate also refuses a proposal that contains the target as a sub-expression (up to the order of +, *, min, max operands, e.g. max(2*max(4,5),2) for 2*max(4,5)), counted as contains_target: the interpreter would otherwise certify the target\'s own answer inside it, a verifier on the target. The paper\'s proposer checks its problems with its own tests, not an exact checker, so it has no such case; false = measure them (proposal/contains_target) without refusing',
  },
  solverAttempts: { default: 8, type: count(2, BOUNDS.group), paper: '8', help: 'G_S: solver attempts per valid problem (one solver advantage group); their pass rate sets the proposer\'s reward' },
  proposerReward: { default: 'gaussian', type: { kind: 'enum', choices: FRONTIER_SHAPES }, paper: 'gaussian (SPICE\'s)', help: frontierHelp('proposer') },
  tau: { default: 0.01, type: num(0, { minExclusive: true }), paper: '0.01', help: 'τ of the gaussian reward (used by gaussian only)' },
  invalidReward: { default: 0, type: num(-1, { max: 1 }), paper: '0', help: 'proposer reward of a proposal the gate rejects' },
  replay: { default: 4, type: count(0, BOUNDS.perStep), paper: 'replayed from history (Table 7)', help: 'R: earlier valid problems re-answered by the current solver each step; one is trained on iff its pass rate is strictly between 0 and 1' },
  targetEvalEvery: { default: 5, type: count(1, MAX_STEPS), paper: 'every M steps', help: 'M: the target is evaluated (solver mean@n graded by the oracle, and the majority vote) every M steps and after the last (the step that reaches tokenBudget included)' },
  targetEvalN: { default: 8, type: count(1, 512), paper: '8', help: 'samples of the target evaluation (mean@n)' },
  basePassRate: {
    default: true, type: { kind: 'boolean' }, paper: 'the frozen base on the synthetic problems (Figure 11)',
    help: 'each step the frozen base (no adapters) also answers the step\'s fresh valid problems G_S times, graded like the solver (synthetic/base_pass_rate): does the solver face problems the base already solves? Costs G_S base samples per valid problem; false saves them',
  },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: count(1, BOUNDS.tokens), paper: '16384', help: 'longest solver answer, end token included' },
  maxProposalTokens: { default: ROLE_LIMITS.propose.response, type: count(1, BOUNDS.tokens), paper: '16384', help: 'longest proposal (problem=reference solution), end token included' },
  topP: TOP_P,
  solverProblems: {
    default: 'proposals', type: { kind: 'enum', choices: ['proposals', 'training'] }, paper: 'proposals',
    help: 'proposals: the loop; training: the generic control, with no proposer: each step the solver answers proposerContexts × proposalsPerContext random training problems (their true answers as references) and trains on them as on valid proposals, replay included, the target evaluated as ever. The problems are drawn with replacement from the training set less the target and the problems containing it (up to operand order, as the gate refuses), so one may come again; the proposer\'s settings (gate, reward, tau, contextProblems, maxProposalTokens) have nothing to act on. Stop it at the loop\'s generated tokens (tokenBudget; the loop evaluates the target at that step) to ask whether self-play around the target does more than RL on any problems',
  },
};

/** Both adapter sets train from B = 0, so TTSP's lr is larger than full fine-tuning's. */
export const TTSP_FIELDS: FieldSpecs<Omit<TtspConfig, 'rl'>> = loopFields(OWN_FIELDS, {
  base: { lr: { default: 1e-3, help: 'AdamW learning rate of both adapter sets (the base is frozen); adapters start as the base (B = 0) and need a larger rate than full fine-tuning' } },
});

export const TTSP_DEFAULTS = defaultsOf(TTSP_FIELDS);

export const TTSP_PRESETS: Readonly<Record<string, LoopPreset<TtspConfig>>> = {
  paper: {
    title: 'paper',
    note: 'LOOPS.md §6: 2 contexts × 8 proposals, the full gate, G_S = 8 solver attempts, the gaussian frontier reward (τ = 0.01), invalid proposals 0, target mean@8; adapters of rank 8 here (the paper: 32 on an 8B model)',
    config: {},
  },
  lab: {
    title: 'lab (a few minutes here)',
    note: 'sized for a CPU adapter: 2 contexts × 4 proposals, 4 solver attempts, 2 replays, 20 steps, the target every 5 steps, a 16 × 8 held-out evaluation at the start and the end',
    config: { proposalsPerContext: 4, solverAttempts: 4, replay: 2, steps: 20, evalProblems: 16, evalN: 8, evalEvery: 0 },
  },
  'answer-only-gate': {
    title: 'ablation: answer-only gate',
    note: 'proposals pass on a parsed problem and a stated answer; the reference solution is not checked, so the solver may be taught wrong answers (watch the rejection mix and the target)',
    config: { gate: 'answer-only' },
  },
  'no-replay': { title: 'ablation: no replay', note: 'R = 0: only fresh proposals train the solver', config: { replay: 0 } },
  threshold: { title: 'ablation: threshold reward', note: 'proposer reward 𝟙[0 < p < 1]', config: { proposerReward: 'threshold' } },
  'generic-control': {
    title: 'control: generic problems',
    note: 'no proposer: the solver trains on random training problems with their true answers, replay included; stop it at the loop\'s tokens (tokenBudget) to see what self-play around the target adds',
    config: { solverProblems: 'training' },
  },
};

function check(c: TtspConfig, where: string): void {
  const t = readProblem(c.target);
  if (!t.ok) throw new ConfigError(`${where}.target = ${JSON.stringify(c.target)}: not a problem of the world (${t.reason}); write one like 6*(max(3,5+0)+6)`);
  if (t.value.text !== c.target) throw new ConfigError(`${where}.target = ${JSON.stringify(c.target)}: write it as ${JSON.stringify(t.value.text)} (the world's canonical form)`);
  try {
    proposePrompt(c.target, []);
  } catch {
    throw new ConfigError(`${where}.target = ${JSON.stringify(c.target)}: too long for the proposer's prompt (${ROLE_LIMITS.propose.prompt} tokens)`);
  }
  if (c.rl.advantage === 'external') throw new ConfigError(`${where}.rl.advantage = external: ttsp computes its advantages from rewards per role and group; pick group_std (GRPO, the paper) or none`);
}

/** TTSP writes its own problems: DAPO's dynamic sampling over a training set is not its. */
export const TTSP_RL_UNUSED = ['dynamicSampling', 'maxGenBatches'] as const;

export function validateTtspConfig(obj: unknown, where = 'ttsp'): TtspConfig {
  // the default base rate belongs to the default target: another target without a rate of its own has none measured
  const o = obj as Record<string, unknown> | null;
  const own = typeof o === 'object' && o !== null && !Array.isArray(o) && o.target !== undefined && o.target !== DEFAULT_TARGET && o.targetBaseRate === undefined;
  return validateLoopConfig<TtspConfig>(own ? { ...o, targetBaseRate: -1 } : obj, where, TTSP_FIELDS, TTSP_DEFAULTS, 'ttsp', check, TTSP_RL_UNUSED);
}
