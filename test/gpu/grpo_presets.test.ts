// Every RL preset the GRPO loop takes trains: two steps of the shipped `small` policy each, and
// the parameters move (constant_norm, the dr_grpo and spice presets, once failed at their first
// update for want of L_max). The DATPO preset's external advantages are refused with the reason.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import type { Gpu } from '../../src/gpu/runtime';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { GPTConfig } from '../../src/model/config';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import { runGrpo } from '../helpers/loops';
import type { LoopEvent } from '../../src/loops/events';
import { RL_CORE_PRESETS } from '../../src/rl/config';

// 4 problems × 4 answers: enough that the shipped base (right on most easy problems) has groups with signal
const RUN = { seed: 2, steps: 2, problemsPerStep: 4, groupSize: 4, maxNewTokens: 24, trainProblems: 64, evalEvery: 0, evalProblems: 1, evalN: 1, samplesPerStep: 0, checkpointEvery: 0, lr: 3e-4 };

describe('GRPO trains under every RL preset (small policy)', () => {
  let gpu: Gpu;
  let base: { cfg: GPTConfig; params: Float32Array };
  beforeAll(async () => {
    gpu = await testGpu();
    base = await loadCheckpointDir('public/models/small');
  });

  const presets = Object.entries(RL_CORE_PRESETS).filter(([name]) => name !== 'datpo');
  it.each(presets)('preset %s: two steps, and the parameters move', async (_name, rl) => {
    const config = validateGrpoConfig({ ...RUN, rl });
    const steps: Extract<LoopEvent, { type: 'step' }>[] = [];
    let done: Extract<LoopEvent, { type: 'done' }> | null = null;
    for await (const e of runGrpo(gpu, base.cfg, base.params, config)) {
      if (e.type === 'step') steps.push(e);
      if (e.type === 'done') done = e;
    }
    expect(steps.map((s) => s.step)).toEqual([1, 2]);
    expect(steps.reduce((a, s) => a + s.metrics.optimiser_steps, 0)).toBeGreaterThan(0);
    for (const s of steps) expect(Number.isFinite(s.metrics.loss), `step ${s.step} loss`).toBe(true);
    let moved = 0;
    for (let i = 0; i < base.params.length; i++) if (done!.params[i] !== base.params[i]) moved++;
    expect(moved).toBeGreaterThan(0);
  });

  it('refuses the datpo preset: GRPO computes its own advantages', () => {
    expect(() => validateGrpoConfig({ ...RUN, rl: RL_CORE_PRESETS.datpo })).toThrow(/rl.advantage = external: the grpo loop computes its advantages/);
  });
});
