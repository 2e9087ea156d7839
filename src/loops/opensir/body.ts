// OpenSIR's body (LOOPS.md §4; the paper's §2): one policy as teacher and student, a pool of
// problems growing from one trivial problem.
//   teach  teacherGroups pool problems drawn uniformly; for each, teacherSamples outputs of a new
//          problem and at most three concept tags (one teacher group). Legal iff it parses.
//   solve  studentSamples answers per legal problem; the majority of the parsable answers is the
//          pseudo-label a*; the solve rate s = count(a*)/#parsable is agreement, not correctness.
//   reward R_T = α·sol + γ·div + δ·fmt + λ·len for a legal problem (0 on every part otherwise);
//          R_S = 𝟙[a = a*] + δ·fmt for an answer.
//   select the teacher group with the highest variance of the score α·sol + γ·div over its scored
//          problems (legal, some answer parsed) and the single scored problem with the highest
//          score are trained on: the released code's combined score, the reward's own weighted
//          components (so with γ = 0 diversity plays no part); every legal problem joins the pool.
//   probe  (the lab's measurement) at step 1 before its update (the base), after every probeEvery-th
//          update and after the run's last, the teacher writes problems for a fixed set of prompts
//          with a fixed seed at the run's first temperature: probe/* counts
//          their distinct concepts, so coverage is seen over time and not only as the pool's total.
// Concept tags are masked out of the teacher's loss; group_std ε 1e-4, clip 0.2/0.2 and β = 1e-4
// (k3) come from the `opensir` RL preset. The oracle (the interpreter) says whether a* is the true
// value and which concepts the problem really has: shown, never a reward.
import { answerOf } from '../../eval/score';
import type { Rollout } from '../../rl/rollout';
import { countedRng, type CountedRng } from '../../util/rng';
import { BOS, conceptsOf, CONCEPT_TAGS, encode, EOS, loadSet, MAX_CONCEPT_TAGS, readProblem, responseText, solvePrompt, teachPrompt } from '../../world/index';
import type { LoopBody, StepContext, StepResult } from '../body';
import type { CurriculumRecord } from '../events';
import type { LoopEngine } from '../engine';
import { samplesOf } from '../samples';
import { renameEntropy } from '../stats';
import { mean, rateOf } from '../../metrics/mean';
import { meanEntropy } from '../../metrics/entropy';
import { ngramEmbedding } from '../../metrics/diversity';
import type { OpensirConfig } from './config';
import { filterZeroVariance } from '../../rl/filter';
import { conceptMask, conceptsRight, diagnoseTeach, diversity, majority, selectionScore, selectStudentProblem, selectTeacherGroup, signatureOf, solvability, variance, type TeachDiagnostics } from './logic';

/** A pool problem, as saved with the run (its embedding is recomputed: the embedder is frozen). */
export interface PoolEntry {
  problem: string;
  step: number;
  /** concept signature of its syntax tree (coverage counts distinct signatures) */
  key: string;
  /** the concept tags its tree shows, sorted, space-separated (absent in pools saved before) */
  tags?: string;
  solveRate: number | null;
  label: number | null;
  value: number;
}

interface Candidate {
  output: number;
  group: number;
  diag: TeachDiagnostics;
  /** index among this step's legal problems (null: illegal) */
  legal: number | null;
  /** legal and some student answer parsed: it has a solve rate and a selection score (α·sol + γ·div) */
  scored: boolean;
  answers: (number | null)[];
  label: number | null;
  s: number;
  sol: number;
  div: number;
  len: number;
  reward: number;
}


const round4 = (x: number) => Math.round(x * 1e4) / 1e4;


function seedEntry(c: OpensirConfig): PoolEntry {
  const p = readProblem(c.seedProblem);
  if (!p.ok) throw new Error(`opensir: seedProblem ${c.seedProblem} does not parse`);
  const { key, tagSet } = signatureOf(conceptsOf(p.value.expr));
  return { problem: p.value.text, step: 0, key, tags: tagSet, solveRate: null, label: null, value: p.value.oracleValue };
}

class OpensirRun {
  /** embeddings of the pool's problems, in pool order (filled up lazily: after a resume, all at once) */
  private readonly poolVectors: Float32Array[] = [];

  constructor(private readonly engine: LoopEngine, readonly pool: PoolEntry[], private readonly rand: CountedRng, public probeTemperature: number | null) {}

  private async embed(texts: readonly string[], c: OpensirConfig): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return c.embedder === 'ngram' ? texts.map((t) => ngramEmbedding(t)) : this.engine.embed(texts.map((t) => [BOS, ...encode(t)]));
  }

  private sampling(c: OpensirConfig, step: number, task: number, maxNew: number) {
    return { seed: (c.seed * 6007 + step * 2 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew };
  }

  /**
   * The coverage probe: the teacher writes probeSamples problems for each fixed probe prompt (the
   * seed problem, then the evaluation set's first problems), always with the same sampling seed, so
   * two probes differ by the policy alone. Nothing of it is trained on, pooled or counted as
   * generated tokens (it is a measurement, like an evaluation).
   */
  private async probe(c: OpensirConfig): Promise<Record<string, number>> {
    const parents = [c.seedProblem, ...loadSet(c.evalSet).slice(0, c.probePrompts - 1).map((p) => p.text)];
    // at the run's first temperature: a live change of the knob must not move the probe
    this.probeTemperature ??= c.rl.temperature;
    const out = await this.engine.rollout(
      parents.map((p) => ({ prompt: teachPrompt(p), payload: 0 })),
      { groupSize: c.probeSamples, role: 'teach', dataType: 'teach', groupIdBase: 0, seed: (c.seed * 6007 + 0x5bd1e995) >>> 0, temperature: this.probeTemperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew: c.maxProblemTokens },
      (_x, response) => ({ reward: 0, text: responseText(response).text }),
    );
    const legal = out.map((t) => diagnoseTeach(t.text, responseText(t.responseTokens).ended)).filter((d) => d.legal);
    return {
      'probe/legal': legal.length / out.length,
      'probe/concepts': new Set(legal.map((d) => d.key)).size,
      'probe/tag_sets': new Set(legal.map((d) => d.tagSet)).size,
      'probe/problems': new Set(legal.map((d) => d.problem)).size,
    };
  }

  async step(step: number, c: OpensirConfig, ctx?: StepContext): Promise<StepResult> {
    // the base's probe: step 1, before its update
    const baseProbe = c.probeEvery > 0 && step === 1 ? await this.probe(c) : null;
    if (this.poolVectors.length < this.pool.length) this.poolVectors.push(...(await this.embed(this.pool.slice(this.poolVectors.length).map((e) => e.problem), c)));
    const parents = Array.from({ length: c.teacherGroups }, () => this.pool[Math.floor(this.rand() * this.pool.length)]);
    // ---- teach: new problems and their concepts, one group per pool problem
    const teach = await this.engine.rollout(
      parents.map((p) => ({ prompt: teachPrompt(p.problem), payload: 0 })),
      { groupSize: c.teacherSamples, role: 'teach', dataType: 'teach', groupIdBase: 0, ...this.sampling(c, step, 0, c.maxProblemTokens) },
      (_x, response) => ({ reward: 0, text: responseText(response).text }),
    );
    let legalCount = 0;
    const cands: Candidate[] = teach.map((t, k) => {
      const diag = diagnoseTeach(t.text, responseText(t.responseTokens).ended);
      return { output: k, group: t.groupId, diag, legal: diag.legal ? legalCount++ : null, scored: false, answers: [], label: null, s: 0, sol: 0, div: 0, len: 0, reward: 0 };
    });
    const legal = cands.filter((x) => x.legal !== null);
    // ---- solve: the students answer every legal problem; majority vote gives the pseudo-label
    const solve = legal.length === 0 ? [] : await this.engine.rollout(
      legal.map((x) => ({ prompt: solvePrompt(x.diag.problem as string), payload: 0 })),
      { groupSize: c.studentSamples, role: 'solve', dataType: 'solve', groupIdBase: 0, ...this.sampling(c, step, 1, c.maxNewTokens) },
      (_x, response) => ({ reward: 0, text: answerOf(response).text }),
    );
    const byGroup = legal.map((_, j) => solve.filter((t) => t.groupId === j));
    const vectors = await this.embed(legal.map((x) => x.diag.problem as string), c);
    legal.forEach((x, j) => {
      x.answers = byGroup[j].map((t) => answerOf(t.responseTokens).answer);
      const vote = majority(x.answers);
      x.label = vote.label;
      x.scored = vote.parsable > 0;
      x.s = x.scored ? vote.count / vote.parsable : 0;
      x.sol = solvability(x.s, c.sMin, c.sMax, c.studentSamples);
      // top-k: against this step's other legal problems and the pool before the step; min (the
      // paper's text): the nearest problem of the pool before the step
      const others = c.diversity === 'min' ? this.poolVectors : [...vectors.filter((_, i) => i !== j), ...this.poolVectors];
      x.div = diversity(vectors[j], others, c.diversity, c.diversityTopK);
      // length counts only problems the students answered (a problem no answer parses would pay the cut length)
      x.len = x.scored ? Math.min(mean(byGroup[j].map((t) => t.responseTokens.length)), c.lenCap) / c.lenBase : 0;
      x.reward = c.solWeight * x.sol + c.divWeight * x.div + c.fmtWeight + c.lenWeight * x.len;
    });
    // student rewards: agreement with the pseudo-label, plus δ for an answer in the #answer form
    const studentTrajs: Rollout<number>[] = solve.map((t) => {
      const x = legal[t.groupId];
      const a = answerOf(t.responseTokens).answer;
      return { ...t, reward: (a !== null && a === x.label ? 1 : 0) + (a !== null ? c.fmtWeight : 0) };
    });
    const teachTrajs: Rollout<number>[] = teach.map((t, k) => ({ ...t, reward: cands[k].reward, lossMask: conceptMask(t.responseTokens) }));
    // ---- selection by the score α·sol + γ·div (the released code's combined score: the weighted
    // components the reward switches on), over scored problems only: legal, and some student answer parsed
    const novelty = (x: Candidate) => selectionScore(x.sol, x.div, c);
    const teacherGroup = selectTeacherGroup(parents.map((_, g) => cands.filter((x) => x.group === g && x.scored).map(novelty)));
    const studentProblem = selectStudentProblem(legal.map((x) => (x.scored ? novelty(x) : null)));
    const batch = [
      ...(c.frozenTeacher ? [] : teachTrajs.filter((t) => t.groupId === teacherGroup)),
      ...(studentProblem < 0 ? [] : studentTrajs.filter((t) => t.groupId === studentProblem)),
    ];
    const stats = batch.length ? await this.engine.train(batch) : null;
    // ---- the pool grows by every legal problem
    legal.forEach((x, j) => {
      this.pool.push({ problem: x.diag.problem as string, step, key: x.diag.key as string, tags: x.diag.tagSet as string, solveRate: x.s, label: x.label, value: x.diag.value as number });
      this.poolVectors.push(vectors[j]);
    });
    // ---- what the step reports (a quantity with nothing to measure is left out, not NaN)
    const all = [...teachTrajs, ...studentTrajs];
    const metrics: Record<string, number> = {
      'teacher/reward': mean(cands.map((x) => x.reward)),
      'teacher/legal': legal.length / cands.length,
      'teacher/fmt': legal.length / cands.length,
      // every response token of the step, teacher and students pooled
      'entropy/all': meanEntropy(all),
      'entropy/teach': meanEntropy(teachTrajs),
      // teacher groups whose outputs all score the same R_T, before the selection keeps one
      'frac_reward_zero_std/teach': filterZeroVariance(teachTrajs).fracZeroStd,
      'tokens/generated': all.reduce((a, t) => a + t.responseTokens.length, 0),
      'pool/size': this.pool.length,
      'pool/concepts': new Set(this.pool.map((e) => e.key)).size,
      'pool/tag_sets': new Set(this.pool.map((e) => e.tags ?? '')).size,
      'train/teach': batch.filter((t) => t.role === 'teach').length,
      'train/solve': batch.filter((t) => t.role === 'solve').length,
      kept_groups: stats?.keptGroups ?? 0,
      optimiser_steps: stats?.optimiserSteps ?? 0,
      rejected_steps: stats?.rejectedSteps ?? 0,
      ...(stats ? renameEntropy(stats.metrics) : {}),
    };
    // after the update: every probeEvery-th step and the run's last (its steps or its token budget); step 1 reports the base
    const probeDue = c.probeEvery > 0 && (step % c.probeEvery === 0 || (ctx ? ctx.last(metrics['tokens/generated']) : step === c.steps));
    const probe = baseProbe ?? (probeDue ? await this.probe(c) : null);
    if (probe) Object.assign(metrics, probe);
    if (legal.length) {
      const labelled = legal.filter((x) => x.label !== null);
      Object.assign(metrics, {
        reward: mean(studentTrajs.map((t) => t.reward)),
        // the students alone: the solving entropy loops are compared at
        'entropy/solve': meanEntropy(studentTrajs),
        // the solving groups with no signal (every answer agrees with the label, or none parses),
        // over every student group of the step, before the selection keeps one: GRPO's measure
        frac_reward_zero_std: filterZeroVariance(studentTrajs).fracZeroStd,
        'completions/mean_length': mean(solve.map((t) => t.responseTokens.length)),
        'teacher/sol': mean(legal.map((x) => x.sol)),
        'teacher/div': mean(legal.map((x) => x.div)),
        'teacher/len': mean(legal.map((x) => x.len)),
        'student/solve_rate': mean(legal.map((x) => x.s)),
        'student/solve_rate_var': variance(legal.map((x) => x.s)),
        'oracle/concepts_exact': rateOf(legal.map((x) => conceptsRight(x.diag.claimed, x.diag.actual, MAX_CONCEPT_TAGS))),
      });
      if (labelled.length) metrics['oracle/label_agreement'] = rateOf(labelled.map((x) => x.label === x.diag.value));
      for (const tag of CONCEPT_TAGS) metrics[`topic/${tag}`] = rateOf(legal.map((x) => x.diag.topic === tag));
    }
    return {
      metrics,
      samples: samplesOf([...teachTrajs.slice(0, 2), ...studentTrajs.slice(0, 2)], c.samplesPerStep),
      records: legal.map((x, j) => this.record(step, x, parents[x.group].problem, vectors[j], x.group === teacherGroup && !c.frozenTeacher, j === studentProblem)),
    };
  }

  private record(step: number, x: Candidate, parent: string, v: Float32Array, teacherTrained: boolean, studentTrained: boolean): CurriculumRecord {
    return {
      kind: 'opensir.pool', step, problem: x.diag.problem, parent, claimed: x.diag.claimed.join(' '), actual: x.diag.actual.join(' '),
      topic: x.diag.topic, solveRate: x.s, label: x.label, value: x.diag.value, agree: x.label !== null && x.label === x.diag.value,
      answers: x.answers.map((a) => (a === null ? '–' : String(a))).join(' '),
      sol: x.sol, div: x.div, len: x.len, reward: x.reward, teacherTrained, studentTrained,
      embedding: Array.from(v, round4),
    };
  }
}

interface OpensirState {
  draws: number;
  pool: PoolEntry[];
  /** the coverage probe's temperature: the run's first (absent before the first probe, and in runs saved before probes) */
  probeTemperature?: number;
}

export const opensirBody: LoopBody<OpensirConfig> = (engine, config, resume) => {
  const saved = resume?.state as Partial<OpensirState> | null | undefined;
  if (resume && (!saved || !Array.isArray(saved.pool) || typeof saved.draws !== 'number')) {
    throw new Error(`opensir: the checkpoint of step ${resume.step} holds no pool; the run cannot continue from it (start it again)`);
  }
  const pool = saved?.pool ? saved.pool.map((e) => ({ ...e })) : [seedEntry(config)];
  const rand = countedRng(config.seed ^ 0x1f83d9ab, saved?.draws ?? 0);
  const run = new OpensirRun(engine, pool, rand, typeof saved?.probeTemperature === 'number' ? saved.probeTemperature : null);
  return {
    step: (step, c, ctx) => run.step(step, c, ctx),
    state: (): OpensirState => ({ draws: rand.draws, pool: run.pool.map((e) => ({ ...e })), ...(run.probeTemperature !== null ? { probeTemperature: run.probeTemperature } : {}) }),
  };
};
