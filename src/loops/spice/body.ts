// SPICE's body (LOOPS.md §3; Algorithm 1 of the paper): one policy in two roles a step.
//   challenge  for each of documentsPerStep corpus documents, the policy (seeing the document's
//              worked record, or nothing in the no-corpus ablation) writes N_C outputs
//              `QUESTION#GOLD`: one challenger group per document.
//   solve      the reasoner answers each valid question K times WITHOUT the document:
//              r_R = 𝟙[answer = gold]; one reasoner group per question. Its pass rate p gives the
//              question's challenger reward (gaussian, r-zero, absolute-zero or threshold);
//              an invalid output gets invalidReward.
// Advantages are per (role, group) with Dr. GRPO's mean-only baseline (the `spice` RL preset),
// the loss is constant_norm with L_max = maxNewTokens; with frozenChallenger only the reasoner's
// groups train. Every question is also judged by the interpreter (is the gold its true value,
// does it contain its answer, is it copied from the record): shown, never a reward.
import { answerOf } from '../../eval/score';
import { filterZeroVariance } from '../../rl/filter';
import type { Rollout } from '../../rl/rollout';
import { countedRng, type CountedRng } from '../../util/rng';
import { EOS, renderDocument, responseText, solvePrompt, type Document } from '../../world/index';
import type { LoopBody, StepResult } from '../body';
import type { CurriculumRecord } from '../events';
import type { LoopEngine, RewardFn } from '../engine';
import { samplesOf } from '../samples';
import { renameEntropy } from '../stats';
import { mean, rateOf } from '../../metrics/mean';
import { meanEntropy } from '../../metrics/entropy';
import type { SpiceConfig } from './config';
import { challengerPrompt, corpusDocuments, usableDocuments } from './corpus';
import { challengerReward, diagnoseQuestion, leakBaseRate, QUESTION_FORMATS, type QuestionDiagnostics } from './logic';

/** Reward of a reasoner answer: 1 iff it is the challenger's gold. */
const byGold: RewardFn<number> = (gold, response) => {
  const { answer, text } = answerOf(response);
  return { reward: answer === gold ? 1 : 0, text };
};

interface Question {
  /** index of the challenger output in this step's challenge rollouts */
  output: number;
  doc: number;
  diag: QuestionDiagnostics;
  /** the reasoner group that answered it (null: invalid, not answered) */
  group: number | null;
  p: number | null;
  answers: string;
  reward: number;
}




class SpiceRun {
  /** indices of the documents whose challenge prompt fits the policy's context (all of them on `small`) */
  private readonly usable: number[];

  constructor(private readonly engine: LoopEngine, private readonly corpus: readonly Document[], private readonly rand: CountedRng) {
    this.usable = usableDocuments(corpus, engine.cfg.nPositions, 'spice');
  }

  private sampling(c: SpiceConfig, step: number, task: number, maxNew: number) {
    // one seed per (step, task): challenge 0, solve 1
    return { seed: (c.seed * 7919 + step * 2 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew };
  }

  async step(step: number, c: SpiceConfig): Promise<StepResult> {
    // documents are drawn whether or not the challenger sees them, so the ablation draws alike
    const docs = Array.from({ length: c.documentsPerStep }, () => this.usable[Math.floor(this.rand() * this.usable.length)]);
    const shown = (d: number): Document | null => (c.useCorpus ? this.corpus[d] : null);
    // ---- challenge: N_C outputs per document
    const challenge = await this.engine.rollout(
      docs.map((d) => ({ prompt: challengerPrompt(shown(d)), payload: d })),
      { groupSize: c.questionsPerDocument, role: 'challenge', dataType: 'challenge', groupIdBase: 0, ...this.sampling(c, step, 0, c.maxQuestionTokens) },
      (_d, response) => ({ reward: 0, text: responseText(response).text }),
    );
    const questions: Question[] = challenge.map((t, k) => ({
      output: k, doc: docs[t.groupId],
      diag: diagnoseQuestion(t.text, responseText(t.responseTokens).ended, shown(docs[t.groupId])),
      group: null, p: null, answers: '', reward: c.invalidReward,
    }));
    // ---- solve: K answers per valid question, without the document
    const valid = questions.filter((q) => q.diag.format === 'valid');
    const solve = valid.length === 0 ? [] : await this.engine.rollout(
      valid.map((q) => ({ prompt: solvePrompt(q.diag.question as string), payload: q.diag.gold as number })),
      { groupSize: c.answersPerQuestion, role: 'solve', dataType: 'solve', groupIdBase: 0, ...this.sampling(c, step, 1, c.maxNewTokens) },
      byGold,
    );
    valid.forEach((q, j) => {
      const group = solve.filter((t) => t.groupId === j);
      q.group = j;
      q.p = mean(group.map((t) => t.reward));
      q.answers = group.map((t) => `${answerOf(t.responseTokens).answer ?? '–'}${t.reward === 1 ? '✓' : ''}`).join(' ');
      q.reward = challengerReward(q.p, c.challengerReward, c.tau);
    });
    const challengeTrajs: Rollout<number>[] = challenge.map((t, k) => ({ ...t, reward: questions[k].reward }));
    const batch = [...(c.frozenChallenger ? [] : challengeTrajs), ...solve];
    const stats = batch.length ? await this.engine.train(batch) : null;
    // ---- what the step reports (a quantity with nothing to measure is left out, not NaN)
    const all = [...challengeTrajs, ...solve];
    const metrics: Record<string, number> = {
      'challenger/reward': mean(questions.map((q) => q.reward)),
      'challenger/valid': rateOf(questions.map((q) => q.diag.format === 'valid')),
      // every token sampled this step, both roles; the reasoner's alone is entropy/solve
      'entropy/all': meanEntropy(all),
      'entropy/challenge': meanEntropy(challengeTrajs),
      // the challenger's groups (one a document) with equal rewards, before frozenChallenger drops them
      'frac_reward_zero_std/challenge': filterZeroVariance(challengeTrajs).fracZeroStd,
      'tokens/generated': all.reduce((a, t) => a + t.responseTokens.length, 0),
      questions: valid.length,
      kept_groups: stats?.keptGroups ?? 0,
      optimiser_steps: stats?.optimiserSteps ?? 0,
      rejected_steps: stats?.rejectedSteps ?? 0,
      ...(stats ? renameEntropy(stats.metrics) : {}),
    };
    for (const f of QUESTION_FORMATS) metrics[`format/${f}`] = rateOf(questions.map((q) => q.diag.format === f));
    if (valid.length) {
      const ps = valid.map((q) => q.p as number);
      Object.assign(metrics, {
        // the reasoner's reward on the challenger's questions: the RL signal of the solve role
        reward: mean(solve.map((t) => t.reward)),
        'entropy/solve': meanEntropy(solve),
        // the solving groups (one a question) whose answers all agree with the gold or all miss it,
        // counted before training, as GRPO counts its groups
        frac_reward_zero_std: filterZeroVariance(solve).fracZeroStd,
        'completions/mean_length': mean(solve.map((t) => t.responseTokens.length)),
        'question/ops': mean(valid.map((q) => q.diag.ops as number)),
        'question/frontier': rateOf(ps.map((p) => p > 0 && p < 1)),
        'question/pass_std': Math.sqrt(mean(ps.map((p) => (p - mean(ps)) ** 2))),
        'challenger/gold_acc': rateOf(valid.map((q) => q.diag.goldCorrect)),
        'challenger/leak': rateOf(valid.map((q) => q.diag.leak)),
      });
      const leakBase = leakBaseRate(docs.map((d) => this.corpus[d]), c.seed, step);
      if (Number.isFinite(leakBase)) metrics['challenger/leak_base'] = leakBase;
      if (c.useCorpus) Object.assign(metrics, { 'challenger/copy': rateOf(valid.map((q) => q.diag.copy)), 'challenger/grounded': rateOf(valid.map((q) => q.diag.grounded)) });
    }
    return {
      metrics,
      samples: samplesOf([...challengeTrajs.slice(0, 2), ...solve.slice(0, 2)], c.samplesPerStep),
      records: questions.map((q) => this.record(step, q, shown(q.doc), challenge[q.output].text)),
    };
  }

  private record(step: number, q: Question, doc: Document | null, output: string): CurriculumRecord {
    return {
      kind: 'spice.question', step, doc: q.doc, document: doc ? renderDocument(doc, true) : '(no document)', output,
      format: q.diag.format, question: q.diag.question, gold: q.diag.gold, value: q.diag.value, ops: q.diag.ops,
      answers: q.answers, p: q.p, reward: q.reward, valid: q.diag.format === 'valid',
      goldCorrect: q.diag.goldCorrect, leak: q.diag.leak, copy: q.diag.copy, grounded: q.diag.grounded,
    };
  }
}

interface SpiceState {
  draws: number;
}

export const spiceBody: LoopBody<SpiceConfig> = (engine, config, resume) => {
  const corpus = corpusDocuments(config);
  const saved = resume?.state as Partial<SpiceState> | null | undefined;
  const rand = countedRng(config.seed ^ 0x3c6ef372, typeof saved?.draws === 'number' ? saved.draws : (resume?.step ?? 0) * config.documentsPerStep);
  const run = new SpiceRun(engine, corpus, rand);
  return {
    step: (step, c) => run.step(step, c),
    state: (): SpiceState => ({ draws: rand.draws }),
  };
};
