// DATPO (LOOPS.md §5) by hand: the budget table (leaves 52, 40, 20, 8, 4 for v = 0 … 1 with N = 4,
// bp 3, bn 4), sentences and the fork choice on hand-set entropies, the blocks of a hand-made
// tree with their node values and advantages, α's schedule, fork localisation; then the loop on a
// scripted policy: branches grow from the forks' prefixes, every block trains with its advantage,
// the diversity bonus goes where the knob says.
import { describe, expect, it } from 'vitest';
import { alphaAt, blockText, blockTrajectories, budget, choosePositions, leavesOf, localisation, sentences, siblingGroups, treeBlocks, type RootPath } from '../../src/loops/datpo/tree';
import { packBatch } from '../../src/rl/trajectory';
import { validateDatpoConfig, type DatpoConfig } from '../../src/loops/datpo/config';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { LoopEvent } from '../../src/loops/events';
import { decode, encode, EOS, evaluate, parseExpr } from '../../src/world/index';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { collect, runOnCpu } from '../helpers/loops';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { Trajectory } from '../../src/rl/trajectory';
import { cosine, ngramEmbedding } from '../../src/metrics/diversity';

describe('DATPO budget and forks by hand', () => {
  it('the budget table: leaves 52, 40, 20, 8, 4 for v = 0, ¼, ½, ¾, 1 (N = 4, bp_max 3, bn_max 4)', () => {
    expect([0, 0.25, 0.5, 0.75, 1].map((v) => leavesOf(4, budget(v, 3, 4)))).toEqual([52, 40, 20, 8, 4]);
    expect(budget(0.25, 3, 4)).toEqual({ forks: 3, branches: 3 });
    expect(budget(1, 3, 4)).toEqual({ forks: 0, branches: 0 });
  });

  it('sentences are trace steps; sentence entropy forks at the first token + 1 of the most uncertain steps', () => {
    const r = [...encode('7+5=12;12*3=36;#36'), EOS];
    expect(sentences(r)).toEqual([[0, 7], [7, 15], [15, 19]]);
    // step 2 uncertain (mean 2), the answer a little (mean 0.5), step 1 sure
    const h = r.map((_, i) => (i >= 7 && i < 15 ? 2 : i >= 15 ? 0.5 : 0.1));
    expect(choosePositions(h, r, 1, 'sentence-entropy', Math.random)).toEqual([{ pos: 8, score: 1 }]);
    expect(choosePositions(h, r, 2, 'sentence-entropy', Math.random).map((f) => f.pos)).toEqual([8, 16]);
    // normalised by max(max entropy, 1): below 1 the raw mean
    expect(choosePositions(h.map((x) => x / 4), r, 1, 'sentence-entropy', Math.random)[0].score).toBeCloseTo(0.5, 12);
    // token entropy: after the highest-entropy tokens (the released code's idx + 1)
    const spike = r.map((_, i) => (i === 3 ? 5 : i === 4 ? 4 : 0));
    expect(choosePositions(spike, r, 2, 'token-entropy', Math.random).map((f) => f.pos)).toEqual([4, 5]);
    // evenly spaced: round(i · 19 / 4)
    expect(choosePositions(h, r, 3, 'fixed-segment', Math.random).map((f) => f.pos)).toEqual([5, 10, 14]);
    let s = 0.3;
    const rand = () => (s = (s * 7.3) % 1);
    const random = choosePositions(h, r, 3, 'random', rand).map((f) => f.pos);
    expect(new Set(random).size).toBe(3);
    for (const p of random) expect(p >= 1 && p <= r.length - 1).toBe(true);
    expect(choosePositions(h, [EOS], 2, 'sentence-entropy', Math.random)).toEqual([]);
  });

  it('blocks of a hand-made tree: V(problem) = root accuracy, V(fork) = its branches\' mean (the released code); edge A = V(c) − V(n), leaf A = r − V(n)', () => {
    const t = (n: number) => Array.from({ length: n }, (_, i) => i);
    const roots: RootPath[] = [
      { tokens: t(9), reward: 0, forks: [{ pos: 3, branches: [{ tokens: t(4), reward: 1 }, { tokens: t(5), reward: 0 }] }, { pos: 6, branches: [{ tokens: t(2), reward: 1 }, { tokens: t(3), reward: 1 }] }] },
      { tokens: t(7), reward: 1, forks: [] },
    ];
    const { blocks, rootValue, leaves } = treeBlocks(roots);
    expect(leaves).toEqual([0, 1, 0, 1, 1, 1]);
    // v = ½; V(fork at 3) = ½, V(fork at 6) = 1
    expect(rootValue).toBe(0.5);
    expect(blocks.map((b) => [b.root, b.parentFork, b.branch, b.start, b.end, b.prefix, b.base])).toEqual([
      [0, -1, -1, 0, 3, 0, 0],
      [0, 0, -1, 3, 6, 3, 0.5],
      [0, 1, -1, 6, 9, 6, -1],
      [0, 0, 0, 0, 4, 3, 0.5],
      [0, 0, 1, 0, 5, 3, -0.5],
      [0, 1, 0, 0, 2, 6, 0],
      [0, 1, 1, 0, 3, 6, 0],
      [1, -1, -1, 0, 7, 0, 0.5],
    ]);
    // siblings: the roots' first blocks; at each fork its branches (the root's own continuation has none)
    expect(siblingGroups(blocks)).toEqual([[0, 7], [3, 4], [5, 6]]);
  });

  it('blockTrajectories: a root path as one row packs every token with the context, advantage and loss weight it has as separate blocks (truncated leaf masked or not)', () => {
    const t = (n: number, o: number) => Array.from({ length: n }, (_, i) => 3 + ((i * 7 + o) % 50));
    const src = (n: number, o: number, truncated = false) => ({ tokens: t(n, o), oldLogp: t(n, o).map((x) => -x / 100), entropy: t(n, o).map(() => 1), truncated });
    const roots = [src(9, 1, true), src(7, 2)];
    const br = [[src(4, 3), src(5, 4)], [src(2, 5, true), src(3, 6)]];
    const paths: RootPath[] = [
      { tokens: roots[0].tokens, reward: 0, forks: [{ pos: 3, branches: br[0].map((b, i) => ({ tokens: b.tokens, reward: i })) }, { pos: 6, branches: br[1].map((b) => ({ tokens: b.tokens, reward: 1 })) }] },
      { tokens: roots[1].tokens, reward: 1, forks: [] },
    ];
    const { blocks } = treeBlocks(paths);
    const adv = blocks.map((b, i) => b.base + i / 100);
    const branchOf = (b: { parentFork: number; branch: number }) => br[b.parentFork][b.branch];
    // (context, token) → (advantage, loss weight) of every trained token, after packing
    const tokens = (merge: boolean, maskTruncated: boolean) => {
      const trajs = blockTrajectories([1, 2], blocks, adv, roots, branchOf, { merge, maskTruncated, groupIdBase: 0 });
      const p = packBatch(trajs, { T: 16, aggregation: 'token_mean', maskTruncated });
      const out: string[] = [];
      for (let b = 0; b < p.B; b++) for (let k = 0; k < p.T; k++) {
        const r = k - p.responseStart[b];
        if (r < 0 || r >= p.responseLength[b]) continue;
        out.push(`${Array.from(p.tokens.slice(b * p.T, b * p.T + k + 1)).join(' ')}>${p.targets[b * p.T + k]} A ${p.adv[b * p.T + k].toFixed(6)} w ${p.coef[b * p.T + k].toFixed(6)} old ${p.oldLogp[b * p.T + k]}`);
      }
      return { n: trajs.length, out: out.sort() };
    };
    for (const maskTruncated of [false, true]) {
      const one = tokens(true, maskTruncated);
      const each = tokens(false, maskTruncated);
      // root 0: 3 blocks, root 1: 1; 4 branches
      expect([one.n, each.n]).toEqual([2 + 4, 4 + 4]);
      expect(one.out).toEqual(each.out);
      // the truncated root's leaf block (3 tokens) and the truncated branch (2) weigh 0 when masked
      const zero = one.out.filter((x) => x.includes(' w 0.000000 ')).length;
      expect(zero).toBe(maskTruncated ? 3 + 2 : 0);
    }
  });

  it('α anneals linearly in the run\'s progress step/steps, reaching α₁ at the last step (the released code); constant stays at α₀', () => {
    expect([1, 2, 3, 4, 5].map((s) => Math.round(alphaAt(s, 5, 0.2, 0, 'anneal') * 1e9) / 1e9)).toEqual([0.16, 0.12, 0.08, 0.04, 0]);
    expect(alphaAt(4, 5, 0.2, 0, 'constant')).toBe(0.2);
  });

  it('fork localisation: NND, MPD and WCR@w on relative positions; none for fewer than two forks', () => {
    const l = localisation([0.1, 0.12, 0.5], 0.05)!;
    expect(l.nnd).toBeCloseTo((0.02 + 0.02 + 0.38) / 3, 12);
    expect(l.mpd).toBeCloseTo((0.02 + 0.4 + 0.38) / 3, 12);
    expect(l.wcr).toBeCloseTo(2 / 3, 12);
    expect(localisation([0.1, 0.3], 0.1)!.wcr).toBe(0);
    expect(localisation([0.4], 0.1)).toBeNull();
  });

  it('config: the paper\'s values by default; a non-external advantage is refused', () => {
    expect(validateDatpoConfig({})).toMatchObject({ rootRollouts: 4, bpMax: 3, bnMax: 4, forkStrategy: 'sentence-entropy', alphaStart: 0.2, alphaEnd: 0, alphaSchedule: 'anneal', diversityOn: 'positive' });
    expect(validateDatpoConfig({}).rl).toMatchObject({ advantage: 'external', epochs: 2, clipLow: 0.2, clipHigh: 0.2, aggregation: 'token_mean', beta: 0 });
    expect(() => validateDatpoConfig({ rl: { advantage: 'group_std' } })).toThrow(/datpo\.rl\.advantage = group_std: DATPO supplies its own block advantages/);
    expect(() => validateDatpoConfig({ forkStrategy: 'attention' })).toThrow(/datpo\.forkStrategy = "attention": must be one of/);
  });
});

// ---- the scripted policy: of 4 roots `#a` is right once (g = 0) and `#(a+9)` wrong thrice:
// v = ¼, so K̂ = 3 and B̂ = 3; a root is one sentence, so it forks once, after its '#'; of the 3
// branches from `…#` the first continues with the answer, the other two with a+9
const valueOf = (text: string) => {
  const p = parseExpr(text);
  const v = p.ok ? evaluate(p.expr) : null;
  return v?.ok ? v.value : NaN;
};
const prompts: string[] = [];
const script: Script = (prompt, _role, g) => {
  prompts.push(prompt);
  const m = /^<bos><solve>(.+)=(#?)$/.exec(prompt) as RegExpExecArray;
  const a = valueOf(m[1]);
  if (m[2] === '#') return g === 0 ? `${a}` : `${a + 9}`;
  return g === 0 ? `#${a}` : `#${a + 9}`;
};

async function runScripted(config: Partial<DatpoConfig> & Record<string, unknown>, policy: Script = script) {
  const def = loopNamed('datpo');
  const cfg = def.spec.validate({ steps: 1, problemsPerStep: 1, trainProblems: 64, evalProblems: 1, evalN: 1, samplesPerStep: 1, ...config });
  const engine = scriptedEngine(policy);
  prompts.length = 0;
  const events = await collect(driveLoop(def, engine, cfg));
  const step = events.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>;
  const records = events.flatMap((e) => (e.type === 'records' ? e.records : []));
  return { engine, step, records };
}

/** A trajectory's advantage of each response token (one number for the row, or one per token). */
function tokenAdvantages(t: Trajectory): number[] {
  return typeof t.advantage === 'number' ? Array.from(t.responseTokens, () => t.advantage as number) : Array.from(t.advantage as ArrayLike<number>);
}

describe('DATPO on a scripted policy', () => {
  it('grows 3 branches from each root\'s fork prefix, trains every block with its tree advantage', async () => {
    const { engine, step, records } = await runScripted({ alphaStart: 0 });
    // 4 roots + 4 forks × 3 branches; 20 blocks in 16 rows (a root path's two blocks are one row)
    expect(step.metrics).toMatchObject({ reward: 0.25, 'tree/leaves': 16, 'tree/blocks': 20, 'tree/trajectories': 16, 'leaves/low': 16, 'tree/pass_rate': 1 });
    expect(step.metrics['tree/leaf_accuracy']).toBeCloseTo(5 / 16, 12);
    // branch prompts are the problem's prompt and the fork's prefix
    expect(prompts.filter((p) => p.endsWith('=#'))).toHaveLength(4 * 3);
    const batch = engine.updates[0];
    expect(batch).toHaveLength(16);
    const r9 = (x: number) => Math.round(x * 1e9) / 1e9;
    const advs = (t: Trajectory) => tokenAdvantages(t).map(r9);
    // V(problem) = v = ¼; every fork's branches are 1 of 3 right: V(fork) = ⅓. A root path: its
    // first block ('#', up to the fork) then the rest
    const rootRows = batch.filter((t) => t.dataType === 'root');
    expect(rootRows).toHaveLength(4);
    for (const t of rootRows) {
      const a = advs(t);
      expect(a[0]).toBe(r9(1 / 3 - 1 / 4));
      expect(new Set(a.slice(1)).size).toBe(1);
    }
    expect(rootRows.map((t) => advs(t)[1]).sort()).toEqual([...Array<number>(3).fill(r9(-1 / 3)), r9(2 / 3)].sort());
    expect(batch.filter((t) => t.dataType === 'branch').map((t) => advs(t)[0]).sort()).toEqual([...Array<number>(8).fill(r9(-1 / 3)), ...Array<number>(4).fill(r9(2 / 3))].sort());
    // the tree browser: every leaf, branches shown as prefix ⟨fork⟩ continuation
    expect(records).toHaveLength(16);
    expect(records.filter((r) => r.fork === 1)).toHaveLength(12);
    expect(records.find((r) => r.fork === 1)?.path).toMatch(/^# ⟨fork⟩ \d+<eos>$/);
  });

  it('one row per root path trains every token with the advantage it has as a block of its own: same (context, token, advantage, log π) multiset; a sequence-level aggregation keeps one row per block', async () => {
    const perToken = (batch: readonly Trajectory[]) => batch.flatMap((t) => {
      const a = tokenAdvantages(t);
      return Array.from(t.responseTokens, (tok, j) => `${decode([...Array.from(t.promptTokens), ...Array.from(t.responseTokens).slice(0, j)])}|${tok}|${a[j].toFixed(9)}|${t.oldLogp[j]}|${t.lossMask[j]}`);
    }).sort();
    const merged = (await runScripted({ alphaSchedule: 'constant' })).engine.updates[0];
    const perBlock = await runScripted({ alphaSchedule: 'constant', rl: { aggregation: 'seq_mean_token_mean' } } as Record<string, unknown>);
    expect(merged).toHaveLength(16);
    expect(perBlock.engine.updates[0]).toHaveLength(20);
    expect(perBlock.step.metrics['tree/trajectories']).toBe(20);
    expect(perBlock.engine.updates[0].every((t) => typeof t.advantage === 'number')).toBe(true);
    expect(perToken(merged)).toEqual(perToken(perBlock.engine.updates[0]));
    // a sequence-level ratio, or more than one mini-batch (rows split by count), keep a row per block too
    for (const rl of [{ ratioLevel: 'sequence', clipLow: 3e-4, clipHigh: 4e-4 }, { miniBatches: 2 }]) {
      const r = await runScripted({ alphaSchedule: 'constant', rl } as Record<string, unknown>);
      expect(r.engine.updates[0], JSON.stringify(rl)).toHaveLength(20);
    }
  });

  it('the diversity bonus goes to blocks with a positive base advantage, or to all of them (the ablation)', async () => {
    const flat = (batch: readonly Trajectory[]) => batch.flatMap(tokenAdvantages);
    const base = flat((await runScripted({ alphaStart: 0 })).engine.updates[0]);
    // one step: annealed, α would already be 0 there; constant keeps 0.2
    const pos = flat((await runScripted({ alphaSchedule: 'constant' })).engine.updates[0]);
    const all = flat((await runScripted({ alphaSchedule: 'constant', diversityOn: 'all' })).engine.updates[0]);
    // (1 − mean cosine) ≥ 0: a bonus never lowers an advantage; siblings that read alike get none
    base.forEach((b, i) => {
      if (b > 0) expect(pos[i]).toBeGreaterThanOrEqual(b);
      else expect(pos[i]).toBe(b);
      expect(all[i]).toBeGreaterThanOrEqual(b - 1e-12);
    });
    expect(pos.some((a, i) => base[i] > 0 && a > base[i])).toBe(true);
    expect(all.some((a, i) => base[i] < 0 && a > base[i])).toBe(true);
  });

  it('tree/bonus_share is the mean |bonus| over the mean |A| of the trained blocks: 0 at α = 0, what the update shows at α = 0.2', async () => {
    // one row per block (a sequence-level aggregation), so a row's advantage is its block's
    const rl = { aggregation: 'seq_mean_token_mean' };
    const off = await runScripted({ alphaStart: 0, rl } as Record<string, unknown>);
    const on = await runScripted({ alphaSchedule: 'constant', rl } as Record<string, unknown>);
    expect(off.step.metrics['tree/bonus_share']).toBe(0);
    const a0 = off.engine.updates[0].map((t) => t.advantage as number);
    const a1 = on.engine.updates[0].map((t) => t.advantage as number);
    expect(a1).toHaveLength(20);
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    const share = sum(a1.map((a, i) => Math.abs(a - a0[i]))) / sum(a1.map(Math.abs));
    expect(share).toBeGreaterThan(0);
    expect(on.step.metrics['tree/bonus_share']).toBeCloseTo(share, 9);
  });

  it('embedder ngram: sibling divergence on bags of character n-grams of the blocks\' text (OpenSIR\'s embedder), no policy call', async () => {
    expect(validateDatpoConfig({}).embedder).toBe('policy');
    expect(() => validateDatpoConfig({ embedder: 'bert' })).toThrow(/datpo\.embedder = "bert": must be one of/);
    const rl = { aggregation: 'seq_mean_token_mean' };
    let calls = 0;
    const counted = async (config: Record<string, unknown>) => {
      const def = loopNamed('datpo');
      const cfg = def.spec.validate({ steps: 1, problemsPerStep: 1, trainProblems: 64, evalProblems: 1, evalN: 1, samplesPerStep: 1, alphaSchedule: 'constant', rl, ...config });
      const engine = scriptedEngine(script);
      const embed = engine.embed.bind(engine);
      engine.embed = async (seqs) => (calls++, embed(seqs));
      const events = await collect(driveLoop(def, engine, cfg));
      return { engine, step: events.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }> };
    };
    await counted({});
    expect(calls).toBe(1);
    calls = 0;
    const ng = await counted({ embedder: 'ngram' });
    expect(calls).toBe(0);
    const base = (await runScripted({ alphaStart: 0, rl } as Record<string, unknown>)).engine.updates[0].map((t) => t.advantage as number);
    // each fork's 3 branches (one row each, in a row: a root's blocks, then its fork's branches);
    // the right one (A > 0) gets 0.2·(1 − mean cosine) to the other two
    const rows = ng.engine.updates[0];
    const branches = rows.map((t, i) => ({ t, i })).filter(({ t }) => t.dataType === 'branch').map((b, k) => ({ ...b, fork: Math.floor(k / 3) }));
    expect(branches).toHaveLength(12);
    const vec = (t: Trajectory) => ngramEmbedding(blockText(Array.from(t.responseTokens)));
    let checked = 0;
    for (const { t, i, fork } of branches) {
      if (base[i] <= 0) continue;
      const sibs = branches.filter((b) => b.i !== i && b.fork === fork);
      expect(sibs).toHaveLength(2);
      const d = 1 - sibs.reduce((a, b) => a + cosine(vec(t), vec(b.t)), 0) / 2;
      expect(d).toBeGreaterThan(0);
      expect(t.advantage as number).toBeCloseTo(base[i] + 0.2 * d, 6);
      checked++;
    }
    expect(checked).toBe(4);
    // the end token is not part of a block's text
    expect(blockText(encode('12;#3').concat(EOS))).toBe('12;#3');
  });

  it('root pass@N beside the tree pass rate: roots all wrong, a branch right → tree 1, roots 0; frac_reward_zero_std counts the root groups, tree/… the trees', async () => {
    // every root is wrong; of the branches from `…#` the first is right
    const lucky: Script = (prompt, _role, g) => {
      const m = /^<bos><solve>(.+)=(#?)$/.exec(prompt) as RegExpExecArray;
      const a = valueOf(m[1]);
      return m[2] === '#' ? (g === 0 ? `${a}` : `${a + 9}`) : `#${a + 9}`;
    };
    const { step } = await runScripted({ alphaStart: 0 }, lucky);
    expect(step.metrics).toMatchObject({ reward: 0, 'tree/pass_rate': 1, 'tree/root_pass_rate': 0, frac_reward_zero_std: 1, 'tree/frac_reward_zero_std': 0, 'leaves/v0': 4 + 4 * 4 });
    // the usual script: one root of 4 right → pass@4 = 1, and the roots' group has signal
    const usual = (await runScripted({ alphaStart: 0 })).step.metrics;
    expect(usual).toMatchObject({ reward: 0.25, 'tree/pass_rate': 1, 'tree/root_pass_rate': 1, frac_reward_zero_std: 0, 'tree/frac_reward_zero_std': 0 });
  });

  it('entropy/solve = entropy/all over every root and branch token; entropy/root and entropy/branch apart; no bare entropy', async () => {
    const def = loopNamed('datpo');
    const cfg = def.spec.validate({ steps: 1, problemsPerStep: 1, trainProblems: 64, evalProblems: 1, evalN: 1, samplesPerStep: 1 });
    const engine = scriptedEngine(script);
    const rollout = engine.rollout.bind(engine);
    const tokens = { root: 0, branch: 0 };
    // roots sampled at entropy 0.2 a token, branches at 0.8
    engine.rollout = (async (prompts, opts, reward) => {
      const out = await rollout(prompts, opts, reward);
      const h = opts.dataType === 'branch' ? 0.8 : 0.2;
      for (const t of out) (t.entropy = Array.from(t.responseTokens, () => h)), (tokens[opts.dataType as 'root' | 'branch'] += t.responseTokens.length);
      return out;
    }) as typeof engine.rollout;
    const events = await collect(driveLoop(def, engine, cfg));
    const m = (events.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>).metrics;
    expect('entropy' in m).toBe(false);
    expect(m['entropy/root']).toBeCloseTo(0.2, 6);
    expect(m['entropy/branch']).toBeCloseTo(0.8, 6);
    const all = (0.2 * tokens.root + 0.8 * tokens.branch) / (tokens.root + tokens.branch);
    expect(m['entropy/solve']).toBeCloseTo(all, 6);
    expect(m['entropy/all']).toBe(m['entropy/solve']);
  });

  it('an all-correct problem is not expanded', async () => {
    const easy: Script = (p) => (p.endsWith('=#') ? '0' : `#${valueOf(p.replace(/^<bos><solve>/, '').replace(/=$/, ''))}`);
    const def = loopNamed('datpo');
    const cfg = def.spec.validate({ steps: 1, problemsPerStep: 2, trainProblems: 64, evalProblems: 1, evalN: 1 });
    const engine = scriptedEngine(easy);
    const evs = await collect(driveLoop(def, engine, cfg));
    const step = evs.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>;
    expect(step.metrics).toMatchObject({ reward: 1, 'tree/leaves': 8, 'leaves/v1': 4, frac_reward_zero_std: 1 });
    expect(engine.updates[0].every((t) => tokenAdvantages(t).every((a) => a === 0))).toBe(true);
  });
});

describe('DATPO on CPU mode\'s engine', () => {
  it('runs a step on the tiny policy, as the page\'s CPU mode would', async () => {
    const tiny = await loadCheckpointDir('public/models/tiny');
    const evs = await collect(runOnCpu('datpo', tiny.cfg, tiny.params, { steps: 1, problemsPerStep: 1, rootRollouts: 2, bpMax: 1, bnMax: 2, maxNewTokens: 12, trainProblems: 16, evalProblems: 1, evalN: 1, samplesPerStep: 1 }));
    expect(evs.map((e) => e.type).filter((t) => t !== 'records')).toEqual(['eval', 'step', 'samples', 'eval', 'checkpoint', 'done']);
    const step = evs.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>;
    for (const [k, v] of Object.entries(step.metrics)) expect(Number.isFinite(v), k).toBe(true);
  });
});
