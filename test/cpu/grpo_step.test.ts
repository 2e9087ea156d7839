// The GRPO step's engine-free parts with a scripted sampler (responses and rewards chosen here):
// DAPO's dynamic sampling draws new problems until the batch holds problemsPerStep informative
// groups (at most maxGenBatches extra batches) and reports the batches it took; the step
// metrics keep one meaning per name (`entropy/solve` is the sampling entropy of every rollout, the loss
// head's is `update/entropy`); reward_std is TRL's (per-group Bessel std, averaged); update
// metrics are token-weighted across mini-batches.
import { describe, expect, it } from 'vitest';
import { sampleStep, stepMetrics, rewardStd, stepRollout, type StepRollout } from '../../src/loops/grpo/step';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import { combineUpdateMetrics, type OptimiserStepMetrics } from '../../src/rl/update_metrics';
import type { Rollout } from '../../src/rl/rollout';
import type { TrainStats } from '../../src/rl/update';
import { loadSet, makeRng } from '../../src/world/index';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import { scriptedEngine } from '../helpers/scriptedEngine';

const train = loadSet('train').slice(0, 64);

/** A scripted sampler: batch k's groups get the reward patterns script[k] (one array per group). */
function scripted(script: number[][][], entropy = 1) {
  const calls: StepRollout[] = [];
  const sample = async (r: StepRollout): Promise<Rollout<number>[]> => {
    const k = calls.length;
    calls.push(r);
    const out: Rollout<number>[] = [];
    r.prompts.forEach((p, g) => {
      for (let i = 0; i < r.opts.groupSize; i++) {
        out.push({
          role: 'solve', groupId: r.opts.groupIdBase + g, promptTokens: p.prompt, responseTokens: [1, 2], lossMask: [1, 1],
          oldLogp: [-1, -1], entropy: [entropy * (k + 1), entropy * (k + 1)], reward: script[k][g][i], truncated: false, payload: p.payload, text: '',
        });
      }
    });
    return out;
  };
  return { calls, sample };
}

const flat = [0, 0, 0, 0];
const mixed = [1, 0, 0, 1];

describe('dynamic sampling (DAPO) in the GRPO step', () => {
  const dapo = validateGrpoConfig({ problemsPerStep: 2, groupSize: 4, rl: { filterZeroVariance: true, dynamicSampling: true, maxGenBatches: 3 } });

  it('draws new problems until problemsPerStep informative groups are kept, then trains on the first of them', async () => {
    const s = scripted([[flat, mixed], [flat, flat], [mixed, mixed]]);
    const r = await sampleStep(dapo, 1, train, makeRng(1), s.sample);
    expect(r.genBatches).toBe(3);
    expect(r.exhausted).toBe(false);
    expect(r.all.length).toBe(3 * 2 * 4);
    // batch 0's group 1, then batch 2's group 0 (its group 1 is surplus)
    expect([...new Set(r.train.map((t) => t.groupId))]).toEqual([1, 4]);
    // each extra batch draws problems and a sampling seed of its own, and numbers its groups apart
    expect(new Set(s.calls.map((c) => c.opts.seed)).size).toBe(3);
    expect(s.calls.map((c) => c.opts.groupIdBase)).toEqual([0, 2, 4]);
    expect(s.calls[1].prompts.map((p) => p.prompt)).not.toEqual(s.calls[0].prompts.map((p) => p.prompt));
  });

  it('stops after maxGenBatches extra batches and trains on what it kept, saying so', async () => {
    const s = scripted([[flat, mixed], [flat, flat], [flat, flat], [flat, flat], [mixed, mixed]]);
    const r = await sampleStep(dapo, 1, train, makeRng(1), s.sample);
    expect(r.genBatches).toBe(4); // the first and maxGenBatches = 3 extra
    expect(r.exhausted).toBe(true);
    expect([...new Set(r.train.map((t) => t.groupId))]).toEqual([1]);
  });

  it('is off by default: one batch, every rollout trained on (filtering is the trainer\'s)', async () => {
    const c = validateGrpoConfig({ problemsPerStep: 2, groupSize: 4 });
    const s = scripted([[flat, flat]]);
    const r = await sampleStep(c, 1, train, makeRng(1), s.sample);
    expect([r.genBatches, r.exhausted, r.train.length, s.calls.length]).toEqual([1, false, 8, 1]);
  });

  it('keeps batch 0 on the run\'s generator: problemsPerStep draws a step, whatever the extra batches drew', async () => {
    const a = makeRng(7), b = makeRng(7);
    await sampleStep(dapo, 1, train, a, scripted([[flat, flat], [flat, flat], [flat, flat], [flat, flat]]).sample);
    stepRollout(dapo, 1, train, b, 0);
    expect(a()).toBe(b());
  });
});

describe('step metrics', () => {
  const c = validateGrpoConfig({ problemsPerStep: 2, groupSize: 4, rl: { filterZeroVariance: true, dynamicSampling: true, maxGenBatches: 3 } });
  const stats: TrainStats = { metrics: { loss: 0.5, entropy: 9, kl: 0, tokens: 8 }, keptGroups: 1, droppedGroups: 0, fracZeroStd: 0.5, trajectories: 4, optimiserSteps: 1, rejectedSteps: 0 };

  it('entropy/solve (= entropy/all: every GRPO token solves) is the sampling entropy over every rollout, no bare entropy; the loss head\'s is update/entropy', async () => {
    const s = await sampleStep(c, 1, train, makeRng(1), scripted([[flat, flat], [mixed, mixed]], 0.25).sample);
    const m = stepMetrics(s, stats);
    // batch 0 rollouts have entropy 0.25, batch 1's 0.5: the mean over all 16 is 0.375
    expect(m['entropy/solve']).toBeCloseTo(0.375, 12);
    expect(m['entropy/all']).toBe(m['entropy/solve']);
    expect('entropy' in m).toBe(false);
    expect(m['update/entropy']).toBe(9);
    expect(m.gen_batches).toBe(2);
    expect(m['dynamic_sampling/exhausted']).toBe(0);
    expect(m.reward).toBe(4 / 16);
  });

  it('frac_reward_zero_std counts every group the step sampled, not only the groups dynamic sampling kept', async () => {
    const s = await sampleStep(c, 1, train, makeRng(1), scripted([[flat, flat], [mixed, mixed]]).sample);
    // 4 groups sampled, 2 without signal; the update (the trainer's stats) saw only the 2 kept
    expect(stepMetrics(s, { ...stats, fracZeroStd: 0 }).frac_reward_zero_std).toBe(0.5);
  });

  it('reward_std is the mean of each group\'s Bessel std (TRL)', () => {
    const t = (groupId: number, reward: number) => ({ role: 'solve' as const, groupId, reward });
    // group 0: 1,0,0,1 → std √(1/3); group 1: all 0 → 0
    expect(rewardStd([t(0, 1), t(0, 0), t(0, 0), t(0, 1), t(1, 0), t(1, 0), t(1, 0), t(1, 0)])).toBeCloseTo(Math.sqrt(1 / 3) / 2, 12);
  });
});

describe('combineUpdateMetrics', () => {
  const part = (tokens: number, clipLow: number, kl: number, loss: number): OptimiserStepMetrics => ({
    loss, 'loss/pg': loss, 'loss/kl': 0, 'loss/entropy': 0, 'clip_ratio/low_mean': clipLow, 'clip_ratio/high_mean': 0, 'clip_ratio/region_mean': clipLow,
    'clip_ratio/dual_mean': 0, kl, entropy: 1, 'ratio/mean': 1, tokens, grad_norm: 2,
  });

  it('weights token means by tokens, averages losses over optimiser steps, counts one pass of tokens', () => {
    const m = combineUpdateMetrics([part(30, 0.1, 0.2, 1), part(10, 0.5, 0.6, 3), part(30, 0.1, 0.2, 1), part(10, 0.5, 0.6, 3)], 2);
    expect(m['clip_ratio/low_mean']).toBeCloseTo((30 * 0.1 + 10 * 0.5) / 40, 12);
    expect(m['clip_ratio/region_mean']).toBeCloseTo(0.2, 12);
    expect(m.kl).toBeCloseTo((30 * 0.2 + 10 * 0.6) / 40, 12);
    expect(m.loss).toBe(2);
    expect(m.tokens).toBe(40);
    expect(combineUpdateMetrics([], 1)).toEqual({});
  });
});

describe('the driver', () => {
  it('evaluates every time as it did at the start, whatever the live temperature', async () => {
    const engine = scriptedEngine(() => '#1');
    const def = loopNamed('grpo');
    const cfg = def.spec.validate({ steps: 2, evalEvery: 1, evalProblems: 2, evalN: 2, problemsPerStep: 1, groupSize: 2, trainProblems: 8 });
    let asked = false;
    const controls = { pending: () => (asked ? null : ((asked = true), { temperature: 0.5 })) };
    for await (const e of driveLoop(def, engine, cfg, { controls })) void e;
    // the change reached the sampler and the loss...
    expect(engine.settings?.rl.temperature).toBe(0.5);
    // ...not the evaluations: start, step 1, step 2 all at the run's own temperature
    expect(engine.evaluations.map((o) => o.temperature)).toEqual([1, 1, 1]);
  });

  it('stops at the token budget: the step that reaches it evaluates and saves as a last step would; a resumed run counts on', async () => {
    const def = loopNamed('grpo');
    // each response is '#1' and the end token: 3 tokens, 2 problems × 2 answers = 12 tokens a step
    const cfg = def.spec.validate({ steps: 10, tokenBudget: 30, evalEvery: 0, checkpointEvery: 0, samplesPerStep: 0, evalProblems: 2, evalN: 2, problemsPerStep: 2, groupSize: 2, trainProblems: 8 });
    const run = async (c: typeof cfg, resume?: { step: number; tokens: number }) => {
      const engine = scriptedEngine(() => '#1');
      const evs: string[] = [];
      const r = resume ? { step: resume.step, tokens: resume.tokens, optimiser: { m: new Float32Array(1), v: new Float32Array(1), step: 0 }, state: null } : undefined;
      for await (const e of driveLoop(def, engine, c, { resume: r })) if (e.type !== 'phase' && e.type !== 'boundary') evs.push(e.type === 'step' ? `step${e.step}:${e.metrics['tokens/generated']}` : `${e.type}@${e.step}`);
      return evs;
    };
    // 12, 24, 36 ≥ 30: step 3 is the last, with the end's evaluation and checkpoint
    expect(await run(cfg)).toEqual(['eval@0', 'step1:12', 'step2:12', 'step3:12', 'eval@3', 'checkpoint@3', 'done@3']);
    // resumed after step 2 with its 24 tokens: one more step reaches the budget
    expect(await run(cfg, { step: 2, tokens: 24 })).toEqual(['step3:12', 'eval@3', 'checkpoint@3', 'done@3']);
    // off (0): the run goes its steps
    expect((await run(def.spec.validate({ ...cfg, tokenBudget: 0, steps: 4 }))).filter((e) => e.startsWith('step'))).toHaveLength(4);
    expect(() => def.spec.validate({ tokenBudget: -1 })).toThrow(/tokenBudget/);
  });
});
