// DATPO's body (LOOPS.md §5): difficulty-adaptive rollout trees.
//   roots     N rollouts per problem (per-token entropy recorded); v = their accuracy.
//   budget    K̂ = ⌈bp_max(1−v)⌉ forks per root, B̂ = ⌈bn_max(1−v)⌉ branches per fork; an
//             all-correct problem is not expanded.
//   forks     chosen on each root by the fork strategy (sentence entropy: the trace steps of highest
//             mean entropy; a fork keeps the step's first token); the forks of one root form a chain.
//   branches  B̂ continuations from each fork's prefix: the prefix is the prompt of one rollout group,
//             so the decoder prefills it once for all B̂ (its shared-prefix path).
//   blocks    each path cut at its forks; V(problem) = root accuracy v, V(fork) = mean reward of its
//             branches (the released code); A = V(c) − V(n) for an edge block, r − V(n) for a leaf
//             block; + α·(1 − mean cosine to the sibling blocks: the roots' first blocks, a fork's
//             branches) on blocks with A > 0 (or all), α annealed 0.2 → 0 over the run; the
//             blocks are embedded by the frozen policy or as bags of character n-grams.
//   update    every block a trajectory (its path before it as prompt), external advantages, μ = 2,
//             clip 0.2/0.2, token mean over block tokens (the `datpo` RL preset).
import { answerOf } from '../../eval/score';
import type { Rollout } from '../../rl/rollout';
import type { Trajectory } from '../../rl/trajectory';
import { countedRng, type CountedRng } from '../../util/rng';
import { BOS, decode, EOS, loadSet, makeRng, solvePrompt } from '../../world/index';
import { filterZeroVariance } from '../../rl/filter';
import { passAtK } from '../../metrics/passk';
import type { LoopBody, StepResult } from '../body';
import type { CurriculumRecord } from '../events';
import type { LoopEngine, RewardFn } from '../engine';
import { samplesOf } from '../samples';
import { renameEntropy } from '../stats';
import { mean } from '../../metrics/mean';
import { meanEntropy } from '../../metrics/entropy';
import { meanCosine, ngramEmbedding } from '../../metrics/diversity';
import type { DatpoConfig } from './config';
import { alphaAt, blockText, blockTrajectories, budget, choosePositions, localisation, siblingGroups, treeBlocks, type Block, type RootPath } from './tree';

interface Problem {
  text: string;
  answer: number;
}

const byAnswer: RewardFn<number> = (gold, response) => {
  const { answer, text } = answerOf(response);
  return { reward: answer === gold ? 1 : 0, text };
};



/** A sampled path's tokens and per-token log π and entropy (root responses and branch continuations). */
interface Sampled {
  tokens: number[];
  oldLogp: number[];
  entropy: number[];
  reward: number;
  truncated: boolean;
}

/** A sampled continuation of `prefix` (a root's: none), cut at `cap` tokens; its reward is its whole path's. */
function sampled(t: Rollout<number>, cap: number, gold: number, prefix: readonly number[] = []): Sampled {
  const n = Math.min(t.responseTokens.length, cap);
  const tokens = Array.from(t.responseTokens).slice(0, n);
  const cut = n < t.responseTokens.length;
  // the answer is read off the whole path (the '#' may sit in the prefix); a path cut at the
  // budget has none: its last digits may be missing
  const reward = cut ? 0 : byAnswer(gold, [...prefix, ...tokens]).reward;
  return { tokens, oldLogp: Array.from(t.oldLogp).slice(0, n), entropy: Array.from(t.entropy).slice(0, n), reward, truncated: t.truncated || cut };
}

/** Difficulty buckets of "leaves per difficulty level": unsolved, low, high, all solved. */
function bucketOf(v: number): string {
  if (v <= 0) return 'v0';
  if (v >= 1) return 'v1';
  return v <= 0.5 ? 'low' : 'high';
}

class DatpoRun {
  constructor(private readonly engine: LoopEngine, private readonly train: readonly Problem[], private readonly rand: CountedRng) {}

  private sampling(c: DatpoConfig, step: number, task: number) {
    return { seed: (c.seed * 5003 + step * 7 + task) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew: c.maxNewTokens };
  }

  async step(step: number, c: DatpoConfig): Promise<StepResult> {
    const problems = Array.from({ length: c.problemsPerStep }, () => this.train[Math.floor(this.rand() * this.train.length)]);
    const prompts = problems.map((q) => solvePrompt(q.text));
    // ---- roots: N per problem
    const rootOut = await this.engine.rollout(problems.map((q, i) => ({ prompt: prompts[i], payload: q.answer })), { groupSize: c.rootRollouts, role: 'solve', dataType: 'root', groupIdBase: 0, ...this.sampling(c, step, 0) }, byAnswer);
    const roots: Sampled[][] = problems.map((q, i) => rootOut.filter((t) => t.groupId === i).map((t) => sampled(t, c.maxNewTokens, q.answer)));
    const v = roots.map((rs) => mean(rs.map((r) => r.reward)));
    const budgets = v.map((x) => budget(x, c.bpMax, c.bnMax));
    // ---- forks on every root of an expanded problem
    const forkRng = makeRng((c.seed * 31 + step) >>> 0);
    const forks = roots.map((rs, i) => rs.map((r) => choosePositions(r.entropy, r.tokens, budgets[i].forks, c.forkStrategy, forkRng)));
    // ---- branches: one rollout call per branch count B̂ (the group size), each fork's prefix a prompt
    const jobs: { i: number; r: number; k: number }[] = [];
    forks.forEach((fr, i) => fr.forEach((fs, r) => fs.forEach((_, k) => jobs.push({ i, r, k }))));
    const branches = new Map<string, Sampled[]>();
    const sizes = [...new Set(jobs.map((j) => budgets[j.i].branches))].filter((b) => b > 0).sort((a, b) => a - b);
    for (const [n, B] of sizes.entries()) {
      const mine = jobs.filter((j) => budgets[j.i].branches === B);
      const out = await this.engine.rollout(
        mine.map((j) => ({ prompt: [...prompts[j.i], ...roots[j.i][j.r].tokens.slice(0, forks[j.i][j.r][j.k].pos)], payload: problems[j.i].answer })),
        { groupSize: B, role: 'solve', dataType: 'branch', groupIdBase: 0, ...this.sampling(c, step, 1 + n) }, byAnswer,
      );
      mine.forEach((j, m) => {
        const cap = c.maxNewTokens - forks[j.i][j.r][j.k].pos;
        const prefix = roots[j.i][j.r].tokens.slice(0, forks[j.i][j.r][j.k].pos);
        branches.set(`${j.i}/${j.r}/${j.k}`, out.filter((t) => t.groupId === m).map((t) => sampled(t, cap, problems[j.i].answer, prefix)));
      });
    }
    // ---- trees, blocks, advantages
    const alpha = alphaAt(step, c.steps, c.alphaStart, c.alphaEnd, c.alphaSchedule);
    const trajs: Trajectory[] = [];
    const records: CurriculumRecord[] = [];
    const leafCounts = new Map<string, number[]>();
    const sibDivs: number[] = [];
    const rel: number[] = [];
    const loc: { nnd: number; mpd: number; wcr5: number; wcr10: number }[] = [];
    let generated = 0;
    let leavesTotal = 0;
    let flat = 0;
    let solved = 0;
    const leafRewards: number[] = [];
    const trees = problems.map((_, i) => {
      const paths: RootPath[] = roots[i].map((r, ri) => ({
        tokens: r.tokens, reward: r.reward,
        forks: forks[i][ri].map((f, k) => ({ pos: f.pos, branches: (branches.get(`${i}/${ri}/${k}`) ?? []).map((b) => ({ tokens: b.tokens, reward: b.reward })) })),
      }));
      return { paths, ...treeBlocks(paths) };
    });
    // where each block's tokens were sampled: its root's response, or its branch's continuation
    const branchOf = (i: number) => (b: Block): Sampled => (branches.get(`${i}/${b.root}/${b.parentFork}`) as Sampled[])[b.branch];
    const src = (i: number, b: Block): Sampled => (b.branch < 0 ? roots[i][b.root] : branchOf(i)(b));
    // the sibling groups of every tree, embedded in one call
    const groups = trees.map((t) => siblingGroups(t.blocks).filter((g) => g.length > 1));
    const members = groups.flatMap((gs, i) => gs.flat().map((bi) => ({ i, bi })));
    const blockTokens = ({ i, bi }: { i: number; bi: number }) => { const b = trees[i].blocks[bi]; return src(i, b).tokens.slice(b.start, b.end); };
    const vecs: Float32Array[] = members.length === 0 ? [] : c.embedder === 'ngram'
      ? members.map((m) => ngramEmbedding(blockText(blockTokens(m))))
      : await this.engine.embed(members.map((m) => [BOS, ...blockTokens(m)]));
    const vecOf = new Map(members.map((m, k) => [`${m.i}/${m.bi}`, vecs[k]]));
    // the blocks of a root path train as one trajectory where that leaves the update unchanged: a
    // token mean, a ratio per token, and one mini-batch (more split the rows by count)
    const merge = c.rl.aggregation === 'token_mean' && c.rl.ratioLevel === 'token' && c.rl.miniBatches === 1;
    let blockCount = 0;
    // |bonus| and |A| summed over the trained blocks: how much of the update the bonus is
    let bonusAbs = 0, advAbs = 0;
    const rootPass: number[] = [];
    for (let i = 0; i < problems.length; i++) {
      const { paths, blocks, leaves } = trees[i];
      leavesTotal += leaves.length;
      leafRewards.push(...leaves);
      if (leaves.every((r) => r === leaves[0])) flat++;
      if (leaves.some((r) => r > 0)) solved++;
      // pass@N of the N roots alone (any root right): the tree pass rate's like-for-like baseline
      rootPass.push(passAtK(roots[i].length, roots[i].filter((r) => r.reward > 0).length, roots[i].length));
      leafCounts.set(bucketOf(v[i]), [...(leafCounts.get(bucketOf(v[i])) ?? []), leaves.length]);
      generated += roots[i].reduce((a, r) => a + r.tokens.length, 0) + [...branches.entries()].filter(([key]) => key.startsWith(`${i}/`)).reduce((a, [, bs]) => a + bs.reduce((x, b) => x + b.tokens.length, 0), 0);
      for (const [ri, fs] of forks[i].entries()) {
        const R = roots[i][ri].tokens.length;
        rel.push(...fs.map((f) => f.pos / R));
        const l5 = localisation(fs.map((f) => f.pos / R), 0.05);
        const l10 = localisation(fs.map((f) => f.pos / R), 0.1);
        if (l5 && l10) loc.push({ nnd: l5.nnd, mpd: l5.mpd, wcr5: l5.wcr, wcr10: l10.wcr });
      }
      const bonus = new Array<number>(blocks.length).fill(0);
      for (const g of groups[i]) for (const bi of g) {
        const vec = (bj: number) => vecOf.get(`${i}/${bj}`) as Float32Array;
        const d = 1 - meanCosine(vec(bi), g.filter((bj) => bj !== bi).map(vec));
        sibDivs.push(d);
        if (c.diversityOn === 'all' || blocks[bi].base > 0) bonus[bi] = alpha * d;
      }
      blocks.forEach((b, bi) => {
        if (b.end <= b.start) return;
        blockCount++;
        bonusAbs += Math.abs(bonus[bi]);
        advAbs += Math.abs(b.base + bonus[bi]);
      });
      trajs.push(...blockTrajectories(prompts[i], blocks, blocks.map((b, bi) => b.base + bonus[bi]), roots[i], branchOf(i), { merge, maskTruncated: c.rl.maskTruncated, groupIdBase: trajs.length }));
      records.push(...this.records(step, problems[i], v[i], budgets[i], paths, blocks, bonus, forks[i].map((fs) => fs.map((f) => f.score))));
    }
    const stats = trajs.length ? await this.engine.train(trajs) : null;
    const rootPaths = roots.flat();
    const branchPaths = [...branches.values()].flat();
    const sampledAll = [...rootPaths, ...branchPaths];
    const metrics: Record<string, number> = {
      reward: mean(v),
      // the paper's PassRate: a tree passes when any of its leaves is right
      'tree/pass_rate': solved / problems.length,
      // its like-for-like baseline: pass@N of the roots (the tree holds ~21 leaves, the roots N)
      'tree/root_pass_rate': mean(rootPass),
      'tree/leaf_accuracy': mean(leafRewards),
      'tree/leaves': leavesTotal,
      'tree/blocks': blockCount,
      // rows of the update: a root path's blocks are one when the aggregation allows it
      'tree/trajectories': trajs.length,
      alpha,
      // every sampled token, roots and branches: all of DATPO's tokens solve, so the two are one
      'entropy/solve': meanEntropy(sampledAll),
      'entropy/all': meanEntropy(sampledAll),
      'entropy/root': meanEntropy(rootPaths),
      // the roots' responses (comparable with GRPO's)
      'completions/mean_length': mean(rootOut.map((t) => t.responseTokens.length)),
      'tokens/generated': generated,
      'tokens/per_problem': generated / problems.length,
      // the solving groups before any tree grows: problems whose N roots all agree, as GRPO's
      // groups of G (an unsolved problem's tree may still find signal in its branches)
      frac_reward_zero_std: filterZeroVariance(rootOut).fracZeroStd,
      // trees whose leaves all agree (all right or all wrong): every block's base advantage is 0
      'tree/frac_reward_zero_std': flat / problems.length,
      optimiser_steps: stats?.optimiserSteps ?? 0,
      rejected_steps: stats?.rejectedSteps ?? 0,
      ...(stats ? renameEntropy(stats.metrics) : {}),
    };
    for (const [k, ns] of leafCounts) metrics[`leaves/${k}`] = mean(ns);
    if (sibDivs.length) metrics['tree/sibling_div'] = mean(sibDivs);
    if (branchPaths.length) metrics['entropy/branch'] = meanEntropy(branchPaths);
    // 0 when α is 0 or no block with a bonus has siblings; left out when every trained advantage is 0
    if (advAbs > 0) metrics['tree/bonus_share'] = bonusAbs / advAbs;
    if (rel.length) metrics['fork/position'] = mean(rel);
    if (loc.length) Object.assign(metrics, { 'fork/nnd': mean(loc.map((l) => l.nnd)), 'fork/mpd': mean(loc.map((l) => l.mpd)), 'fork/wcr5': mean(loc.map((l) => l.wcr5)), 'fork/wcr10': mean(loc.map((l) => l.wcr10)) });
    return { metrics, samples: samplesOf(rootOut.slice(0, c.samplesPerStep), c.samplesPerStep), records };
  }

  /** One record per leaf path: its root, where it forked, its text around the fork, its reward and its last block's advantage. */
  private records(step: number, q: Problem, v: number, b: { forks: number; branches: number }, paths: readonly RootPath[], blocks: readonly Block[], bonus: readonly number[], scores: readonly number[][]): CurriculumRecord[] {
    const out: CurriculumRecord[] = [];
    const adv = (root: number, fork: number, branch: number) => {
      const i = blocks.findIndex((x) => x.root === root && x.leaf && (branch < 0 ? x.branch < 0 : x.parentFork === fork && x.branch === branch));
      return i < 0 ? null : blocks[i].base + bonus[i];
    };
    paths.forEach((p, ri) => {
      out.push({
        kind: 'datpo.leaf', step, problem: q.text, answer: q.answer, v, forks: b.forks, branches: b.branches, root: ri + 1, fork: null,
        forkAt: p.forks.map((f) => f.pos).join(' '), forkScores: scores[ri], length: p.tokens.length, path: decode(p.tokens), reward: p.reward, advantage: adv(ri, -1, -1),
      });
      p.forks.forEach((f, k) => f.branches.forEach((br, bi) => {
        out.push({
          kind: 'datpo.leaf', step, problem: q.text, answer: q.answer, v, forks: b.forks, branches: b.branches, root: ri + 1, fork: f.pos,
          forkAt: '', length: br.tokens.length, path: `${decode(p.tokens.slice(0, f.pos))} ⟨fork⟩ ${decode(br.tokens)}`, reward: br.reward, advantage: adv(ri, k, bi),
        });
      }));
    });
    return out;
  }
}

interface DatpoState {
  draws: number;
}

export const datpoBody: LoopBody<DatpoConfig> = (engine, config, resume) => {
  const train = loadSet(config.trainSet).slice(0, config.trainProblems);
  const saved = resume?.state as Partial<DatpoState> | null | undefined;
  const rand = countedRng(config.seed ^ 0x9b05688c, typeof saved?.draws === 'number' ? saved.draws : (resume?.step ?? 0) * config.problemsPerStep);
  const run = new DatpoRun(engine, train, rand);
  return {
    step: (step, c) => run.step(step, c),
    state: (): DatpoState => ({ draws: rand.draws }),
  };
};

