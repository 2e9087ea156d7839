// Live knobs on the page: the steps where a change took effect are found in the stored metrics
// (against the set-up before the first step), the current values come from the latest step,
// the page-side check gives the loop validator's messages (β > 0 is accepted), form text parses
// to only what changed, and the worker's run manager hands queued values to the loop once.
import { describe, expect, it } from 'vitest';
import { checkKnobs, currentKnobs, knobChanges, knobsOfConfig, parseKnobs } from '../../src/state/knobs';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import { RunManager } from '../../src/lab/worker/runs';
import { fakeEngine, fakeLoop, fakeSeen } from '../helpers/fakeLoop';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';

const config = validateGrpoConfig({ lr: 1e-4 });
const initial = knobsOfConfig(config);

describe('knobChanges', () => {
  it('marks the steps whose reported values differ from the step before', () => {
    const steps = [1, 2, 3, 4, 5];
    const series = {
      lr: [1e-4, 1e-4, 5e-5, 5e-5, 5e-5],
      temperature: [1, 1, 1, 0.7, 0.7],
      clip_low: [0.2, 0.2, 0.2, 0.2, 0.1],
      clip_high: [0.28, 0.28, 0.28, 0.28, 0.3],
      entCoef: [0, 0, 0, 0, 0],
      reward: [0, 0.1, 0.2, 0.3, 0.4],
    };
    const c = knobChanges(steps, series, initial);
    expect(c.map((x) => x.step)).toEqual([3, 4, 5]);
    expect(c[0].changes).toEqual([{ metric: 'lr', from: 1e-4, to: 5e-5 }]);
    expect(c[0].label).toBe('lr → 0.00005');
    expect(c[2].changes.map((x) => x.metric)).toEqual(['clip_low', 'clip_high']);
    expect(c[2].label).toBe('clip_low → 0.1, clip_high → 0.3');
  });

  it('compares the first step with the set-up, and skips steps that did not report a knob', () => {
    const series = { lr: [2e-4, NaN, 2e-4, 3e-4], entCoef: [0, 0, 0.01, 0.01] };
    const c = knobChanges([1, 2, 3, 4], series, initial, (v) => v.toExponential(0));
    expect(c.map((x) => [x.step, x.label])).toEqual([[1, 'lr → 2e-4'], [3, 'entCoef → 1e-2'], [4, 'lr → 3e-4']]);
    // without the set-up the first step has nothing to differ from
    expect(knobChanges([1, 2, 3, 4], series).map((x) => x.step)).toEqual([3, 4]);
  });

  it('finds nothing in a run that never changed its knobs, or that reports none (an older run)', () => {
    expect(knobChanges([1, 2], { lr: [1e-4, 1e-4], temperature: [1, 1] }, initial)).toEqual([]);
    expect(knobChanges([1, 2], { reward: [0, 1] }, initial)).toEqual([]);
    expect(knobChanges([], {}, initial)).toEqual([]);
  });

  it('marks a change of β (the GRPO loop takes its frozen reference from then on)', () => {
    expect(knobChanges([1, 2], { beta: [0, 0.04] }, initial).map((x) => [x.step, x.changes])).toEqual([[2, [{ metric: 'beta', from: 0, to: 0.04 }]]]);
  });
});

describe('knob values and checks', () => {
  it('reads the current values from the latest reported step, else the set-up', () => {
    const now = currentKnobs(config, { series: { lr: [1e-4, 5e-5, NaN], temperature: [0.8] } });
    expect(now).toEqual({ ...initial, lr: 5e-5, temperature: 0.8 });
    expect(currentKnobs(config, { series: {} })).toEqual(initial);
  });

  it('gives the loop validator\'s message for a bad value; β > 0 is valid', () => {
    expect(checkKnobs('grpo', config, initial, { lr: 5e-5, clipHigh: 0.3 })).toBeNull();
    expect(checkKnobs('grpo', config, initial, { lr: 0 })).toMatch(/live change\.lr = 0/);
    expect(checkKnobs('grpo', config, initial, { temperature: -1 })).toMatch(/live change\.rl\.temperature/);
    expect(checkKnobs('grpo', config, initial, { clipLow: 2 })).toMatch(/clipLow/);
    expect(checkKnobs('grpo', config, initial, { beta: 0.04 })).toBeNull();
    expect(checkKnobs('grpo', config, initial, { beta: -1 })).toMatch(/live change\.rl\.beta = -1/);
  });

  it('parses form text to the knobs that changed, and names a field that is not a number', () => {
    const text = { lr: '0.00005', temperature: '1', beta: '0', entCoef: ' 0 ', clipLow: '0.2', clipHigh: '0.28' };
    expect(parseKnobs(text, initial)).toEqual({ ok: true, change: { lr: 5e-5 } });
    expect(parseKnobs({ ...text, lr: String(initial.lr) }, initial)).toEqual({ ok: true, change: {} });
    expect(parseKnobs({ ...text, temperature: 'hot' }, initial)).toEqual({ ok: false, message: 'temperature: "hot" is not a number' });
    expect(parseKnobs({ ...text, clipHigh: '' }, initial)).toMatchObject({ ok: false });
  });
});

describe('RunManager.setKnobs', () => {
  it('queues values (merged) for the loop, which takes them once at its next step', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const seen = fakeSeen();
    const def = fakeLoop(seen, { step: async () => (await gate, {}) });
    const m = new RunManager({ loopNamed: () => def, createEngine: async (_d, init) => fakeEngine(init, seen), loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }), batchIntervalMs: 0 });
    const done = m.start({} as Gpu, { runId: 'k', loop: 'fake', policy: 'tiny', config: { steps: 2 } }, () => undefined);
    // step 1 is in progress (it took its knobs at its top): the change is for step 2
    for (let i = 0; i < 1000 && !seen.log.includes('compute 1'); i++) await new Promise((r) => setTimeout(r, 0));
    expect(m.setRunKnobs('k', { lr: 5e-5 })).toBe(2);
    expect(m.setRunKnobs('k', { temperature: 0.7 })).toBe(2);
    release();
    const final = await done;
    expect(final.state).toBe('done');
    // the engine's settings: the run's own, then both values at the next step, and no further change
    expect(seen.configured.map((c) => [c.lr, c.rl.temperature])).toEqual([[1e-4, 1], [5e-5, 0.7]]);
    expect(() => m.setRunKnobs('k', { lr: 1 })).toThrow(/no active run/);
  });

  it('paused between steps, a change is for the next step', async () => {
    const seen = fakeSeen();
    const def = fakeLoop(seen);
    const m = new RunManager({ loopNamed: () => def, createEngine: async (_d, init) => fakeEngine(init, seen), loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }), batchIntervalMs: 0 });
    const states: string[] = [];
    const done = m.start({} as Gpu, { runId: 'p', loop: 'fake', policy: 'tiny', config: { steps: 3 } }, (b) => states.push(`${b.status.state}@${b.status.step}`));
    m.pauseRun('p');
    for (let i = 0; i < 1000 && !states.includes('paused@0'); i++) await new Promise((r) => setTimeout(r, 0));
    expect(m.setRunKnobs('p', { lr: 2e-4 })).toBe(1);
    m.stepRun('p');
    for (let i = 0; i < 1000 && !states.includes('paused@1'); i++) await new Promise((r) => setTimeout(r, 0));
    expect(m.setRunKnobs('p', { lr: 3e-4 })).toBe(2);
    m.resumeRun('p');
    await done;
    expect(seen.configured.map((c) => c.lr)).toEqual([1e-4, 2e-4, 3e-4]);
  });
});
