// OpenSIR on the WebGPU engine from the shipped `small` base, with the policy's own embeddings:
// each step trains one teacher group and one student group, grows the pool by its legal problems
// (one record each, with its embedding), reports finite metrics, and the same seed replays the
// same run (embeddings included).
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { collect, runOnGpu } from '../helpers/loops';
import type { Gpu } from '../../src/gpu/runtime';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { GPTConfig } from '../../src/model/config';
import type { LoopEvent } from '../../src/loops/events';

const RUN = { seed: 3, steps: 2, teacherGroups: 2, teacherSamples: 3, studentSamples: 4, evalProblems: 2, evalN: 2, samplesPerStep: 2, lr: 3e-4 };

describe('OpenSIR on the WebGPU engine (small policy)', () => {
  let gpu: Gpu;
  let base: { cfg: GPTConfig; params: Float32Array };
  beforeAll(async () => {
    gpu = await testGpu();
    base = await loadCheckpointDir('public/models/small');
  });

  it('grows the pool by its legal problems, trains one group of each role, and replays by seed', async () => {
    const a = await collect(runOnGpu(gpu, 'opensir', base.cfg, base.params, RUN));
    const steps = a.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
    expect(steps).toHaveLength(2);
    let pool = 1;
    for (const s of steps) {
      for (const [k, v] of Object.entries(s.metrics)) expect(Number.isFinite(v), `step ${s.step} ${k}`).toBe(true);
      for (const k of ['entropy/all', 'entropy/teach', 'frac_reward_zero_std/teach']) expect(k in s.metrics, k).toBe(true);
      expect('entropy' in s.metrics).toBe(false);
      const own = a.flatMap((e) => (e.type === 'records' && e.step === s.step ? e.records : []));
      expect(s.metrics['teacher/legal']).toBeCloseTo(own.length / (RUN.teacherGroups * RUN.teacherSamples), 12);
      pool += own.length;
      expect(s.metrics['pool/size']).toBe(pool);
      expect(s.metrics['train/teach']).toBe(RUN.teacherSamples);
      expect(s.metrics['train/solve']).toBe(own.length ? RUN.studentSamples : 0);
      for (const r of own) expect((r.embedding as number[]).length).toBe(base.cfg.nEmbd);
    }
    const b = await collect(runOnGpu(gpu, 'opensir', base.cfg, base.params, RUN));
    const strip = (evs: LoopEvent[]) => evs.map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e));
    expect(strip(b)).toEqual(strip(a));
  });
});
