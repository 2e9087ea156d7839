// SvS's body (LOOPS.md §2; Algorithm 1 of the paper): one policy, three tasks a step, each in
// its own groups.
//   OQA  the policy solves problemsPerStep training problems G times; reward 𝟙[answer = a];
//        a group trains iff 0 < p < 1; a problem is challenging iff acc_l ≤ p ≤ acc_h.
//   VPS  from each correct solution of a challenging problem (at most maxSynthesisSources, a
//        seeded random subset), the vary role writes G_v variant problems from the solution (and
//        the problem before it under variantContext problem+solution); R_v from the variant's SPA pass rate p̂ (shaped
//        band or naive p̂ > 0); the group trains iff some R_v = 1.
//   SPA  the policy solves each extracted variant G times, graded against the ORIGINAL answer a;
//        a group trains iff 0 < p̂ < 1.
// Advantages are per (role, group), never pooled: OQA and SPA groups are solve groups with ids
// apart, VPS groups vary groups. The buffer is emptied every step. A step without a challenging
// problem trains on OQA only, or is skipped (the released code's choice, `noChallenging: skip`).
// Every variant is also judged by the interpreter (parses, true value, hands the answer over where
// the original did not, copies the problem): shown in the records and metrics, never a reward;
// the leak flag's base rate on gold variants of the same problems is shown beside it.
import { answerOf } from '../../eval/score';
import type { Rollout } from '../../rl/rollout';
import type { Trajectory } from '../../rl/trajectory';
import { countedRng, type CountedRng } from '../../util/rng';
import { EOS, loadSet, makeRng, promptFits, readProblem, responseText, solvePrompt, varyPromptFor, type Problem } from '../../world/index';
import type { LoopBody, StepResult } from '../body';
import type { CurriculumRecord } from '../events';
import type { LoopEngine, RewardFn } from '../engine';
import { samplesOf } from '../samples';
import { renameEntropy } from '../stats';
import { rateOf } from '../../metrics/mean';
import { meanEntropy } from '../../metrics/entropy';
import { filterZeroVariance } from '../../rl/filter';
import type { SvsConfig } from './config';
import { diagnoseVariant, isChallenging, keepSolveGroup, keepVariantGroup, leakBase, passRate, seededSubset, variantReward, type VariantDiagnostics } from './logic';

/** Group ids of SPA groups start here, so they never meet an OQA group's (both are solve groups). */
const SPA_GROUP_BASE = 1_000_000;

interface Source {
  /** index of the OQA problem */
  problem: number;
  solution: string;
}

interface Variant {
  source: number;
  text: string;
  diag: VariantDiagnostics;
  pHat: number | null;
  reward: number;
  /** the SPA group that answered it (null: not extracted, so not answered) */
  spaGroup: number | null;
}

/** The problem's canonical text (how the world prints it), or the text itself if it does not parse. */
function canonical(text: string): string {
  const r = readProblem(text);
  return r.ok ? r.value.text : text;
}

/** Reward of a solve response: 1 iff its answer is `gold` (the original problem's, for SPA too). */
const byAnswer: RewardFn<number> = (gold, response) => {
  const { answer, text } = answerOf(response);
  return { reward: answer === gold ? 1 : 0, text };
};

function rewardsOfGroups<T extends Pick<Trajectory, 'groupId' | 'reward'>>(trajs: readonly T[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const t of trajs) out.set(t.groupId, [...(out.get(t.groupId) ?? []), t.reward]);
  return out;
}



class SvsRun {
  constructor(private readonly engine: LoopEngine, private readonly train: readonly Problem[], private readonly rand: CountedRng) {}

  private sampling(c: SvsConfig, step: number, task: number, maxNew: number) {
    // one seed per (step, task): OQA 0, VPS 1, SPA 2
    return { seed: (c.seed * 7777 + step * 3 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew };
  }

  async step(step: number, c: SvsConfig): Promise<StepResult> {
    const problems = Array.from({ length: c.problemsPerStep }, () => this.train[Math.floor(this.rand() * this.train.length)]);
    // ---- OQA: solve the originals
    const oqa = await this.engine.rollout(problems.map((q) => ({ prompt: solvePrompt(q.text), payload: q.answer })), { groupSize: c.groupSize, role: 'solve', dataType: 'oqa', groupIdBase: 0, ...this.sampling(c, step, 0, c.maxNewTokens) }, byAnswer);
    const oqaRates = rewardsOfGroups(oqa);
    const p = problems.map((_, i) => passRate(oqaRates.get(i) ?? []));
    const challenging = problems.map((_, i) => isChallenging(p[i], c));
    // ---- sources: correct solutions of challenging problems, in problem then response order
    const candidates: Source[] = [];
    let tooLong = 0;
    for (const t of oqa) {
      if (!challenging[t.groupId] || t.reward !== 1) continue;
      if (!promptFits('vary', varyPromptFor(c.variantContext, problems[t.groupId].text, t.text))) tooLong++;
      else candidates.push({ problem: t.groupId, solution: t.text });
    }
    // the cost guard takes a seeded random subset (the first N would favour the step's first problems)
    const sources = c.maxSynthesisSources === null ? candidates : seededSubset(this.rand, candidates.length, c.maxSynthesisSources).map((i) => candidates[i]);
    // ---- VPS: variants from each source
    const vps = sources.length === 0 ? [] : await this.engine.rollout(
      sources.map((s) => ({ prompt: varyPromptFor(c.variantContext, problems[s.problem].text, s.solution), payload: 0 })),
      { groupSize: c.variantsPerSolution, role: 'vary', dataType: 'vps', groupIdBase: 0, ...this.sampling(c, step, 1, c.maxVariantTokens) },
      (_x, response) => ({ reward: 0, text: responseText(response).text }),
    );
    const originals = problems.map((q) => ({ text: canonical(q.text), expr: q.expr, answer: q.answer }));
    const variants: Variant[] = vps.map((t) => {
      const source = t.groupId;
      const ended = responseText(t.responseTokens).ended;
      return { source, text: t.text, diag: diagnoseVariant(t.text, ended, originals[sources[source].problem]), pHat: null, reward: 0, spaGroup: null };
    });
    // ---- SPA: solve each extracted variant, graded against the original answer
    const solvable = variants.map((v, k) => ({ v, k })).filter(({ v }) => v.diag.parsed);
    const spa = solvable.length === 0 ? [] : await this.engine.rollout(
      solvable.map(({ v }) => ({ prompt: solvePrompt(canonical(v.text)), payload: problems[sources[v.source].problem].answer })),
      { groupSize: c.groupSize, role: 'solve', dataType: 'spa', groupIdBase: SPA_GROUP_BASE, ...this.sampling(c, step, 2, c.maxNewTokens) },
      byAnswer,
    );
    const spaRates = rewardsOfGroups(spa);
    solvable.forEach(({ v }, j) => {
      v.spaGroup = SPA_GROUP_BASE + j;
      v.pHat = passRate(spaRates.get(v.spaGroup) ?? []);
    });
    for (const v of variants) v.reward = variantReward(v.pHat, c);
    // variant trajectories carry their R_v
    const vpsTrajs: Rollout<number>[] = vps.map((t, k) => ({ ...t, reward: variants[k].reward }));
    // ---- keep rules
    const keptOqa = oqa.filter((t) => keepSolveGroup(p[t.groupId]));
    const vpsRewards = rewardsOfGroups(vpsTrajs);
    const keptVpsGroups = new Set([...vpsRewards].filter(([, rs]) => keepVariantGroup(rs)).map(([g]) => g));
    const keptVps = vpsTrajs.filter((t) => keptVpsGroups.has(t.groupId));
    const keptSpa = spa.filter((t) => keepSolveGroup(solvable[t.groupId - SPA_GROUP_BASE].v.pHat ?? 0));
    const anyChallenging = challenging.some(Boolean);
    const skipped = !anyChallenging && c.noChallenging === 'skip';
    const batch = skipped ? [] : [...keptOqa, ...keptVps, ...keptSpa];
    const stats = batch.length ? await this.engine.train(batch) : null;
    // what the update really trained on: with filterZeroVariance the trainer also drops VPS groups
    // whose variants all earned R_v = 1 (OQA and SPA groups kept here always have signal)
    const trained = c.rl.filterZeroVariance ? filterZeroVariance(batch).kept : batch;
    const trainedGroups = (type: string) => new Set(trained.filter((t) => t.dataType === type).map((t) => t.groupId));
    const count = (type: string) => trained.filter((t) => t.dataType === type).length;
    // ---- what the step reports
    const all = [...oqa, ...vpsTrajs, ...spa];
    const parsed = variants.filter((v) => v.diag.parsed);
    // groups with no signal among the step's solving groups (OQA and SPA), before the keep rules
    // drop them: the measure GRPO reports, so loops compare; per task beside it (VPS included)
    const zeroStd = (trajs: readonly Rollout<number>[]) => filterZeroVariance(trajs).fracZeroStd;
    // a quantity with nothing to measure this step (no variants, say) is left out, not NaN: a
    // non-finite metric halts a run
    const metrics: Record<string, number> = {
      reward: passRate(oqa.map((t) => t.reward)),
      // the solve role alone (originals and variants): the entropy loops are compared at
      'entropy/solve': meanEntropy([...oqa, ...spa]),
      // every response token of the step, writing variants included (veRL's actor/entropy over the mixed batch)
      'entropy/all': meanEntropy(all),
      'entropy/oqa': meanEntropy(oqa),
      'completions/mean_length': oqa.reduce((a, t) => a + t.responseTokens.length, 0) / Math.max(1, oqa.length),
      // every response token sampled this step, all three tasks: the cost loops are compared at
      'tokens/generated': all.reduce((a, t) => a + t.responseTokens.length, 0),
      challenging: challenging.filter(Boolean).length,
      'synthesis/sources': sources.length,
      'synthesis/too_long': tooLong,
      'mix/oqa': count('oqa'),
      'mix/vps': count('vps'),
      'mix/spa': count('spa'),
      skipped: skipped ? 1 : 0,
      frac_reward_zero_std: zeroStd([...oqa, ...spa]),
      'frac_reward_zero_std/oqa': zeroStd(oqa),
      kept_groups: stats?.keptGroups ?? 0,
      optimiser_steps: stats?.optimiserSteps ?? 0,
      rejected_steps: stats?.rejectedSteps ?? 0,
      ...(stats ? renameEntropy(stats.metrics) : {}),
    };
    if (variants.length) {
      Object.assign(metrics, {
        'entropy/vps': meanEntropy(vpsTrajs),
        'vps/reward': passRate(variants.map((v) => v.reward)),
        'vps/extracted': rateOf(variants.map((v) => v.diag.parsed)),
        'frac_reward_zero_std/vps': zeroStd(vpsTrajs),
      });
    }
    const base = this.leakBase(c, step, problems, sources);
    if (base !== null) metrics['vps/leak_base'] = base;
    if (parsed.length) {
      Object.assign(metrics, {
        'vps/true_valid': rateOf(parsed.map((v) => v.diag.trueValid)),
        'vps/leak': rateOf(parsed.map((v) => v.diag.leak)),
        'vps/copy': rateOf(parsed.map((v) => v.diag.copy)),
      });
    }
    // the variants whose SPA group the update trained on: how many of them truly equal the
    // original's answer (their SPA answers were graded against it), the validity that matters
    const spaTrained = trainedGroups('spa');
    const trainedVariants = variants.filter((v) => v.spaGroup !== null && spaTrained.has(v.spaGroup));
    if (trainedVariants.length) metrics['spa/true_valid'] = rateOf(trainedVariants.map((v) => v.diag.trueValid));
    if (spa.length) Object.assign(metrics, { 'entropy/spa': meanEntropy(spa), 'spa/pass_rate': passRate(spa.map((t) => t.reward)), 'frac_reward_zero_std/spa': zeroStd(spa) });
    return { metrics, samples: samplesOf([...oqa.slice(0, 2), ...vpsTrajs.slice(0, 1), ...spa.slice(0, 1)], c.samplesPerStep), records: this.records(step, originals, p, sources, variants, trainedGroups('vps'), spaTrained) };
  }

  /**
   * The leak flag's base rate this step: G_v gold variants of each source's problem (as many as
   * the policy wrote, of the same problems), the share flagged; null with no source or no gold
   * variant. Drawn from an rng of its own (seed, step), so the loop's counted rng and a resume are
   * untouched.
   */
  private leakBase(c: SvsConfig, step: number, problems: readonly Problem[], sources: readonly Source[]): number | null {
    const rng = makeRng((c.seed * 7777 + step * 3 + 0x9e3779b9) >>> 0);
    let flagged = 0, drawn = 0;
    for (const s of sources) {
      const r = leakBase(rng, problems[s.problem], c.variantsPerSolution);
      (flagged += r.flagged), (drawn += r.drawn);
    }
    return drawn ? flagged / drawn : null;
  }

  /** One record per variant: its source problem and solution, its scores, whether its VPS and SPA groups trained, the oracle's flags. */
  private records(step: number, originals: readonly { text: string; answer: number }[], p: readonly number[], sources: readonly Source[], variants: readonly Variant[], keptVps: Set<number>, keptSpa: Set<number>): CurriculumRecord[] {
    return variants.map((v) => {
      const s = sources[v.source];
      return {
        kind: 'svs.variant', step, source: v.source, problem: originals[s.problem].text, answer: originals[s.problem].answer,
        problemPassRate: p[s.problem], solution: s.solution, variant: v.text, parsed: v.diag.parsed, value: v.diag.value,
        pHat: v.pHat, reward: v.reward, kept: keptVps.has(v.source), spaKept: v.spaGroup !== null && keptSpa.has(v.spaGroup),
        trueValid: v.diag.trueValid, leak: v.diag.leak, copy: v.diag.copy,
      };
    });
  }
}


interface SvsState {
  draws: number;
}

export const svsBody: LoopBody<SvsConfig> = (engine, config, resume) => {
  const train = loadSet(config.trainSet).slice(0, config.trainProblems);
  const saved = resume?.state as Partial<SvsState> | null | undefined;
  // a checkpoint without `draws` (saved before they were counted) assumes problemsPerStep draws a
  // step, exact unless the cost guard drew subsets too
  const rand = countedRng(config.seed ^ 0x5f3759df, typeof saved?.draws === 'number' ? saved.draws : (resume?.step ?? 0) * config.problemsPerStep);
  const run = new SvsRun(engine, train, rand);
  return {
    step: (step, c) => run.step(step, c),
    state: (): SvsState => ({ draws: rand.draws }),
  };
};

