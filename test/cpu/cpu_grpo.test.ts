// CPU mode's engine (src/engines/cpu/): the KV-cache sampler's logits equal the whole-model reference's;
// sampling log-probs are the training forward's (ρ ≡ 1 at μ = 1); one GRPO update on a
// hand-computed case has the loss, weights and gradient the formulas give; a short run yields
// GRPO's events with its metric names, and is a pure function of its seed; with β > 0 a frozen
// reference (float64 forward) gives refLogp, the KL is 0 before any update and grows after.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { resolveRlConfig, pgHyperOf } from '../../src/rl/config';
import { assignAdvantages } from '../../src/rl/advantages';
import { packBatch, type Trajectory } from '../../src/rl/trajectory';
import { rollout } from '../../src/rl/rollout';
import { gptBackwardRef, gptForwardRef } from '../../src/reference/gpt';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import type { LoopEvent } from '../../src/loops/events';
import { EOS, PAD, encode, solvePrompt } from '../../src/world/index';
import { CpuPolicy } from '../../src/engines/cpu/policy';
import { CpuTrainer, pgGradients } from '../../src/engines/cpu/trainer';
import { runGrpoCpu } from '../helpers/loops';
import { CpuFrozenPolicy } from '../../src/engines/cpu/frozen_policy';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const init = initParams(cfg, table, 9);

/** GRPO's step metrics (src/loops/grpo/step.ts, the knobs the driver adds, the update's metrics). */
const STEP_KEYS = [
  'reward', 'reward_std', 'frac_reward_zero_std', 'entropy/solve', 'entropy/all', 'completions/mean_length', 'completions/clipped_ratio',
  'kept_groups', 'dropped_groups', 'optimiser_steps', 'rejected_steps', 'lr', 'temperature', 'beta', 'entCoef', 'clip_low', 'clip_high',
  'loss', 'loss/pg', 'loss/kl', 'loss/entropy', 'clip_ratio/low_mean', 'clip_ratio/high_mean', 'clip_ratio/region_mean', 'clip_ratio/dual_mean',
  'kl', 'ratio/mean', 'tokens', 'grad_norm', 'update/entropy', 'tokens/generated',
].sort();

/** log π(y_t) of each response token under the policy at temperature 1 (what the sampler would report with top-p 1). */
function responseLogp(policy: CpuPolicy, prompt: number[], response: number[], temperature = 1): number[] {
  const seq = [...prompt, ...response];
  const T = seq.length;
  const targets = new Uint32Array(T);
  for (let t = 0; t + 1 < T; t++) targets[t] = seq[t + 1];
  const fw = gptForwardRef(cfg, table, policy.params, { B: 1, T, tokens: seq, targets, w: new Float64Array(T), temperature });
  return response.map((_, j) => fw.logp[prompt.length - 1 + j]);
}

/** A solve trajectory with given response tokens; oldLogp = the policy's log-probs plus `shift`. */
function trajectory(policy: CpuPolicy, prompt: number[], response: number[], reward: number, shift = 0): Trajectory {
  return {
    role: 'solve', groupId: 0, promptTokens: prompt, responseTokens: response, lossMask: response.map(() => 1),
    oldLogp: responseLogp(policy, prompt, response).map((x) => x + shift), entropy: response.map(() => 0), reward, truncated: false,
  };
}

describe('CPU policy', () => {
  it('KV-cache decoding gives the logits of the whole-model reference forward', () => {
    const policy = new CpuPolicy(cfg, init);
    const tokens = [...solvePrompt('(3+4)*2'), ...encode('3+4=7;7*2=14;#14')];
    const decoded = policy.decodeLogits(tokens);
    const full = policy.logits(tokens, 1, tokens.length);
    expect(decoded.length).toBe(tokens.length * cfg.vocabSize);
    expectClose('decode vs forward logits', decoded, full, { atol: 1e-12, rtol: 1e-10 });
  });

  it.each([
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 1, topK: 0, topP: 0.7 },
    { temperature: 0.8, topK: 4, topP: 0.9 },
  ])('samples with the log-probs the training forward computes (ρ ≡ 1, whatever top-k / top-p keep), deterministically per seed: %o', async (sampling) => {
    const policy = new CpuPolicy(cfg, init);
    const decoder = policy.decoder({ B: 4, Tmax: cfg.nPositions });
    const prompts = [{ prompt: solvePrompt('1+2'), payload: 3 }, { prompt: solvePrompt('4*5'), payload: 20 }];
    const opts = { groupSize: 2, role: 'solve' as const, groupIdBase: 0, seed: 5, ...sampling, eosToken: EOS, maxNew: 10 };
    const a = await rollout(decoder, prompts, opts, () => ({ reward: 0, text: '' }));
    const b = await rollout(decoder, prompts, opts, () => ({ reward: 0, text: '' }));
    expect(a.map((t) => t.responseTokens)).toEqual(b.map((t) => t.responseTokens));
    for (const tr of a) {
      expect(tr.responseTokens.length).toBeGreaterThan(0);
      expect(tr.responseTokens.length).toBeLessThanOrEqual(10);
      expect(tr.truncated).toBe(tr.responseTokens[tr.responseTokens.length - 1] !== EOS);
      expectClose('sampling logp vs forward logp', tr.oldLogp, responseLogp(policy, tr.promptTokens as number[], tr.responseTokens as number[], sampling.temperature), { atol: 1e-6, rtol: 1e-6 }); // float32 storage
    }
  });
});

describe('CPU GRPO step', () => {
  // one group of two: reward 1 (2 tokens) and reward 0 (3 tokens); group_std with Bessel gives
  // A = ±0.5 / (√0.5 + 1e-6); token_mean weighs each of the 5 tokens 1/5
  const prompt = solvePrompt('1+2');
  const good = encode('3#');
  const bad = encode('4#3');
  const A = 0.5 / (Math.sqrt(0.5) + 1e-6);
  const rl = resolveRlConfig('grpo');
  // packBatch stores advantages, weights and old log-probs as float32, so ρ and the weights agree
  // with the hand values to ~1e-7 relative; gradients, sums of terms of both signs, to that
  // fraction of their largest entry
  const f32Close = (label: string, actual: Float64Array, expected: Float64Array) =>
    expectClose(label, actual, expected, { atol: 1e-6 * Math.max(...expected.map(Math.abs)), rtol: 1e-6 });

  function handGrads(policy: CpuPolicy, wGood: number, wBad: number): Float64Array {
    // the reference gradient of J = Σ w·logp with the hand-computed weights on the response tokens
    const packed = packBatch(assignAdvantages([trajectory(policy, prompt, good, 1), trajectory(policy, prompt, bad, 0)], rl), { T: 20, aggregation: 'token_mean', padToken: PAD });
    const w = new Float64Array(packed.B * packed.T);
    for (let b = 0; b < 2; b++) for (let j = 0; j < packed.responseLength[b]; j++) w[b * packed.T + packed.responseStart[b] + j] = b === 0 ? wGood : wBad;
    const batch = { B: packed.B, T: packed.T, tokens: packed.tokens, targets: packed.targets, w };
    return gptBackwardRef(cfg, table, policy.params, batch, gptForwardRef(cfg, table, policy.params, batch));
  }

  it('at ρ = 1: loss A/5, weights −A/5 and +A/5, the reference gradient of those weights', () => {
    const policy = new CpuPolicy(cfg, init);
    const trajs = assignAdvantages([trajectory(policy, prompt, good, 1), trajectory(policy, prompt, bad, 0)], rl);
    expect(trajs.map((t) => t.advantage)).toEqual([A, -A].map((x) => expect.closeTo(x, 12) as unknown));
    const packed = packBatch(trajs, { T: 20, aggregation: 'token_mean', padToken: PAD });
    const g = pgGradients(policy, packed, pgHyperOf(rl, false), 1);
    // L = Σ c·(−ρA) = (2·(−A) + 3·A)/5
    expect(g.loss).toBeCloseTo(A / 5, 6);
    expect(g.metrics['ratio/mean']).toBeCloseTo(1, 6);
    expect(g.metrics['clip_ratio/region_mean']).toBe(0);
    expect(g.metrics.tokens).toBe(5);
    f32Close('grads', g.grads, handGrads(policy, -A / 5, A / 5));
  });

  it('with the good response sampled at ρ = e^0.5 > 1 + ε_high its tokens are clipped: no gradient, loss (3 − 2·1.28)·A/5', () => {
    const policy = new CpuPolicy(cfg, init);
    const trajs = assignAdvantages([trajectory(policy, prompt, good, 1, -0.5), trajectory(policy, prompt, bad, 0)], rl);
    const g = pgGradients(policy, packBatch(trajs, { T: 20, aggregation: 'token_mean', padToken: PAD }), pgHyperOf(rl, false), 1);
    expect(g.loss).toBeCloseTo(((3 - 2 * (1 + rl.clipHigh)) * A) / 5, 6);
    expect(g.metrics['clip_ratio/high_mean']).toBeCloseTo(2 / 5, 12);
    f32Close('grads', g.grads, handGrads(policy, 0, A / 5));
  });

  it('one trainer step updates every tensor with AdamW and reports the pg metrics and grad norm', async () => {
    const policy = new CpuPolicy(cfg, init);
    const trainer = new CpuTrainer(policy, rl, 16);
    trainer.setHyper({ lr: 1e-3, weightDecay: 0 });
    const before = policy.params.slice();
    const expected = handGrads(policy, -A / 5, A / 5);
    const stats = await trainer.train([trajectory(policy, prompt, good, 1), trajectory(policy, prompt, bad, 0)]);
    expect(stats.optimiserSteps).toBe(1);
    expect(stats.rejectedSteps).toBe(0);
    expect(stats.keptGroups).toBe(1);
    expect(stats.metrics.loss).toBeCloseTo(A / 5, 6);
    expect(stats.metrics.grad_norm / Math.hypot(...expected)).toBeCloseTo(1, 6);
    const unchanged = table.tensors.filter((t) => policy.params.subarray(t.offset, t.offset + t.size).every((x, i) => x === before[t.offset + i])).map((t) => t.name);
    expect(unchanged).toEqual([]);
    // the first AdamW step moves each parameter by lr·ĝ/(|ĝ| + ε) ≈ ±lr where the gradient is not tiny
    const i = expected.reduce((best, x, j) => (Math.abs(x) > Math.abs(expected[best]) ? j : best), 0);
    expect(policy.params[i] - before[i]).toBeCloseTo(-1e-3 * Math.sign(expected[i]), 8);
    expect(trainer.optimiserState().step).toBe(1);
  });
});

describe('CPU frozen reference policy', () => {
  it('scores response tokens as the policy at the trainer\'s temperature, KL 0 before any update, frozen after', async () => {
    const prompt = solvePrompt('1+2');
    const policy = new CpuPolicy(cfg, init);
    const rl = resolveRlConfig('grpo', { beta: 0.04, temperature: 0.8, entCoef: 0.05 });
    const reference = new CpuFrozenPolicy(cfg, init, rl.temperature, 1);
    const trajs = [trajectory(policy, prompt, encode('3#'), 1), trajectory(policy, prompt, encode('4#3'), 0)];
    const annotated = await reference.annotate(trajs);
    annotated.forEach((tr) => {
      const seq = [...prompt, ...(tr.responseTokens as number[])];
      const targets = new Uint32Array(seq.length);
      for (let t = 0; t + 1 < seq.length; t++) targets[t] = seq[t + 1];
      const fw = gptForwardRef(cfg, table, policy.params, { B: 1, T: seq.length, tokens: seq, targets, w: new Float64Array(seq.length), temperature: 0.8 });
      expectClose('refLogp', tr.refLogp, Array.from(tr.refLogp, (_, j) => fw.logp[prompt.length - 1 + j]), { atol: 1e-6, rtol: 1e-6 }); // float32 storage
    });
    const trainer = new CpuTrainer(policy, rl, 16);
    trainer.setHyper({ lr: 1e-2, weightDecay: 0 });
    // β > 0 without reference log-probs says what to change
    await expect(trainer.train(trajs)).rejects.toThrow(/compute refLogp or set beta to 0/);
    const first = await trainer.train(annotated);
    expect(first.metrics.kl).toBeLessThan(1e-12);
    const second = await trainer.train(await reference.annotate(trajs));
    expect(second.metrics.kl).toBeGreaterThan(0);
    expect((await reference.annotate(trajs)).map((t) => Array.from(t.refLogp))).toEqual(annotated.map((t) => Array.from(t.refLogp)));
  });

  it('runGrpoCpu with β = 0.04 reports the KL under GRPO\'s metric names: 0 at step 1, > 0 after', async () => {
    const config = validateGrpoConfig({ steps: 2, seed: 3, problemsPerStep: 2, groupSize: 4, maxNewTokens: 10, evalEvery: 0, evalProblems: 2, evalN: 1, trainProblems: 8, samplesPerStep: 0, lr: 3e-3, rl: { beta: 0.04, entCoef: 0.05 } });
    const steps: Record<string, number>[] = [];
    for await (const e of runGrpoCpu(cfg, init, config)) if (e.type === 'step') steps.push(e.metrics);
    expect(steps).toHaveLength(2);
    for (const m of steps) expect(Object.keys(m).sort()).toEqual(STEP_KEYS);
    expect(steps[0].kl).toBeLessThan(1e-12);
    expect(steps[1].kl).toBeGreaterThan(0);
    expect(Number.isFinite(steps[1].kl)).toBe(true);
  });
});

describe('runGrpoCpu', () => {
  const config = validateGrpoConfig({ steps: 2, seed: 3, problemsPerStep: 2, groupSize: 4, maxNewTokens: 12, evalEvery: 0, evalProblems: 3, evalN: 2, trainProblems: 8, samplesPerStep: 3 });
  const collect = async () => {
    const events: LoopEvent[] = [];
    for await (const e of runGrpoCpu(cfg, init, config)) events.push(e);
    return events;
  };

  it('yields GRPO\'s events with its metric names, and the same seed gives the same run', async () => {
    const a = await collect();
    const b = await collect();
    // evaluation at the start; per step its samples; at the last step the evaluation and the checkpoint
    const expectedTypes = ['eval', 'step', 'samples', 'step', 'samples', 'eval', 'checkpoint', 'done'];
    expect(a.map((e) => e.type)).toEqual(expectedTypes);
    for (const e of a) {
      if (e.type === 'step') {
        expect(Object.keys(e.metrics).sort()).toEqual(STEP_KEYS);
        for (const k of STEP_KEYS) expect(Number.isFinite(e.metrics[k]), k).toBe(true);
        expect(e.metrics.optimiser_steps + e.metrics.dropped_groups).toBeGreaterThan(0);
      }
      if (e.type === 'samples') expect(e.samples).toHaveLength(3);
      if (e.type === 'eval') {
        expect(Object.keys(e.passAtK)).toEqual(['1', '2']);
        expect(e.histogram.reduce((x, y) => x + y, 0)).toBe(3);
      }
    }
    const done = a[a.length - 1];
    expect(done.type === 'done' && done.params.length).toBe(table.totalFloats);
    const strip = (es: LoopEvent[]) => es.map((e) => (e.type === 'step' ? { ...e, seconds: 0 } : e.type === 'done' ? Array.from(e.params) : e));
    expect(strip(a)).toEqual(strip(b));
  });
});
