// SPICE on the WebGPU engine from the shipped `small` base: each step trains the challenger's
// groups and the reasoner's, reports the challenger's reward, validity and the oracle's rates,
// records every challenger output consistently with its metrics, and the same seed replays the
// same run.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { collect, runOnGpu } from '../helpers/loops';
import type { Gpu } from '../../src/gpu/runtime';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { GPTConfig } from '../../src/model/config';
import type { LoopEvent } from '../../src/loops/events';

const RUN = { seed: 5, steps: 2, documentsPerStep: 2, questionsPerDocument: 4, answersPerQuestion: 4, evalProblems: 2, evalN: 2, samplesPerStep: 2, lr: 3e-4 };

describe('SPICE on the WebGPU engine (small policy)', () => {
  let gpu: Gpu;
  let base: { cfg: GPTConfig; params: Float32Array };
  beforeAll(async () => {
    gpu = await testGpu();
    base = await loadCheckpointDir('public/models/small');
  });

  it('trains both roles, records every challenger output as its metrics say, and replays by seed', async () => {
    const a = await collect(runOnGpu(gpu, 'spice', base.cfg, base.params, RUN));
    const steps = a.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
    expect(steps).toHaveLength(2);
    const records = a.flatMap((e) => (e.type === 'records' ? e.records : []));
    expect(records).toHaveLength(2 * RUN.documentsPerStep * RUN.questionsPerDocument);
    for (const s of steps) {
      for (const [k, v] of Object.entries(s.metrics)) expect(Number.isFinite(v), `step ${s.step} ${k}`).toBe(true);
      const own = records.filter((r) => r.step === s.step);
      const valid = own.filter((r) => r.valid);
      expect(s.metrics['challenger/valid']).toBeCloseTo(valid.length / own.length, 12);
      expect(s.metrics.questions).toBe(valid.length);
      expect(s.metrics['challenger/reward']).toBeCloseTo(own.reduce((x, r) => x + (r.reward as number), 0) / own.length, 12);
      // the base writes questions the reasoner sometimes answers: the step trains on both roles' tokens
      expect(s.metrics.tokens).toBeGreaterThan(0);
      // the seed is chosen so that every step has valid questions: the checks below always run
      expect(valid.length, `step ${s.step}: no valid question, so the reasoner's checks would not run`).toBeGreaterThan(0);
      expect(s.metrics['challenger/gold_acc']).toBeCloseTo(valid.filter((r) => r.goldCorrect).length / valid.length, 12);
      expect(s.metrics.reward).toBeCloseTo(valid.reduce((x, r) => x + (r.p as number), 0) / valid.length, 12);
      for (const r of own) {
        expect(r.kind).toBe('spice.question');
        if (r.valid) expect((r.answers as string).split(' ')).toHaveLength(RUN.answersPerQuestion);
        else expect(r.p).toBeNull();
      }
    }
    const b = await collect(runOnGpu(gpu, 'spice', base.cfg, base.params, RUN));
    const strip = (evs: LoopEvent[]) => evs.map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e));
    expect(strip(b)).toEqual(strip(a));
  });
});
