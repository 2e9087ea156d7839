// Run comparison without React: labels say how a run's set-up differs from the base run, seed
// groups are recognised only when nothing but the seed differs, the mean/band covers the steps
// every seed reached, and the charts' overlay rows line up several runs on one x axis.
import { describe, expect, it } from 'vitest';
import { configDiffLabel, differingKeys, meanBand, onlySeedsDiffer, shownRuns, type RunSetup } from '../../src/state/compare';
import { defaultConfig } from '../../src/state/launcher';
import { constantValue, overlayRows, seriesClass } from '../../src/ui/charts/overlay';
import type { GrpoConfig } from '../../src/loops/grpo/config';

function setup(over: Partial<Omit<GrpoConfig, 'rl'>> = {}, rl: Partial<GrpoConfig['rl']> = {}, policy = 'tiny'): RunSetup {
  const d = defaultConfig('grpo');
  return { loop: 'grpo', policy, config: { ...d, ...over, rl: { ...d.rl, ...rl } } };
}

describe('configDiffLabel', () => {
  it('says "same set-up" for identical set-ups', () => {
    expect(configDiffLabel(setup(), setup())).toBe('same set-up');
  });

  it('lists the other run\'s values where it differs, RL fields prefixed', () => {
    const base = setup({ seed: 1 });
    expect(configDiffLabel(base, setup({ seed: 4 }))).toBe('seed 4');
    expect(configDiffLabel(base, setup({ seed: 1, lr: 2e-4 }, { beta: 0.04 }))).toBe('lr 0.0002, rl.beta 0.04');
  });

  it('names a run of another loop by its loop (and policy), not by every field that differs', () => {
    const svs = { loop: 'svs', policy: 'tiny', config: defaultConfig('svs') };
    expect(configDiffLabel(setup(), svs)).toBe('SvS');
    expect(configDiffLabel(setup({}, {}, 'small'), svs)).toBe('SvS · tiny');
    expect(onlySeedsDiffer([setup({ seed: 1 }), { ...svs, config: { ...svs.config, seed: 2 } }])).toBe(false);
  });

  it('includes the policy and the loop when they differ, and nullable values as null', () => {
    expect(configDiffLabel(setup(), setup({}, {}, 'small'))).toBe('policy small');
    expect(configDiffLabel(setup({}, { dualClipC: 3 }), setup({}, { dualClipC: null }))).toBe('rl.dualClipC null');
  });

  it('is not symmetric: it names the other run\'s values', () => {
    const a = setup({ steps: 10 });
    const b = setup({ steps: 20 });
    expect(configDiffLabel(a, b)).toBe('steps 20');
    expect(configDiffLabel(b, a)).toBe('steps 10');
    expect(differingKeys(a, b)).toEqual(['steps']);
  });
});

describe('onlySeedsDiffer', () => {
  it('needs two or more runs with distinct seeds and nothing else different', () => {
    expect(onlySeedsDiffer([setup({ seed: 1 })])).toBe(false);
    expect(onlySeedsDiffer([setup({ seed: 1 }), setup({ seed: 2 }), setup({ seed: 3 })])).toBe(true);
    expect(onlySeedsDiffer([setup({ seed: 1 }), setup({ seed: 1 })])).toBe(false);
    expect(onlySeedsDiffer([setup({ seed: 1 }), setup({ seed: 2, lr: 1 })])).toBe(false);
    expect(onlySeedsDiffer([setup({ seed: 1 }), setup({ seed: 2 }, {}, 'small')])).toBe(false);
  });
});

describe('meanBand', () => {
  it('averages at the steps every series reports finitely, with min and max', () => {
    const b = meanBand([
      { xs: [1, 2, 3], ys: [1, 2, 3] },
      { xs: [1, 2, 3, 4], ys: [3, NaN, 5, 9] },
      { xs: [3, 1], ys: [4, 2] },
    ]);
    expect(b).toEqual([
      { x: 1, mean: 2, lo: 1, hi: 3 },
      { x: 3, mean: 4, lo: 3, hi: 5 },
    ]);
    expect(meanBand([])).toEqual([]);
  });
});

describe('shownRuns', () => {
  const run = (id: string, index: number, s: RunSetup) => ({ id, index, label: `#${index} GRPO · tiny`, ...s });
  const byId = { a: run('a', 1, setup({ seed: 1 })), b: run('b', 2, setup({ seed: 2 })), c: run('c', 3, setup({ seed: 1 }, { beta: 0.1 })) };
  const order = ['a', 'b', 'c'];

  it('shows the selected run alone until two runs are ticked', () => {
    expect(shownRuns(order, byId, ['b'], 'c')).toEqual({ runs: [{ run: byId.c, name: '#3 GRPO · tiny' }], seeds: false });
    expect(shownRuns(order, byId, [], null)).toEqual({ runs: [], seeds: false });
  });

  it('labels ticked runs by their difference from the first ticked, named with its loop, and spots seed groups', () => {
    const two = shownRuns(order, byId, ['b', 'a'], null);
    expect(two.runs.map((r) => r.name)).toEqual(['#2 GRPO · tiny · first ticked', '#1: seed 1']);
    expect(two.seeds).toBe(true);
    const three = shownRuns(order, byId, ['a', 'b', 'c'], 'a');
    expect(three.runs.map((r) => r.name)).toEqual(['#1 GRPO · tiny · first ticked', '#2: seed 2', '#3: rl.beta 0.1']);
    expect(three.seeds).toBe(false);
  });

  it('a run changed while it trained differs by more than its seed: labelled so, and no seed mean', () => {
    const live = (r: { id: string }) => (r.id === 'b' ? 'lr → 5e-5 at step 12' : null);
    const two = shownRuns(order, byId, ['a', 'b'], null, live);
    expect(two.runs.map((r) => r.name)).toEqual(['#1 GRPO · tiny · first ticked', '#2: seed 2; changed live: lr → 5e-5 at step 12']);
    expect(two.seeds).toBe(false);
    expect(shownRuns(order, byId, ['a', 'b'], null, () => null).seeds).toBe(true);
  });
});

describe('overlayRows', () => {
  it('merges series by x, each under its own key, with the band', () => {
    const rows = overlayRows(
      [[{ x: 1, y: 1, raw: 1 }, { x: 3, y: 3, raw: 3 }], [{ x: 2, y: 20, raw: 21 }, { x: 3, y: 30, raw: 30 }]],
      [{ x: 3, mean: 16.5, lo: 3, hi: 30 }],
    );
    expect(rows).toEqual([
      { x: 1, y0: 1, raw0: 1 },
      { x: 2, y1: 20, raw1: 21 },
      { x: 3, y0: 3, raw0: 3, y1: 30, raw1: 30, mean: 16.5, band: [3, 30] },
    ]);
    expect([seriesClass(0, 1), seriesClass(0, 2), seriesClass(7, 8)]).toEqual(['series-main', 'series-c0', 'series-c1']);
  });
});

describe('constantValue', () => {
  it('is the value every run reports at every step (two steps at least each), else null', () => {
    expect(constantValue([{ values: [0, 0, 0] }])).toBe(0);
    expect(constantValue([{ values: [1e-4, 1e-4] }, { values: [1e-4, NaN, 1e-4] }])).toBe(1e-4);
    expect(constantValue([{ values: [0, 0.01] }])).toBeNull();
    expect(constantValue([{ values: [0, 0] }, { values: [1, 1] }])).toBeNull();
    expect(constantValue([{ values: [0] }])).toBeNull(); // one step says nothing yet
    expect(constantValue([{ values: [0, 0] }, {}])).toBeNull(); // a run that does not report it
  });
});
