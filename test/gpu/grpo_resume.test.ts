// A GRPO run stopped at a checkpoint and resumed from it ends exactly where the uninterrupted run
// ends: bit-identical parameters and the same step metrics, a live learning-rate change made
// before the checkpoint included (the checkpoint carries the config as it stood).
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import type { LoopControls } from '../../src/loops/driver';
import { runGrpo } from '../helpers/loops';
import type { LoopCheckpoint, LoopEvent } from '../../src/loops/events';

const cfg = GPT_PRESETS.tiny;
const init = initParams(cfg, buildTensorTable(cfg), 11);
const config = validateGrpoConfig({
  steps: 4, seed: 5, problemsPerStep: 2, groupSize: 2, maxNewTokens: 8, trainProblems: 8,
  evalEvery: 0, evalProblems: 1, evalN: 1, samplesPerStep: 0, checkpointEvery: 2, lr: 1e-3,
});

/** The learning rate changes at the top of step 2, before the step-2 checkpoint. */
function knobs(): LoopControls {
  let asked = 0;
  return { pending: () => (++asked === 2 ? { lr: 5e-4 } : null) };
}

type Step = Extract<LoopEvent, { type: 'step' }>;
const metricsOf = (es: LoopEvent[]) => es.filter((e): e is Step => e.type === 'step').map((e) => [e.step, e.metrics]);

describe('GRPO resume', () => {
  let gpu: Gpu;
  beforeAll(async () => {
    gpu = await testGpu();
  });

  it('a run stopped at a checkpoint and resumed from it ends with the uninterrupted run\'s parameters, bit for bit', async () => {
    const whole: LoopEvent[] = [];
    for await (const e of runGrpo(gpu, cfg, init, config, undefined, knobs())) whole.push(e);
    expect(whole.filter((e) => e.type === 'checkpoint').map((e) => e.step)).toEqual([2, 4]);

    // the same run, abandoned right after its step-2 checkpoint (as a closed page would)
    let saved: LoopCheckpoint | null = null;
    const head: LoopEvent[] = [];
    for await (const e of runGrpo(gpu, cfg, init, config, undefined, knobs())) {
      head.push(e);
      if (e.type === 'checkpoint') {
        saved = structuredClone(e);
        break;
      }
    }
    expect(saved?.step).toBe(2);
    const c = validateGrpoConfig(saved!.config, 'checkpoint');
    expect(c.lr).toBe(5e-4);

    const tail: LoopEvent[] = [];
    for await (const e of runGrpo(gpu, cfg, saved!.params, c, undefined, undefined, saved!)) tail.push(e);
    expect(tail.map((e) => e.type)).toEqual(['step', 'step', 'eval', 'checkpoint', 'done']);
    expect([...metricsOf(head), ...metricsOf(tail)]).toEqual(metricsOf(whole));
    const end = (es: LoopEvent[]) => es.find((e) => e.type === 'done') as Extract<LoopEvent, { type: 'done' }>;
    const a = end(whole).params;
    const b = end(tail).params;
    let differ = 0;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differ++;
    expect(differ).toBe(0);
    expect(end(tail).step).toBe(4);
  });

  it('refuses a resume point beyond the run', async () => {
    const gen = runGrpo(gpu, cfg, init, config, undefined, undefined, { step: 9, optimiser: { m: new Float32Array(0), v: new Float32Array(0), step: 0 } });
    await expect(gen.next()).rejects.toThrow(/cannot resume after step 9 of a 4-step run/);
  });
});
