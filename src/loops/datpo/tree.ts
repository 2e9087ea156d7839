// DATPO's tree (LOOPS.md §5), pure and engine-free so it is tested by hand: the budget from the
// root accuracy, sentences of a trace and the fork choice (sentence entropy and the ablation's
// alternatives), the tree's blocks with their node values and base advantages, the sibling
// diversity bonus and α's schedule, and the fork-localisation figures (NND, MPD, WCR@w).
import type { Trajectory } from '../../rl/trajectory';
import { EOS, STEP_END } from '../../world/index';
import { decode, encode } from '../../world/index';
import { mean } from '../../metrics/mean';

export type ForkStrategy = 'sentence-entropy' | 'random' | 'fixed-segment' | 'token-entropy';

/** K̂ = ⌈bp_max(1−v)⌉ forks and B̂ = ⌈bn_max(1−v)⌉ branches from root accuracy v; an all-correct root is not expanded. */
export function budget(v: number, bpMax: number, bnMax: number): { forks: number; branches: number } {
  if (v >= 1 - 1e-9) return { forks: 0, branches: 0 };
  // k/N accuracies: keep ⌈3 × 0.75⌉ = 1, not 2 by rounding noise
  const ceil = (x: number) => Math.ceil(x - 1e-9);
  return { forks: ceil(bpMax * (1 - v)), branches: ceil(bnMax * (1 - v)) };
}

/** Leaves of a problem's tree: N(1 + K̂B̂) when every root takes K̂ forks. */
export function leavesOf(n: number, b: { forks: number; branches: number }): number {
  return n * (1 + b.forks * b.branches);
}

const STEP_TOKEN = encode(STEP_END)[0];

/** A response's sentences (trace steps) as [start, end) token spans: each ends with ';', the rest (the answer, EOS) is the last. */
export function sentences(response: ArrayLike<number>): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < response.length; i++) {
    if (response[i] === STEP_TOKEN) {
      out.push([start, i + 1]);
      start = i + 1;
    }
  }
  if (start < response.length) out.push([start, response.length]);
  return out;
}

/**
 * Up to `k` fork positions in a response (ascending; a position p keeps tokens 0..p−1 as the
 * prefix and resamples from p), each with the score it was chosen by:
 *   sentence-entropy: sentences by mean token entropy normalised by max(max entropy, 1); a fork is
 *                     the sentence's first token + 1 (LOOPS.md §5)
 *   token-entropy:    after the k highest-entropy tokens (p = the token + 1, as the released code)
 *   fixed-segment:    evenly spaced, p = round(i·R/(k+1))
 *   random:           k distinct positions drawn with `rand`
 * Positions are in 1..R−1 (a fork at 0 would be a new root, one at R has nothing to resample).
 */
export function choosePositions(entropy: ArrayLike<number>, response: ArrayLike<number>, k: number, strategy: ForkStrategy, rand: () => number): { pos: number; score: number }[] {
  const R = response.length;
  if (k <= 0 || R < 2) return [];
  const ok = (p: number) => p >= 1 && p <= R - 1;
  let picks: { pos: number; score: number }[] = [];
  if (strategy === 'sentence-entropy') {
    let maxH = 0;
    for (let i = 0; i < R; i++) maxH = Math.max(maxH, entropy[i]);
    const norm = Math.max(maxH, 1);
    const scored = sentences(response).map(([a, b]) => {
      let s = 0;
      for (let i = a; i < b; i++) s += entropy[i];
      return { pos: a + 1, score: s / (b - a) / norm };
    }).filter((x) => ok(x.pos));
    picks = scored.sort((x, y) => y.score - x.score || x.pos - y.pos).slice(0, k);
  } else if (strategy === 'token-entropy') {
    // the token is kept and the branch resamples from the next one (the released code's idx + 1)
    const scored = Array.from({ length: R }, (_, i) => ({ pos: i + 1, score: entropy[i] })).filter((x) => ok(x.pos));
    picks = scored.sort((x, y) => y.score - x.score || x.pos - y.pos).slice(0, k);
  } else if (strategy === 'fixed-segment') {
    const seen = new Set<number>();
    for (let i = 1; i <= k; i++) {
      const p = Math.round((i * R) / (k + 1));
      if (ok(p) && !seen.has(p)) seen.add(p), picks.push({ pos: p, score: 0 });
    }
  } else {
    const pool = Array.from({ length: R - 1 }, (_, i) => i + 1);
    for (let i = 0; i < k && pool.length > 0; i++) picks.push({ pos: pool.splice(Math.floor(rand() * pool.length), 1)[0], score: 0 });
  }
  return picks.sort((a, b) => a.pos - b.pos);
}

/** One root rollout and what grew from it: forks at `forks` (ascending), each with its branches' continuations. */
export interface RootPath {
  tokens: number[];
  reward: number;
  forks: { pos: number; branches: { tokens: number[]; reward: number }[] }[];
}

/** A block: a stretch of one path between two nodes, trained with one advantage. */
export interface Block {
  /** which root (index in the problem's roots) */
  root: number;
  /** the fork the block's parent is (−1: the problem's root node) */
  parentFork: number;
  /** the branch it is (−1: the root path) */
  branch: number;
  /** [start, end) in the path's own tokens: the root's response, or the branch's continuation */
  start: number;
  end: number;
  /** tokens before the block on its path (the root's response up to the fork, for a branch) */
  prefix: number;
  /** node values of its parent and (for an edge block) its child */
  parentValue: number;
  leaf: boolean;
  reward: number | null;
  base: number;
}


/**
 * The blocks of a problem's tree and their base advantages, with the released code's node values
 * (datpo_zero.py, search_batch): V of the problem's root node is the root accuracy v (the mean of
 * the N root rewards); V of a fork is the mean reward of its own B̂ branches. A_base of an edge
 * block n → c is V(c) − V(n), of a leaf block r − V(n); no std normalisation.
 */
export function treeBlocks(roots: readonly RootPath[]): { blocks: Block[]; rootValue: number; leaves: number[] } {
  const leaves = roots.flatMap((r) => [r.reward, ...r.forks.flatMap((f) => f.branches.map((b) => b.reward))]);
  const rootValue = mean(roots.map((r) => r.reward));
  const blocks: Block[] = [];
  roots.forEach((r, ri) => {
    const values = r.forks.map((f) => (f.branches.length ? mean(f.branches.map((b) => b.reward)) : r.reward));
    const cuts = [0, ...r.forks.map((f) => f.pos), r.tokens.length];
    for (let k = 0; k < cuts.length - 1; k++) {
      const parentValue = k === 0 ? rootValue : values[k - 1];
      const leaf = k === cuts.length - 2;
      const base = leaf ? r.reward - parentValue : values[k] - parentValue;
      blocks.push({ root: ri, parentFork: k - 1, branch: -1, start: cuts[k], end: cuts[k + 1], prefix: cuts[k], parentValue, leaf, reward: leaf ? r.reward : null, base });
    }
    r.forks.forEach((f, k) => f.branches.forEach((b, bi) => {
      blocks.push({ root: ri, parentFork: k, branch: bi, start: 0, end: b.tokens.length, prefix: f.pos, parentValue: values[k], leaf: true, reward: b.reward, base: b.reward - values[k] });
    }));
  });
  return { blocks, rootValue, leaves };
}

/**
 * Siblings for the diversity bonus, as the released code compares them: the roots' first blocks
 * (children of the problem's root node), and at each fork its B̂ branches among themselves; the
 * root path's own continuation after a fork has no siblings (divergence 0).
 */
export function siblingGroups(blocks: readonly Block[]): number[][] {
  const groups = new Map<string, number[]>();
  blocks.forEach((b, i) => {
    const key = b.parentFork < 0 ? 'root' : b.branch >= 0 ? `${b.root}/${b.parentFork}` : null;
    if (key !== null) groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()];
}

/** α at step `step` of `steps`: linear in the run's progress step/steps from α₀ to α₁ at the last step, as the released code (anneal); α₀ throughout (constant). */
export function alphaAt(step: number, steps: number, a0: number, a1: number, schedule: 'anneal' | 'constant'): number {
  if (schedule === 'constant') return a0;
  return a0 + ((a1 - a0) * step) / steps;
}

/**
 * Fork localisation over one path's fork positions, each relative to the path's length (0..1):
 *   NND  mean over forks of the distance to the nearest other fork
 *   MPD  mean distance over all pairs of forks
 *   WCR@w share of forks with another fork within w (e.g. 0.05) of it
 * Paths with fewer than two forks have none (null).
 */
export function localisation(rel: readonly number[], w: number): { nnd: number; mpd: number; wcr: number } | null {
  if (rel.length < 2) return null;
  const nn = rel.map((x, i) => Math.min(...rel.filter((_, j) => j !== i).map((y) => Math.abs(x - y))));
  const pairs: number[] = [];
  for (let i = 0; i < rel.length; i++) for (let j = i + 1; j < rel.length; j++) pairs.push(Math.abs(rel[i] - rel[j]));
  return { nnd: mean(nn), mpd: mean(pairs), wcr: nn.filter((d) => d <= w + 1e-12).length / rel.length };
}

/**
 * A block's text for the n-gram embedder, without its end token: every finished sibling has one,
 * so its n-grams would only add likeness.
 */
export const blockText = (tokens: readonly number[]): string => decode(tokens.filter((t) => t !== EOS));

/** Where a block's tokens were sampled: a root's response or a branch's continuation, with their per-token log π and entropy. */
export interface BlockSource {
  tokens: readonly number[];
  oldLogp: readonly number[];
  entropy: readonly number[];
  truncated: boolean;
}

/**
 * One problem's training trajectories: every block with its advantage (`advantage[i]` for
 * `blocks[i]`), its path before it as the prompt. With `merge`, the blocks of one root path are
 * one trajectory with per-token advantages (the path is forwarded once, not once per block with a
 * growing prompt): the same token losses, so the same update under a token-level aggregation
 * (token_mean, a token ratio and one mini-batch; the caller checks). A truncated root's leaf block
 * is then masked through its loss mask when `maskTruncated` (which must be the trainer's), not the
 * whole path, and the merged row says `truncated: false` so that the trainer does not mask the rest
 * (its `truncated` means "masked whole"). Branches are one block each,
 * prompted with their root's tokens up to the fork.
 */
export function blockTrajectories(
  prompt: readonly number[], blocks: readonly Block[], advantage: readonly number[],
  roots: readonly BlockSource[], branch: (b: Block) => BlockSource, opts: { merge: boolean; maskTruncated: boolean; groupIdBase: number },
): Trajectory[] {
  const out: Trajectory[] = [];
  const push = (t: Omit<Trajectory, 'groupId' | 'role'>) => out.push({ role: 'solve', groupId: opts.groupIdBase + out.length, ...t });
  const merged = new Set<number>();
  blocks.forEach((b, i) => {
    if (merged.has(i)) return;
    const s = b.branch < 0 ? roots[b.root] : branch(b);
    if (opts.merge && b.branch < 0) {
      const mine = blocks.map((_, j) => j).filter((j) => blocks[j].root === b.root && blocks[j].branch < 0);
      mine.forEach((j) => merged.add(j));
      const end = Math.max(...mine.map((j) => blocks[j].end));
      if (end === 0) return;
      const adv = new Array<number>(end).fill(0);
      const mask = new Array<number>(end).fill(1);
      for (const j of mine) {
        for (let t = blocks[j].start; t < blocks[j].end; t++) {
          adv[t] = advantage[j];
          if (blocks[j].leaf && s.truncated && opts.maskTruncated) mask[t] = 0;
        }
      }
      const leaf = mine.find((j) => blocks[j].leaf) as number;
      push({
        dataType: 'root', promptTokens: [...prompt], responseTokens: s.tokens.slice(0, end), lossMask: mask, oldLogp: s.oldLogp.slice(0, end), entropy: s.entropy.slice(0, end),
        reward: blocks[leaf].reward ?? 0, advantage: adv, truncated: s.truncated && !opts.maskTruncated,
      });
      return;
    }
    const tokens = s.tokens.slice(b.start, b.end);
    if (tokens.length === 0) return;
    // the path before the block: its root's tokens up to the block (a root block) or up to its fork (a branch)
    const before = roots[b.root].tokens.slice(0, b.branch < 0 ? b.start : b.prefix);
    push({
      dataType: b.branch < 0 ? 'root' : 'branch', promptTokens: [...prompt, ...before], responseTokens: tokens, lossMask: tokens.map(() => 1),
      oldLogp: s.oldLogp.slice(b.start, b.end), entropy: s.entropy.slice(b.start, b.end), reward: b.reward ?? 0, advantage: advantage[i], truncated: b.leaf && s.truncated,
    });
  });
  return out;
}
