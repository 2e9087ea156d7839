// TTSP on the WebGPU engine from the shipped `small` base: the base is bit-identical at the end
// while both adapter sets moved, every metric is finite (the relatedness baseline and the frozen
// base's pass rate on the fresh problems included), the checkpoint carries both sets with
// their optimiser states, and a run resumed from step 1's checkpoint (adapters, optimiser states,
// the body's buffer) continues exactly as the uninterrupted one.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { collect, runOnGpu } from '../helpers/loops';
import type { Gpu } from '../../src/gpu/runtime';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { GPTConfig } from '../../src/model/config';
import type { LoopEvent } from '../../src/loops/events';

const RUN = {
  seed: 4, steps: 2, target: '6*(9+2)', proposerContexts: 2, proposalsPerContext: 4, solverAttempts: 4, replay: 2, targetEvalEvery: 1, targetEvalN: 4,
  evalEvery: 0, evalProblems: 2, evalN: 2, checkpointEvery: 1, samplesPerStep: 0, lr: 3e-3, rl: { entCoef: 0.01 },
};

const same = (a: Float32Array, b: Float32Array): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

describe('TTSP on the WebGPU engine (small policy)', () => {
  let gpu: Gpu;
  let base: { cfg: GPTConfig; params: Float32Array };
  beforeAll(async () => {
    gpu = await testGpu();
    base = await loadCheckpointDir('public/models/small');
  });

  it('trains the two adapter sets over a frozen base, and resumes from a checkpoint exactly', async () => {
    const a = await collect(runOnGpu(gpu, 'ttsp', base.cfg, base.params, RUN));
    const steps = a.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
    expect(steps).toHaveLength(2);
    for (const s of steps) for (const [k, v] of Object.entries(s.metrics)) expect(Number.isFinite(v), `step ${s.step} ${k}`).toBe(true);
    expect(steps.every((s) => s.metrics['target/mean'] !== undefined)).toBe(true);
    // the oracle's baselines on the real engine: relatedness's (the frozen embedder, one value a run) and the frozen base's pass rate
    const relatedBase = steps[0].metrics['proposal/related_base'];
    expect(relatedBase).toBeGreaterThan(-1);
    expect(relatedBase).toBeLessThanOrEqual(1);
    expect(steps.every((s) => s.metrics['proposal/related_base'] === relatedBase && s.metrics['entropy/all'] > 0 && !('entropy' in s.metrics))).toBe(true);
    for (const s of steps) if ('proposal/related' in s.metrics) expect(s.metrics['synthetic/base_pass_rate'], `step ${s.step}`).toBeGreaterThanOrEqual(0);
    const done = a[a.length - 1] as Extract<LoopEvent, { type: 'done' }>;
    expect(same(done.params, base.params)).toBe(true);
    expect(done.adapters?.map((x) => x.spec.name)).toEqual(['proposer', 'solver']);
    // both sets trained (the entropy bonus moves them whatever the rewards), each with its own AdamW state
    for (const ad of done.adapters!) {
      expect(ad.optimiser.step, ad.spec.name).toBeGreaterThan(0);
      expect(ad.optimiser.m.some((x) => x !== 0), ad.spec.name).toBe(true);
    }
    const ck = a.find((e): e is Extract<LoopEvent, { type: 'checkpoint' }> => e.type === 'checkpoint' && e.step === 1)!;
    expect(ck.adapters).toHaveLength(2);
    expect(same(ck.params, base.params)).toBe(true);

    const b = await collect(runOnGpu(gpu, 'ttsp', base.cfg, ck.params, ck.config, {
      reference: base.params, resume: { step: 1, optimiser: ck.optimiser, state: ck.state, adapters: ck.adapters },
    }));
    const strip = (evs: LoopEvent[]) => evs.filter((e) => e.step === 2 && e.type !== 'done').map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e));
    expect(strip(b)).toEqual(strip(a));
    const doneB = b[b.length - 1] as Extract<LoopEvent, { type: 'done' }>;
    doneB.adapters!.forEach((ad, i) => expect(same(ad.params, done.adapters![i].params), ad.spec.name).toBe(true));
    // a checkpoint without its adapter sets cannot continue the run
    await expect(collect(runOnGpu(gpu, 'ttsp', base.cfg, ck.params, ck.config, { reference: base.params, resume: { step: 1, optimiser: ck.optimiser, state: ck.state } })))
      .rejects.toThrow(/holds no adapter sets/);
  });
});
