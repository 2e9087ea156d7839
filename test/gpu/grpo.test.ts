// The GRPO path end to end on the tiny policy: one update changes every parameter tensor; with
// μ = 1 and one mini-batch the ratio is 1 (up to float32) and nothing is clipped; a run is a
// pure function of its seed.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { Decoder } from '../../src/model/decoder';
import { PolicyTrainer } from '../../src/engines/webgpu/trainer';
import { rollout } from '../../src/rl/rollout';
import { resolveRlConfig } from '../../src/rl/config';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import { runGrpo } from '../helpers/loops';
import type { LoopEvent } from '../../src/loops/events';
import { EOS, makeRng, solvePrompt } from '../../src/world/index';
import type { Trajectory } from '../../src/rl/trajectory';
import { expectClose } from '../helpers/tolerance';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const init = initParams(cfg, table, 9);

describe('GRPO on the tiny policy', () => {
  let gpu: Gpu;
  beforeAll(async () => {
    gpu = await testGpu();
  });

  it.each([
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 1, topK: 0, topP: 0.7 },
    { temperature: 0.7, topK: 5, topP: 1 },
    { temperature: 1.3, topK: 8, topP: 0.8 },
  ])('one update changes every parameter tensor; with μ = 1 the ratio is 1 and nothing is clipped, whatever the sampler keeps: %o', async (sampling) => {
    const rl = resolveRlConfig('grpo', { temperature: sampling.temperature });
    const trainer = await PolicyTrainer.create(gpu, cfg, init, rl, { rows: 8, T: cfg.nPositions, maxNewTokens: 12 });
    trainer.model.setHyper({ lr: 1e-3, weightDecay: 0 });
    const decoder = await Decoder.create(gpu, cfg, table, trainer.model.params, { B: 8, Tmax: cfg.nPositions });
    let i = 0;
    // alternating rewards inside each group: every group has signal
    const trajs = await rollout(decoder, [{ prompt: solvePrompt('1+2'), payload: 3 }, { prompt: solvePrompt('4*5'), payload: 20 }],
      { groupSize: 4, role: 'solve', groupIdBase: 0, seed: 5, ...sampling, eosToken: EOS, maxNew: 12 },
      () => ({ reward: i++ % 2, text: '' }));
    const before = await trainer.model.readParams();
    const stats = await trainer.train(trajs);
    const after = await trainer.model.readParams();
    const unchanged = table.tensors.filter((t) => {
      for (let j = t.offset; j < t.offset + t.size; j++) if (after[j] !== before[j]) return false;
      return true;
    }).map((t) => t.name);
    expect(unchanged).toEqual([]);
    expect(stats.optimiserSteps).toBe(1);
    expect(stats.rejectedSteps).toBe(0);
    // sampler (KV cache) and training forward agree to float32 rounding: the sampler's log π is
    // the full temperature-scaled softmax's, not the renormalised nucleus's (which made the
    // ratio the nucleus mass: 58 % of tokens clipped at top-p 0.7 before this was fixed)
    expect(Math.abs(stats.metrics['ratio/mean'] - 1)).toBeLessThan(1e-3);
    expect(stats.metrics['clip_ratio/region_mean']).toBe(0);
  });

  it('learns: updates raise the rate of a rewarded first token (a wrong sign or position would lower it)', async () => {
    // reward 1 iff the response opens with one of 8 of the 64 tokens (about 1 in 8 at random init)
    const rewarded = new Set([10, 11, 12, 13, 14, 15, 16, 17]);
    const rl = resolveRlConfig('grpo');
    const trainer = await PolicyTrainer.create(gpu, cfg, init, rl, { rows: 32, T: cfg.nPositions, maxNewTokens: 12 });
    trainer.model.setHyper({ lr: 1e-2, weightDecay: 0 });
    const decoder = await Decoder.create(gpu, cfg, table, trainer.model.params, { B: 32, Tmax: cfg.nPositions });
    const prompts = ['1+2', '4*5', '7-3', '9+9'].map((t) => ({ prompt: solvePrompt(t), payload: 0 }));
    const rates: number[] = [];
    for (let step = 0; step < 12; step++) {
      const trajs = await rollout(decoder, prompts, { groupSize: 8, role: 'solve', groupIdBase: step * 4, seed: 100 + step, temperature: 1, topK: 0, topP: 1, eosToken: EOS, maxNew: 4 },
        (_, response) => ({ reward: rewarded.has(response[0]) ? 1 : 0, text: '' }));
      rates.push(trajs.filter((t) => t.reward === 1).length / trajs.length);
      await trainer.train(trajs);
    }
    const first = (rates[0] + rates[1] + rates[2]) / 3;
    const last = (rates[9] + rates[10] + rates[11]) / 3;
    expect(first).toBeLessThan(0.4);
    expect(last, `reward rate by step: ${rates.map((r) => r.toFixed(2)).join(' ')}`).toBeGreaterThan(first + 0.3);
    decoder.destroy();
    trainer.destroy();
  });

  it.each(['token_mean', 'seq_mean_token_mean'] as const)('gradient accumulation over micro-batches of mixed lengths gives the one-batch gradient and metrics (%s)', async (aggregation) => {
    // 7 trajectories from 3 to 50 positions: 2-row micro-batches run shortest first, each at its own length
    const rl = resolveRlConfig('datpo', { epochs: 1, aggregation, maxGradNorm: 1e9 });
    const rand = makeRng(17);
    const tok = (n: number) => Array.from({ length: n }, () => 3 + Math.floor(rand() * 60));
    const shapes = [[20, 30], [2, 2], [9, 6], [3, 12], [12, 39], [4, 1], [6, 9]];
    const trajs: Trajectory[] = shapes.map(([P, R], g) => ({
      role: 'solve', groupId: g, reward: 0, truncated: false, promptTokens: tok(P), responseTokens: tok(R),
      lossMask: Array.from({ length: R }, (_, j) => (j % 5 === 4 ? 0 : 1)), oldLogp: Array.from({ length: R }, () => -1 - 4 * rand()), entropy: new Array(R).fill(1),
      advantage: g % 2 ? rand() - 0.5 : Array.from({ length: R }, () => rand() - 0.5),
    }));
    const run = async (rows: number) => {
      const trainer = await PolicyTrainer.create(gpu, cfg, init, rl, { rows, T: cfg.nPositions, maxNewTokens: 40 });
      const lengths: number[] = [];
      const setBatch = trainer.model.setBatch.bind(trainer.model);
      trainer.model.setBatch = (tokens, targets, w, e) => (lengths.push(tokens.length / rows), setBatch(tokens, targets, w, e));
      const stats = await trainer.train(trajs);
      const grads = await trainer.model.readGrads();
      trainer.destroy();
      return { stats, grads, lengths };
    };
    const one = await run(8);
    const acc = await run(2);
    expect(one.lengths).toEqual([64]);
    // sorted by length: (3, 4) and (14, 14) positions run at 16, (14, 49) and (50) at 64 (before sorting: 64 every time)
    expect(acc.lengths).toEqual([16, 16, 64, 64]);
    expectClose('gradient', acc.grads, one.grads, { atol: 2e-6, rtol: 1e-4 });
    for (const k of ['loss', 'ratio/mean', 'clip_ratio/region_mean', 'entropy']) {
      expect(typeof one.stats.metrics[k], k).toBe('number');
      expect(acc.stats.metrics[k], k).toBeCloseTo(one.stats.metrics[k], 5);
    }
  });

  it('the same seed gives the same run', async () => {
    const config = validateGrpoConfig({ steps: 2, seed: 3, problemsPerStep: 2, groupSize: 4, maxNewTokens: 12, evalEvery: 0, evalProblems: 3, evalN: 2, trainProblems: 8 });
    const collect = async () => {
      const events: LoopEvent[] = [];
      for await (const e of runGrpo(gpu, cfg, init, config)) events.push(e);
      return events;
    };
    const a = await collect();
    const b = await collect();
    const strip = (es: LoopEvent[]) => es.map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e.type === 'done' ? Array.from(e.params) : e));
    expect(a.map((e) => e.type)).toEqual(['eval', 'step', 'samples', 'step', 'samples', 'eval', 'checkpoint', 'done']);
    expect(strip(a)).toEqual(strip(b));
  });

  it('live knob changes apply from the next step and are reported', async () => {
    const config = validateGrpoConfig({ steps: 2, seed: 4, problemsPerStep: 1, groupSize: 2, maxNewTokens: 8, evalEvery: 0, evalProblems: 1, evalN: 1, trainProblems: 4, samplesPerStep: 0 });
    let asked = 0;
    const controls = { pending: () => (++asked === 2 ? { lr: 5e-4, clipHigh: 0.2, temperature: 0.7 } : null) };
    const steps: Record<string, number>[] = [];
    for await (const e of runGrpo(gpu, cfg, init, config, undefined, controls)) if (e.type === 'step') steps.push(e.metrics);
    expect(steps.map((m) => [m.lr, m.clip_high, m.temperature])).toEqual([[1e-4, 0.28, 1], [5e-4, 0.2, 0.7]]);
  });

  it('rejects unknown or inconsistent settings with a message saying what to change', () => {
    expect(() => validateGrpoConfig({ groupSzie: 8 })).toThrow(/unknown key "groupSzie".*groupSize/);
    expect(() => validateGrpoConfig({ evalSet: 'nope' })).toThrow(/unknown data set/);
    expect(() => validateGrpoConfig({ problemsPerStep: 1, groupSize: 2, rl: { miniBatches: 4 } })).toThrow(/miniBatches/);
    expect(() => validateGrpoConfig({ rl: { clipLow: -1 } })).toThrow(/clipLow/);
    expect(() => validateGrpoConfig({ rl: { beta: -0.1 } })).toThrow(/beta = -0\.1/);
    // β > 0 is accepted: the loop keeps a frozen reference policy (test/gpu/grpo_reference.test.ts)
    expect(validateGrpoConfig({ rl: { beta: 0.04 } }).rl).toMatchObject({ beta: 0.04, klType: 'k3' });
  });
});
