// TTSP's body (LOOPS.md §6; the paper's Figure 2): test-time self-play on one target x*, with a
// frozen base and two LoRA adapter sets the engine trains, the proposer (role `propose`) and the
// solver (role `solve`). Per step:
//   propose  proposerContexts contexts, each the target then a sample of earlier valid synthetic
//            problems, × proposalsPerContext proposals `PROBLEM=TRACE` (one proposer group per
//            context); the validity gate judges each (gate.ts), every rejection counted.
//   solve    G_S attempts per valid proposal against its reference result, plus R problems
//            replayed from the buffer of earlier valid ones, re-answered by the current solver and
//            trained on iff 0 < p < 1.
//   rewards  solver 𝟙[answer = reference]; proposer: the frontier score of the solver pass rate
//            (SPICE's gaussian by default), invalidReward for a rejected proposal.
//   updates  the proposer set on the proposals, the solver set on the kept solver groups: two
//            updates, two optimiser states; the base never changes.
// The generic control (solverProblems = training) has no proposer: the solver's fresh problems are
// random training problems with their true answers, so a run to the loop's tokens asks what
// self-play around the target adds to RL on any problems.
// The target's answer is never seen by training: every targetEvalEvery steps (and after the last,
// the step that reaches the token budget included) the solver answers x* targetEvalN times, graded
// by the interpreter, with the majority vote; the frozen base is measured once, on the same
// samples' seed, as the reference. Oracle diagnostics, shown and never rewarded: proposals equal in
// value to the target or containing it, relatedness against a baseline of random training
// problems, and the frozen base's pass rate on the step's fresh problems (the paper's Figure 11).
import { answerOf } from '../../eval/score';
import type { Rollout } from '../../rl/rollout';
import { countedRng, mulberry32, type CountedRng } from '../../util/rng';
import { filterZeroVariance } from '../../rl/filter';
import { cosine, vendiScore } from '../../metrics/diversity';
import { BOS, encode, EOS, loadSet, proposePrompt, readProblem, responseText, solvePrompt } from '../../world/index';
import type { Expr } from '../../world/expr';
import type { LoopBody, StepContext, StepResult } from '../body';
import type { CurriculumRecord } from '../events';
import type { LoopEngine, RewardFn } from '../engine';
import { frontierReward } from '../frontier';
import { samplesOf } from '../samples';
import { renameEntropy } from '../stats';
import { mean, rateOf } from '../../metrics/mean';
import { meanEntropy } from '../../metrics/entropy';
import type { TtspConfig } from './config';
import { containsTarget, gate, GATE_VERDICTS, keepReplayed, problemForm, ReplayBuffer, verdictCounts, type GateResult, type ReplayEntry } from './gate';

/** The two adapter sets and the roles they serve. */
export const PROPOSER = 'proposer';
export const SOLVER = 'solver';

/** Reward of a solver attempt: 1 iff its answer is the problem's reference result. */
const byReference: RewardFn<number> = (ref, response) => {
  const { answer, text } = answerOf(response);
  return { reward: answer === ref ? 1 : 0, text };
};

interface Proposal {
  context: number;
  output: string;
  verdict: GateResult;
  /** the solver's pass rate on it (null: rejected, not answered) */
  p: number | null;
  answers: string;
  reward: number;
  /** cosine of its embedding with the target's (null: rejected) */
  related: number | null;
}

/** What a run carries between steps (plain JSON; the adapter sets are saved with the checkpoint). */
interface TtspState {
  draws: number;
  replay: ReplayEntry[];
  /** canonical texts of every valid proposal so far (the duplicate check) */
  seen: string[];
  /** the frozen base's target mean@n and maj@n, measured at the first step */
  base: { mean: number; maj: number } | null;
  /** the temperature of every target evaluation: the run's first (a live change would make them incomparable) */
  evalTemperature: number;
  /** mean cosine of RELATED_BASE_N random training problems to the target (proposal/related's baseline), measured at the first step */
  relatedBase?: number;
}

/**
 * The generic control's problems: the training set less the target up to operand order and the
 * problems that contain it (what the gate refuses), with their true answers.
 */
export function genericControlProblems(target: string): { text: string; answer: number }[] {
  const t = readProblem(target);
  if (!t.ok) throw new Error(`ttsp: target ${target} does not parse (${t.reason})`);
  const targetForm = problemForm(target);
  return loadSet('train').filter((p) => problemForm(p.text) !== targetForm && !containsTarget(p.expr, t.value.expr)).map((p) => ({ text: p.text, answer: p.answer }));
}

/** The context a generic-control record shows in place of a proposer context. */
export const GENERIC_CONTEXT = 'a random training problem (generic control)';

/** How many random training problems make relatedness's baseline. */
export const RELATED_BASE_N = 32;

/**
 * The training problems of relatedness's baseline: RELATED_BASE_N distinct ones drawn by the run's
 * seed (its own generator, so the run's draws are untouched), the target left out.
 */
export function relatedBaseProblems(seed: number, target: string): string[] {
  const pool = loadSet('train').map((p) => p.text).filter((t) => t !== target);
  const rand = mulberry32((seed ^ 0x2c1b3c6d) >>> 0);
  const out: string[] = [];
  while (out.length < RELATED_BASE_N && pool.length) out.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]);
  return out;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** The interpreter's value of a problem's canonical text (an oracle: shown, never a reward). */
function trueValue(problem: string): number | null {
  const r = readProblem(problem);
  return r.ok ? r.value.oracleValue : null;
}

class TtspRun {
  readonly replay: ReplayBuffer;
  readonly seen: Set<string>;
  base: { mean: number; maj: number } | null;
  readonly evalTemperature: number;
  relatedBase: number | null;
  /** embeddings of the valid proposals so far (cumulative Vendi), filled lazily */
  private vectors: Float32Array[] = [];
  private targetVector: Float32Array | null = null;
  private readonly targetAnswer: number;
  private readonly targetExpr: Expr;
  /** the generic control's problems: the training set less the target and the problems containing it (built by its first step) */
  private training: readonly { text: string; answer: number }[] | null = null;

  constructor(private readonly engine: LoopEngine, c: TtspConfig, readonly rand: CountedRng, saved: Partial<TtspState> | null) {
    const t = readProblem(c.target);
    if (!t.ok) throw new Error(`ttsp: target ${c.target} does not parse (${t.reason})`);
    this.targetAnswer = t.value.oracleValue;
    this.targetExpr = t.value.expr;
    this.replay = ReplayBuffer.from(saved?.replay ?? []);
    this.seen = new Set(saved?.seen ?? []);
    this.base = saved?.base ?? null;
    this.evalTemperature = typeof saved?.evalTemperature === 'number' ? saved.evalTemperature : c.rl.temperature;
    this.relatedBase = typeof saved?.relatedBase === 'number' ? saved.relatedBase : null;
  }

  private sampling(c: TtspConfig, step: number, task: number, maxNew: number) {
    // one seed per (step, task): propose 0, solve 1
    return { seed: (c.seed * 7919 + step * 2 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew };
  }

  private embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.length ? this.engine.embed(texts.map((t) => [BOS, ...encode(t)])) : Promise.resolve([]);
  }

  /** The solver's (or the frozen base's) target mean@n and maj@n, graded by the interpreter; the same seed every time. */
  private async evalTarget(c: TtspConfig, frozenBase: boolean): Promise<{ mean: number; maj: number }> {
    const n = c.targetEvalN;
    const r = await this.engine.evaluate(
      [{ id: 0, text: c.target, answer: this.targetAnswer }],
      { n, ks: n === 1 ? [1] : [1, n], seed: (c.seed * 1000 + 11) >>> 0, temperature: this.evalTemperature, maxNew: c.maxNewTokens, frozenBase },
    );
    return { mean: r.problems[0].c / n, maj: r.majAtK[String(n)] };
  }

  /** The frozen base's pass rate over G_S attempts at each problem, graded against its reference like the solver. */
  private async basePassRate(c: TtspConfig, step: number, problems: readonly { text: string; answer: number }[]): Promise<number> {
    const r = await this.engine.evaluate(
      problems.map((p, id) => ({ id, ...p })),
      { n: c.solverAttempts, ks: [1], seed: (c.seed * 7919 + step * 2 + 1) >>> 0, temperature: c.rl.temperature, topP: c.topP, maxNew: c.maxNewTokens, frozenBase: true },
    );
    return r.problems.reduce((a, p) => a + p.c, 0) / (problems.length * c.solverAttempts);
  }

  /** The proposer's step: contexts of the target and earlier valid problems, proposals, the gate's verdicts. */
  private async propose(step: number, c: TtspConfig): Promise<{ propose: Rollout<number>[]; proposals: Proposal[]; contexts: string[][] }> {
    // each context is the target and a sample of earlier valid problems
    const earlier = this.replay.toJSON();
    const contexts = Array.from({ length: c.proposerContexts }, () => {
      const pick: string[] = [];
      const pool = earlier.map((e) => e.problem);
      while (pick.length < c.contextProblems && pool.length) pick.push(pool.splice(Math.floor(this.rand() * pool.length), 1)[0]);
      return pick;
    });
    const propose = await this.engine.rollout(
      contexts.map((ctx, i) => ({ prompt: proposePrompt(c.target, ctx), payload: i })),
      { groupSize: c.proposalsPerContext, role: 'propose', dataType: 'propose', groupIdBase: 0, ...this.sampling(c, step, 0, c.maxProposalTokens) },
      (_i, response) => ({ reward: 0, text: responseText(response).text }),
    );
    // the gate, in order: a problem proposed twice this step is a duplicate the second time; the
    // target and earlier problems are compared up to the order of commutative operands
    const seen = new Set([c.target, ...this.seen].map((p) => problemForm(p) as string));
    const refuse = c.refuseContainsTarget ? this.targetExpr : null;
    const proposals: Proposal[] = propose.map((t) => {
      const verdict = gate(t.text, responseText(t.responseTokens).ended, seen, c.gate, refuse);
      if (verdict.verdict === 'valid' && verdict.problem) seen.add(problemForm(verdict.problem) as string);
      return { context: t.groupId, output: t.text, verdict, p: null, answers: '', reward: c.invalidReward, related: null };
    });
    return { propose, proposals, contexts };
  }

  /**
   * The generic control's "proposals": proposerContexts × proposalsPerContext training problems
   * drawn at random by the run's generator (with their true answers), valid by construction; no
   * proposer samples, so nothing is generated or trained for it.
   */
  private drawTraining(c: TtspConfig): { propose: Rollout<number>[]; proposals: Proposal[]; contexts: string[][] } {
    const n = c.proposerContexts * c.proposalsPerContext;
    const training = (this.training ??= genericControlProblems(c.target));
    const proposals: Proposal[] = Array.from({ length: n }, () => {
      const p = training[Math.floor(this.rand() * training.length)];
      return { context: 0, output: p.text, verdict: { verdict: 'valid', problem: p.text, answer: p.answer, reason: null }, p: null, answers: '', reward: 0, related: null };
    });
    return { propose: [], proposals, contexts: [[GENERIC_CONTEXT]] };
  }

  async step(step: number, c: TtspConfig, ctx?: StepContext): Promise<StepResult> {
    this.base ??= await this.evalTarget(c, true);
    const targetVector = (this.targetVector ??= (await this.embed([c.target]))[0]);
    const relatedBase = (this.relatedBase ??= mean((await this.embed(relatedBaseProblems(c.seed, c.target))).map((v) => cosine(v, targetVector))));
    if (this.vectors.length < this.seen.size) this.vectors.push(...(await this.embed([...this.seen].slice(this.vectors.length))));
    const control = c.solverProblems === 'training';
    const { propose, proposals, contexts } = control ? this.drawTraining(c) : await this.propose(step, c);
    const valid = proposals.filter((q) => q.verdict.verdict === 'valid');
    // the oracle's look at what the gate certifies, or would without the contains-target rule
    const checked = proposals.filter((q) => q.verdict.verdict === 'valid' || q.verdict.verdict === 'contains_target').map((q) => readProblem(q.verdict.problem as string));
    // ---- solve: fresh valid problems, then replayed ones (drawn before this step's join the buffer)
    const replayed = this.replay.draw(c.replay, this.rand);
    const solvePrompts = [
      ...valid.map((q) => ({ prompt: solvePrompt(q.verdict.problem as string), payload: q.verdict.answer as number })),
      ...replayed.map((e) => ({ prompt: solvePrompt(e.problem), payload: e.answer })),
    ];
    const solve = solvePrompts.length === 0 ? [] : await this.engine.rollout(
      solvePrompts, { groupSize: c.solverAttempts, role: 'solve', dataType: 'solve', groupIdBase: 0, ...this.sampling(c, step, 1, c.maxNewTokens) }, byReference,
    );
    const groupOf = (g: number) => solve.filter((t) => t.groupId === g);
    const vectors = await this.embed(valid.map((q) => q.verdict.problem as string));
    valid.forEach((q, j) => {
      const group = groupOf(j);
      q.p = mean(group.map((t) => t.reward));
      q.answers = group.map((t) => `${answerOf(t.responseTokens).answer ?? '–'}${t.reward === 1 ? '✓' : ''}`).join(' ');
      q.reward = frontierReward(q.p, c.proposerReward, c.tau);
      q.related = cosine(vectors[j], targetVector);
    });
    const basePass = c.basePassRate && valid.length
      ? await this.basePassRate(c, step, valid.map((q) => ({ text: q.verdict.problem as string, answer: q.verdict.answer as number })))
      : null;
    const replayRates = replayed.map((_e, i) => mean(groupOf(valid.length + i).map((t) => t.reward)));
    const keptReplay = new Set(replayed.flatMap((_e, i) => (keepReplayed(replayRates[i]) ? [valid.length + i] : [])));
    const solverBatch = solve.filter((t) => t.groupId < valid.length || keptReplay.has(t.groupId));
    // ---- the two updates: the proposer set, then the solver set
    const proposeTrajs: Rollout<number>[] = propose.map((t, k) => ({ ...t, reward: proposals[k].reward }));
    const pStats = control ? null : await this.engine.train(proposeTrajs);
    const sStats = solverBatch.length ? await this.engine.train(solverBatch) : null;
    // ---- the buffer and the duplicate check take this step's valid problems
    // valid problems are new by the gate, so the embeddings stay one per entry of `seen` (as a resume rebuilds them)
    valid.forEach((q, j) => {
      this.replay.add({ problem: q.verdict.problem as string, answer: q.verdict.answer as number, step });
      if (!this.seen.has(q.verdict.problem as string)) {
        this.seen.add(q.verdict.problem as string);
        this.vectors.push(vectors[j]);
      }
    });
    // ---- what the step reports
    const rewards = proposals.map((q) => q.reward).sort((a, b) => b - a);
    const counts = verdictCounts(proposals.map((q) => q.verdict.verdict));
    const fresh = solve.filter((t) => t.groupId < valid.length);
    const generated = [...propose, ...solve].reduce((a, t) => a + t.responseTokens.length, 0);
    const metrics: Record<string, number> = {
      'entropy/all': meanEntropy([...proposeTrajs, ...solve]),
      'tokens/generated': generated,
      'proposal/related_base': relatedBase,
      'replay/size': this.replay.size,
      'replay/drawn': replayed.length,
      'replay/kept': keptReplay.size,
      'vendi/cumulative': vendiScore(this.vectors),
      optimiser_steps: (pStats?.optimiserSteps ?? 0) + (sStats?.optimiserSteps ?? 0),
      rejected_steps: (pStats?.rejectedSteps ?? 0) + (sStats?.rejectedSteps ?? 0),
      ...(sStats ? renameEntropy(sStats.metrics) : {}),
    };
    // the proposer's figures (the generic control has no proposer)
    if (pStats) {
      Object.assign(metrics, {
        'proposer/reward': mean(rewards),
        'proposer/top4': mean(rewards.slice(0, 4)),
        'proposer/valid': counts.valid / proposals.length,
        'entropy/propose': meanEntropy(proposeTrajs),
        // the proposer's groups whose rewards are all equal (a proposer group per context)
        'frac_reward_zero_std/propose': filterZeroVariance(proposeTrajs).fracZeroStd,
        ...renameEntropy(Object.fromEntries(Object.entries(pStats.metrics).map(([k, v]) => [`proposer/${k}`, v]))),
      });
      for (const v of GATE_VERDICTS) if (v !== 'valid') metrics[`rejected/${v}`] = counts[v];
    }
    if (fresh.length) {
      Object.assign(metrics, {
        // the solver's reward on the fresh proposals: its RL signal
        reward: mean(fresh.map((t) => t.reward)),
        'completions/mean_length': mean(fresh.map((t) => t.responseTokens.length)),
        'proposal/frontier': rateOf(valid.map((q) => (q.p as number) > 0 && (q.p as number) < 1)),
        'proposal/related': mean(valid.map((q) => q.related as number)),
        'proposal/related_minus_base': mean(valid.map((q) => q.related as number)) - relatedBase,
        // the oracle: is the reference result the problem's true value (always, under the full gate)
        'proposal/correct': mean(valid.map((q) => (trueValue(q.verdict.problem as string) === q.verdict.answer ? 1 : 0))),
      });
    }
    if (checked.length) {
      Object.assign(metrics, {
        'proposal/target_valued': rateOf(checked.map((p) => p.ok && p.value.oracleValue === this.targetAnswer)),
        'proposal/contains_target': rateOf(checked.map((p) => p.ok && containsTarget(p.value.expr, this.targetExpr))),
      });
    }
    if (basePass !== null) metrics['synthetic/base_pass_rate'] = basePass;
    if (replayed.length) metrics['replay/pass_rate'] = mean(replayRates);
    if (solve.length) {
      metrics['entropy/solve'] = meanEntropy(solve);
      // every solver group, fresh and replayed, before the replay's keep rule (as GRPO measures it)
      metrics.frac_reward_zero_std = filterZeroVariance(solve).fracZeroStd;
    }
    if (step % c.targetEvalEvery === 0 || (ctx ? ctx.last(generated) : step === c.steps)) {
      const t = await this.evalTarget(c, false);
      Object.assign(metrics, {
        'target/mean': t.mean, 'target/maj': t.maj,
        'target/base_mean': this.base.mean, 'target/base_maj': this.base.maj,
        ...(c.targetBaseRate >= 0 ? { 'target/base_mean512': c.targetBaseRate } : {}),
      });
    }
    return {
      metrics,
      samples: samplesOf([...propose.slice(0, 2), ...solve.slice(0, 2)], c.samplesPerStep),
      records: proposals.map((q) => this.record(step, q, contexts[q.context], control ? null : c.target)),
    };
  }

  /** A proposal's record; `target` null: the generic control's training problem (its context says so). */
  private record(step: number, q: Proposal, context: readonly string[], target: string | null): CurriculumRecord {
    return {
      kind: 'ttsp.proposal', step, context: (target === null ? context : [target, ...context]).join(' | '), output: q.output,
      verdict: q.verdict.verdict, reason: q.verdict.reason, problem: q.verdict.problem, answer: q.verdict.answer,
      p: q.p, answers: q.answers, reward: q.reward, related: q.related === null ? null : round4(q.related), valid: q.verdict.verdict === 'valid',
    };
  }

  state(): TtspState {
    return {
      draws: this.rand.draws, replay: this.replay.toJSON(), seen: [...this.seen], base: this.base, evalTemperature: this.evalTemperature,
      ...(this.relatedBase !== null ? { relatedBase: this.relatedBase } : {}),
    };
  }
}

export const ttspBody: LoopBody<TtspConfig> = (engine, config, resume) => {
  // the driver loads a resumed run's adapter sets (they are saved with the checkpoint, not in this state)
  if (!engine.adapters) throw new Error('ttsp trains LoRA adapter sets, and this engine has none: TTSP runs on the WebGPU engine (not CPU mode)');
  const saved = (resume?.state ?? null) as Partial<TtspState> | null;
  const rand = countedRng(config.seed ^ 0x7f4a7c15, typeof saved?.draws === 'number' ? saved.draws : 0);
  const run = new TtspRun(engine, config, rand, saved);
  return {
    step: (step, c, ctx) => run.step(step, c, ctx),
    state: () => run.state(),
  };
};
