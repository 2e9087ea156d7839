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
import { budget, leavesOf } from '../../src/loops/datpo/tree';

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
});
