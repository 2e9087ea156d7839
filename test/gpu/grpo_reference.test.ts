// The frozen reference policy of the KL penalty (src/engines/webgpu/frozen_policy.ts) on the tiny policy: before
// any update its log-probs are the trainer's own (k3 KL = 0) and the float64 reference forward's
// at the same temperature; after updates with β > 0 the KL is positive while the reference stays
// put; runGrpo with β > 0 (from the start, set live, resumed) reports the KL.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { Decoder } from '../../src/model/decoder';
import { PolicyTrainer } from '../../src/engines/webgpu/trainer';
import { positionsOf } from '../../src/rl/trajectory';
import { FrozenPolicy } from '../../src/engines/webgpu/frozen_policy';
import { rollout } from '../../src/rl/rollout';
import { resolveRlConfig } from '../../src/rl/config';
import { gptForwardRef } from '../../src/reference/gpt';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import type { LoopControls } from '../../src/loops/driver';
import { runGrpo } from '../helpers/loops';
import type { LoopEvent } from '../../src/loops/events';
import { EOS, solvePrompt } from '../../src/world/index';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const init = initParams(cfg, table, 9);
const T = cfg.nPositions;
const TEMP = 0.8;

type Step = Extract<LoopEvent, { type: 'step' }>;
const stepsOf = (es: LoopEvent[]) => es.filter((e): e is Step => e.type === 'step');

describe('GRPO frozen reference policy', () => {
  let gpu: Gpu;
  beforeAll(async () => {
    gpu = await testGpu();
  });

  it('scores as the trainer before any update (KL 0) and as the float64 forward; stays frozen while the KL grows', async () => {
    const rl = resolveRlConfig('grpo', { beta: 0.04, klType: 'k3', temperature: TEMP });
    const trainer = await PolicyTrainer.create(gpu, cfg, init, rl, { rows: 8, T, maxNewTokens: 10 });
    trainer.model.setHyper({ lr: 1e-2, weightDecay: 0 });
    const reference = await FrozenPolicy.create(gpu, cfg, init, { rows: 8, T }, TEMP);
    const decoder = await Decoder.create(gpu, cfg, table, trainer.model.params, { B: 8, Tmax: T });
    let i = 0;
    const draw = (seed: number) => rollout(decoder, [{ prompt: solvePrompt('1+2'), payload: 0 }, { prompt: solvePrompt('4*5'), payload: 0 }],
      { groupSize: 4, role: 'solve', groupIdBase: seed * 2, seed, temperature: TEMP, topK: 0, topP: 1, eosToken: EOS, maxNew: 10 },
      () => ({ reward: i++ % 2, text: '' }));
    const trajs = await draw(5);
    // chunks of at most `rows`: 8 trajectories in chunks of 3, 3 and 2 give the same numbers
    const small = await FrozenPolicy.create(gpu, cfg, init, { rows: 3, T }, TEMP);
    const first = await reference.annotate(trajs);
    expect((await small.annotate(trajs)).map((t) => Array.from(t.refLogp))).toEqual(first.map((t) => Array.from(t.refLogp)));
    small.destroy();

    // (a) the trainer's pre-update forward of the same batch: log π at position P − 1 + j
    const stats = await trainer.train(first);
    // the trainer ran the batch at the shortest recorded length that holds it (rows of Tb)
    const Tb = trainer.model.activeT;
    expect(Tb).toBe(trainer.model.lengthFor(positionsOf(first)));
    expect(Tb).toBeLessThan(T); // prompts of ~10 tokens + ≤ 10 response tokens: not padded to 64
    const logp = await gpu.readF32(trainer.model.batch.logp);
    let maxTrainer = 0, maxRef64 = 0;
    first.forEach((tr, b) => {
      const P = tr.promptTokens.length, R = tr.responseTokens.length;
      expect(tr.refLogp).toHaveLength(R);
      const seq = [...Array.from(tr.promptTokens), ...Array.from(tr.responseTokens)];
      const targets = new Uint32Array(seq.length);
      for (let t = 0; t + 1 < seq.length; t++) targets[t] = seq[t + 1];
      const fw = gptForwardRef(cfg, table, Float64Array.from(init), { B: 1, T: seq.length, tokens: seq, targets, w: new Float64Array(seq.length), temperature: TEMP });
      for (let j = 0; j < R; j++) {
        maxTrainer = Math.max(maxTrainer, Math.abs(tr.refLogp[j] - logp[b * Tb + P - 1 + j]));
        maxRef64 = Math.max(maxRef64, Math.abs(tr.refLogp[j] - fw.logp[P - 1 + j]));
      }
    });
    expect(maxTrainer).toBeLessThan(1e-6);
    expect(maxRef64).toBeLessThan(1e-4);
    expect(stats.metrics.kl).toBeGreaterThanOrEqual(0);
    expect(stats.metrics.kl).toBeLessThan(1e-9);
    expect(Math.abs(stats.metrics['ratio/mean'] - 1)).toBeLessThan(1e-3);

    // (b) a few updates with β > 0: the KL is positive and finite; the reference has not moved
    let last = stats;
    for (let s = 0; s < 3; s++) last = await trainer.train(await reference.annotate(await draw(6 + s)));
    expect(Number.isFinite(last.metrics.kl)).toBe(true);
    expect(last.metrics.kl).toBeGreaterThan(0);
    expect(last.metrics['loss/kl']).toBeGreaterThan(0);
    const again = await reference.annotate(trajs);
    expect(again.map((t) => Array.from(t.refLogp))).toEqual(first.map((t) => Array.from(t.refLogp)));
    // and the trainer's log-probs of that batch did move away from them
    await trainer.train(again);
    const moved = await gpu.readF32(trainer.model.batch.logp);
    expect(again.some((tr, b) => Array.from(tr.refLogp).some((x, j) => Math.abs(x - moved[b * T + tr.promptTokens.length - 1 + j]) > 1e-4))).toBe(true);
    decoder.destroy();
    reference.destroy();
    trainer.destroy();
  });

  // the tiny random policy earns no reward (all advantages 0): an entropy bonus moves it anyway
  const base = { steps: 2, seed: 3, problemsPerStep: 2, groupSize: 4, maxNewTokens: 10, evalEvery: 0, evalProblems: 2, evalN: 1, trainProblems: 8, samplesPerStep: 0, lr: 3e-3 };
  const moving = { entCoef: 0.05 };

  it('(c) runGrpo with β = 0.04 runs and reports the KL: 0 at step 1 (reference = start), > 0 after', async () => {
    const config = validateGrpoConfig({ ...base, rl: { ...moving, beta: 0.04 } });
    const events: LoopEvent[] = [];
    for await (const e of runGrpo(gpu, cfg, init, config)) events.push(e);
    const steps = stepsOf(events);
    expect(steps.map((e) => e.step)).toEqual([1, 2]);
    for (const e of steps) {
      expect(e.metrics.beta).toBe(0.04);
      expect(Number.isFinite(e.metrics.kl)).toBe(true);
    }
    expect(steps[0].metrics.kl).toBeLessThan(1e-9);
    expect(steps[1].metrics.kl).toBeGreaterThan(0);
    expect(events[events.length - 1].type).toBe('done');
  });

  it('β set live from 0 takes the run\'s starting policy as the reference; a resume given it continues exactly', async () => {
    // step 1 without a reference (no KL), β = 0.04 from step 2: the policy has moved since the start
    const controls = (): LoopControls => {
      let asked = 0;
      return { pending: () => (++asked === 2 ? { beta: 0.04 } : null) };
    };
    const whole: LoopEvent[] = [];
    for await (const e of runGrpo(gpu, cfg, init, validateGrpoConfig({ ...base, steps: 3, checkpointEvery: 2, rl: moving }), undefined, controls())) whole.push(e);
    const steps = stepsOf(whole);
    expect(steps.map((e) => [e.metrics.beta, e.metrics.kl === 0])).toEqual([[0, true], [0.04, false], [0.04, false]]);
    expect(steps[1].metrics.kl).toBeGreaterThan(0);

    // resumed after the step-2 checkpoint with the base as the reference: step 3 and the end are the same
    const ckpt = whole.find((e): e is Extract<LoopEvent, { type: 'checkpoint' }> => e.type === 'checkpoint' && e.step === 2)!;
    const resumed: LoopEvent[] = [];
    const config = validateGrpoConfig(ckpt.config);
    for await (const e of runGrpo(gpu, cfg, ckpt.params, config, undefined, undefined, { step: 2, optimiser: ckpt.optimiser, reference: init })) resumed.push(e);
    expect(stepsOf(resumed).map((e) => ({ ...e, seconds: 0 }))).toEqual([{ ...steps[2], seconds: 0 }]);
    const done = (es: LoopEvent[]) => es.find((e): e is Extract<LoopEvent, { type: 'done' }> => e.type === 'done')!.params;
    expect(Array.from(done(resumed))).toEqual(Array.from(done(whole)));
  });
});
