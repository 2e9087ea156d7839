// SvS on the WebGPU engine from the shipped `small` base: its steps train on OQA, VPS and SPA
// groups and report them, every variant is recorded with the oracle's flags, and the same seed
// replays the same run. And the trainer it needs: an update larger than the trainer's rows is one
// optimiser step by gradient accumulation, equal to the step a trainer with room for it takes.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { collect, runOnGpu } from '../helpers/loops';
import { expectClose } from '../helpers/tolerance';
import type { Gpu } from '../../src/gpu/runtime';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { GPTConfig } from '../../src/model/config';
import type { LoopEvent } from '../../src/loops/events';
import { PolicyTrainer } from '../../src/engines/webgpu/trainer';
import { resolveRlConfig } from '../../src/rl/config';
import type { Trajectory } from '../../src/rl/trajectory';
import { encode, EOS, solvePrompt } from '../../src/world/index';

const RUN = { seed: 4, steps: 2, problemsPerStep: 3, groupSize: 4, variantsPerSolution: 4, maxSynthesisSources: 2, trainProblems: 64, evalProblems: 2, evalN: 2, samplesPerStep: 2, lr: 3e-4 };

describe('SvS on the WebGPU engine (small policy)', () => {
  let gpu: Gpu;
  let base: { cfg: GPTConfig; params: Float32Array };
  beforeAll(async () => {
    gpu = await testGpu();
    base = await loadCheckpointDir('public/models/small');
  });

  it('trains on its three kinds of groups, records every variant, and replays by seed', async () => {
    const a = await collect(runOnGpu(gpu, 'svs', base.cfg, base.params, RUN));
    const steps = a.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
    expect(steps).toHaveLength(2);
    for (const s of steps) {
      for (const k of ['mix/oqa', 'mix/vps', 'mix/spa', 'challenging', 'synthesis/sources', 'entropy/solve', 'entropy/all', 'frac_reward_zero_std', 'reward']) expect(k in s.metrics, k).toBe(true);
      expect('entropy' in s.metrics).toBe(false);
      // the variant rates whenever the step wrote variants (and the leak flag's base rate on gold variants)
      if (s.metrics['synthesis/sources'] > 0) for (const k of ['vps/reward', 'vps/extracted', 'entropy/vps', 'vps/leak_base']) expect(k in s.metrics, k).toBe(true);
    }
    const records = a.flatMap((e) => (e.type === 'records' ? e.records : []));
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(r.kind).toBe('svs.variant');
      for (const k of ['problem', 'answer', 'solution', 'variant', 'parsed', 'pHat', 'reward', 'kept', 'trueValid', 'leak', 'copy']) expect(k in r, k).toBe(true);
      if (r.parsed) expect(typeof r.pHat).toBe('number');
    }
    // what each step trained on agrees with its records: VPS groups kept, SPA groups kept (G answers each)
    for (const s of steps) {
      const own = records.filter((r) => r.step === s.step);
      expect(s.metrics['mix/vps'], `step ${s.step} VPS`).toBe(own.filter((r) => r.kept).length);
      expect(s.metrics['mix/spa'], `step ${s.step} SPA`).toBe(own.filter((r) => r.spaKept).length * RUN.groupSize);
      expect(s.metrics['synthesis/sources'] * RUN.variantsPerSolution).toBe(own.length);
      // no quantity is reported as NaN (a non-finite metric halts a run)
      for (const [k, v] of Object.entries(s.metrics)) expect(Number.isFinite(v), `step ${s.step} ${k}`).toBe(true);
    }
    const b = await collect(runOnGpu(gpu, 'svs', base.cfg, base.params, RUN));
    const strip = (evs: LoopEvent[]) => evs.map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e));
    expect(strip(b)).toEqual(strip(a));
  });

  it('accumulates gradients over micro-batches: rows 4 takes the step rows 16 takes', async () => {
    // clipping off, so every token has a gradient whatever its ratio to these made-up old log-probs
    const rl = resolveRlConfig('grpo', { clipLow: 0.999999, clipHigh: 1e9 });
    const trajs: Trajectory[] = Array.from({ length: 12 }, (_, i) => {
      const response = [...encode(`${i % 5}+1=${(i % 5) + 1};#${(i % 5) + 1}`), EOS];
      return {
        role: i < 8 ? 'solve' : 'vary', groupId: Math.floor(i / 4), promptTokens: solvePrompt(`${i % 5}+1`), responseTokens: response,
        lossMask: response.map(() => 1), oldLogp: response.map(() => -2), entropy: response.map(() => 1), reward: i % 3 === 0 ? 1 : 0, truncated: false,
      };
    });
    const after = async (rows: number) => {
      const t = await PolicyTrainer.create(gpu, base.cfg, base.params, rl, { rows, T: base.cfg.nPositions, maxNewTokens: 40 });
      t.model.setHyper({ lr: 1e-3, weightDecay: 0 });
      const stats = await t.train(trajs);
      // the gradient the update used (AdamW's first step amplifies f32 rounding of tiny gradients, so compare these)
      const g = await t.model.readGrads();
      const p = await t.model.readParams();
      t.destroy();
      return { g, p, stats };
    };
    const whole = await after(16);
    const pieces = await after(4);
    expect(pieces.stats.optimiserSteps).toBe(1);
    // the same loss and metrics, and the same gradient (f32 sums in another order: to 1e-5 of the largest entry)
    expectClose('loss', [pieces.stats.metrics.loss], [whole.stats.metrics.loss], { atol: 1e-6, rtol: 1e-4 });
    expectClose('tokens', [pieces.stats.metrics.tokens], [whole.stats.metrics.tokens], { atol: 0, rtol: 0 });
    const big = whole.g.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    expect(big).toBeGreaterThan(0);
    expectClose('gradient', pieces.g, whole.g, { atol: 1e-5 * big, rtol: 1e-4 });
    let moved = 0;
    for (let i = 0; i < base.params.length; i++) if (whole.p[i] !== base.params[i]) moved++;
    expect(moved).toBeGreaterThan(0);
  });
});
