// DATPO on the WebGPU engine from the shipped `small` base: trees grow by the budget, every block
// trains (μ = 2 epochs of external advantages), every leaf is recorded, and the same seed replays
// the same run (branches from shared prefixes included).
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { collect, runOnGpu } from '../helpers/loops';
import type { Gpu } from '../../src/gpu/runtime';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { GPTConfig } from '../../src/model/config';
import type { LoopEvent } from '../../src/loops/events';
import { blockTrajectories, budget, leavesOf, treeBlocks, type RootPath } from '../../src/loops/datpo/tree';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { PolicyTrainer } from '../../src/engines/webgpu/trainer';
import { resolveRlConfig } from '../../src/rl/config';
import { makeRng } from '../../src/world/index';
import { expectClose } from '../helpers/tolerance';

const RUN = { seed: 2, steps: 2, problemsPerStep: 3, rootRollouts: 4, bpMax: 2, bnMax: 2, trainProblems: 64, evalProblems: 2, evalN: 2, samplesPerStep: 2, lr: 3e-4 };

describe('DATPO on the WebGPU engine (small policy)', () => {
  let gpu: Gpu;
  let base: { cfg: GPTConfig; params: Float32Array };
  beforeAll(async () => {
    gpu = await testGpu();
    base = await loadCheckpointDir('public/models/small');
  });

  it('grows each tree by its budget, trains every block, records every leaf, and replays by seed', async () => {
    const a = await collect(runOnGpu(gpu, 'datpo', base.cfg, base.params, RUN));
    const steps = a.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
    expect(steps).toHaveLength(2);
    for (const s of steps) {
      for (const [k, v] of Object.entries(s.metrics)) expect(Number.isFinite(v), `step ${s.step} ${k}`).toBe(true);
      const leaves = a.flatMap((e) => (e.type === 'records' && e.step === s.step ? e.records : []));
      expect(leaves).toHaveLength(s.metrics['tree/leaves']);
      // every root is a leaf; the rest are branches, each from a fork inside its root
      const roots = leaves.filter((r) => r.fork === null);
      expect(roots).toHaveLength(RUN.problemsPerStep * RUN.rootRollouts);
      for (const r of leaves.filter((x) => x.fork !== null)) expect(r.fork as number).toBeGreaterThanOrEqual(1);
      // no problem has more leaves than its budget allows: the total is at most the budgets' sum
      const vs = roots.filter((_, i) => i % RUN.rootRollouts === 0).map((r) => r.v as number);
      expect(leaves.length).toBeLessThanOrEqual(vs.reduce((a, v) => a + leavesOf(RUN.rootRollouts, budget(v, RUN.bpMax, RUN.bnMax)), 0));
      // μ = 2 epochs of one mini-batch: two optimiser steps
      expect(s.metrics.optimiser_steps).toBe(2);
    }
    const b = await collect(runOnGpu(gpu, 'datpo', base.cfg, base.params, RUN));
    const strip = (evs: LoopEvent[]) => evs.map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e));
    expect(strip(b)).toEqual(strip(a));
  });

  it('a root path trained as one row with per-token advantages gives the gradient of its blocks trained one by one (token mean)', async () => {
    const cfg = GPT_PRESETS.tiny;
    const init = initParams(cfg, buildTensorTable(cfg), 4);
    const rand = makeRng(8);
    const src = (n: number, truncated = false) => ({
      tokens: Array.from({ length: n }, () => 3 + Math.floor(rand() * 60)), oldLogp: Array.from({ length: n }, () => -1 - 3 * rand()), entropy: new Array(n).fill(1), truncated,
    });
    const roots = [src(14), src(9, true), src(6)];
    const br = [[src(5), src(7)], [src(3), src(8)], [src(4), src(2)]];
    const paths: RootPath[] = [
      { tokens: roots[0].tokens, reward: 0, forks: [{ pos: 4, branches: [{ tokens: br[0][0].tokens, reward: 1 }, { tokens: br[0][1].tokens, reward: 0 }] }, { pos: 10, branches: [{ tokens: br[1][0].tokens, reward: 1 }, { tokens: br[1][1].tokens, reward: 1 }] }] },
      { tokens: roots[1].tokens, reward: 0, forks: [{ pos: 5, branches: [{ tokens: br[2][0].tokens, reward: 0 }, { tokens: br[2][1].tokens, reward: 1 }] }] },
      { tokens: roots[2].tokens, reward: 1, forks: [] },
    ];
    const { blocks } = treeBlocks(paths);
    const adv = blocks.map((b, i) => b.base + 0.01 * i);
    const branchOf = (b: { root: number; parentFork: number; branch: number }) => br[b.root === 0 ? b.parentFork : 2][b.branch];
    const prompt = [1, 7, 9, 2];
    for (const maskTruncated of [false, true]) {
      const rl = resolveRlConfig('datpo', { epochs: 1, maxGradNorm: 1e9, maskTruncated });
      const grads = async (merge: boolean) => {
        const trajs = blockTrajectories(prompt, blocks, adv, roots, branchOf, { merge, maskTruncated, groupIdBase: 0 });
        const trainer = await PolicyTrainer.create(gpu, cfg, init, rl, { rows: 16, T: cfg.nPositions, maxNewTokens: 16 });
        const stats = await trainer.train(trajs);
        const g = await trainer.model.readGrads();
        trainer.destroy();
        return { n: trajs.length, g, loss: stats.metrics.loss };
      };
      const one = await grads(true);
      const each = await grads(false);
      expect([one.n, each.n]).toEqual([3 + 6, 6 + 6]);
      expectClose(`gradient (maskTruncated ${maskTruncated})`, one.g, each.g, { atol: 1e-6, rtol: 1e-4 });
      expect(one.loss).toBeCloseTo(each.loss, 5);
    }
  });
});
