// What the explorer draws (src/explore/draw.ts, table.ts, axis.ts, gridUrl.ts): charts of every
// recorded metric, the registry's first and shared before own; bands by step over the seeds that
// reached each step, thinned by LTTB to the chart's width with the band kept at the same points;
// pass@k by k over seeds; the table sorted with unknown values last; the grid's form in the URL.
import { describe, expect, it } from 'vitest';
import { armEnd, armLine, armViews, chartDefs, heldoutView, kCurve, parallelLayout, splitBySeeds, thinBand, xOf } from '../../src/explore/draw';
import { niceTicks } from '../../src/explore/axis';
import { sortRows, tableRows } from '../../src/explore/table';
import { EMPTY_FORM } from '../../src/explore/grid';
import { formFromParam, formToParam, galleryPathOf, withGridParam } from '../../src/explore/gridUrl';
import { SWEEP_FORMAT, type Sweep, type SweepSeed } from '../../src/explore/format';
import { syntheticSweep } from '../../src/explore/synthetic';

const ev = (step: number, p1: number, correct?: number[]) => ({ type: 'eval' as const, step, set: 'e', passAtK: { '1': p1, '2': p1 + 0.1 }, majAtK: { '1': p1 }, meanEntropy: 1, ...(correct ? { n: 2, correct } : {}) });

function seed(s: number, reward: (number | null)[], extra: Record<string, (number | null)[]> = {}): SweepSeed {
  const step = reward.map((_, i) => i + 1);
  return {
    seed: s, start: ev(0, 0.2, [0, 1]), end: ev(step.length, 0.4 + s / 10, [1, 2]), steps: step.length, generatedTokens: 10 * step.length, seconds: step.length, report: {},
    series: { step, seconds: step.map(() => 2), tokens: step.map((i) => i * 10), metrics: { reward, ...extra } },
  };
}

function sweep(arms: { loop: string; seeds: SweepSeed[] }[]): Sweep {
  return {
    format: SWEEP_FORMAT, version: 1, title: 't', curvesRecorded: true,
    arms: arms.map((a, i) => ({ id: `arm${i + 1}`, label: `arm ${i + 1}`, knobs: {}, ablation: { loop: a.loop, base: 'small', config: {}, partial: false, results: a.seeds } })),
  };
}

describe('explore/draw', () => {
  it('an arm\'s band at each step uses the seeds that reached it; x by step, tokens or compute time', () => {
    const [a] = armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.1, 0.3, 0.5]), seed(2, [0.3, null])] }]));
    const line = armLine(a, 'reward', 'step', 'minmax');
    expect(line.map((p) => [p.step, p.mean, p.lo, p.hi, p.n])).toEqual([[1, 0.2, 0.1, 0.3, 2], [2, 0.3, 0.3, 0.3, 1], [3, 0.5, 0.5, 0.5, 1]]);
    expect(xOf(a.seeds[0], 'time')).toEqual([2, 4, 6]);
    expect(armLine(a, 'reward', 'tokens', 'se').map((p) => p.x)).toEqual([10, 20, 30]);
  });

  it('the line splits where the arm\'s seeds stop reaching: the tail (fewer seeds) starts at the last point all reach', () => {
    const [a] = armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.1, 0.3, 0.5, 0.7]), seed(2, [0.3, 0.1]), seed(3, [0.2, 0.2, 0.9])] }]));
    const { full, tail, seeds } = splitBySeeds(armLine(a, 'reward', 'step', 'se'));
    expect(seeds).toBe(3);
    expect(full.map((p) => [p.step, p.n])).toEqual([[1, 3], [2, 3]]);
    expect(splitBySeeds(armLine(a, 'reward', 'step', 'se')).head).toEqual([]);
    expect(tail.map((p) => [p.step, p.n])).toEqual([[2, 3], [3, 2], [4, 1]]);
    // every seed reaching the end: no tail; a NaN inside one seed does not start one (the seed is read across it)
    const [b] = armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.1, null, 0.5]), seed(2, [0.3, 0.1, 0.2])] }]));
    const whole = splitBySeeds(armLine(b, 'reward', 'step', 'se'));
    expect(whole.full.map((p) => p.n)).toEqual([2, 2, 2]);
    expect(whole.tail).toEqual([]);
    expect(armEnd(b, 'reward', 'step', 'se')).toBeNull();
    // seeds ending apart: the arm's end is every seed's last value at the mean of their last x
    const end = armEnd(a, 'reward', 'step', 'minmax')!;
    expect([end.x, end.mean, end.lo, end.hi, end.n]).toEqual([3, (0.7 + 0.1 + 0.9) / 3, 0.1, 0.9, 3]);
    // a metric only two of three seeds record: those two are the arm's full count
    const [c] = armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.1, 0.2], { m: [1, 2] }), seed(2, [0.1, 0.2], { m: [3, 4] }), seed(3, [0.1, 0.2])] }]));
    expect(splitBySeeds(armLine(c, 'm', 'step', 'se')).tail).toEqual([]);
    expect(splitBySeeds([])).toEqual({ head: [], full: [], tail: [], seeds: 0 });
    // by tokens, seeds start at different tokens too: the points before all have started are the head
    const pt = (x: number, n: number) => ({ step: x, x, mean: x, lo: x, hi: x, n });
    const split = splitBySeeds([pt(1, 1), pt(2, 2), pt(3, 3), pt(4, 2), pt(5, 3), pt(6, 1)]);
    expect([split.head, split.full, split.tail].map((part) => part.map((p) => p.x))).toEqual([[1, 2, 3], [3, 4, 5], [5, 6]]);
  });

  it('charts: the registry\'s shared charts, then a loop\'s own (named), then other recorded metrics; empty ones left out', () => {
    const arms = armViews(sweep([
      { loop: 'grpo', seeds: [seed(1, [0.1], { 'entropy/solve': [1], kl: [null], 'my/metric': [3] })] },
      { loop: 'svs', seeds: [seed(1, [0.2], { 'vps/leak': [0.1] })] },
    ]));
    const defs = chartDefs(arms);
    expect(defs.map((d) => [d.id, d.own])).toEqual([['reward', null], ['entropy', null], ['vps-leak', ['svs']], ['my-metric', null]]);
  });

  it('thinning keeps the first and last points and the band at the points kept', () => {
    const pts = Array.from({ length: 1000 }, (_, i) => ({ step: i + 1, x: i + 1, mean: Math.sin(i / 50), lo: Math.sin(i / 50) - 0.1, hi: Math.sin(i / 50) + 0.1, n: 3 }));
    const thin = thinBand(pts, 100);
    expect(thin).toHaveLength(100);
    expect(thin[0]).toBe(pts[0]);
    expect(thin[99]).toBe(pts[999]);
    expect(thin.every((p) => p.hi - p.lo === pts[p.step - 1].hi - pts[p.step - 1].lo)).toBe(true);
  });

  it('pass@k by k: the seeds\' mean with its standard error across seeds', () => {
    const [a] = armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.1]), seed(3, [0.2])] }]));
    const end = kCurve(a, 'end', 'pass');
    expect(end.map((p) => p.k)).toEqual([1, 2]);
    expect(end[0].mean).toBeCloseTo(0.6, 12);
    expect(end[0].se).toBeCloseTo(0.1, 12);
    expect(kCurve(a, 'start', 'maj')).toEqual([{ k: 1, mean: 0.2, se: 0, n: 2 }]);
  });

  it('the held-out set over training: each seed\'s evaluations as a series at their steps, tokens and compute time; pass@1, pass@K (largest k all report) and entropy', () => {
    const withEvals = (s: number, mid: number): SweepSeed => {
      const base = seed(s, [0.1, 0.2, 0.3, 0.4]);
      const e2 = { ...ev(2, mid), meanEntropy: 0.5 };
      return { ...base, evals: [base.start, e2, base.end] };
    };
    const arms = armViews(sweep([{ loop: 'grpo', seeds: [withEvals(1, 0.3), withEvals(2, 0.5)] }, { loop: 'grpo', seeds: [seed(1, [0.1, 0.2])] }]));
    const held = heldoutView(arms);
    expect(held.curves).toBe(true);
    expect(held.defs.map((d) => [d.id, d.key])).toEqual([['heldout-pass1', 'heldout/pass@1'], ['heldout-pass2', 'heldout/pass@2'], ['heldout-entropy', 'heldout/entropy']]);
    const [a, b] = held.arms;
    // steps 0, 2, 4 (the end); tokens at those steps from the step series (10 a step); time: training seconds between them (2 a step)
    expect(a.seeds[0].series).toEqual({ step: [0, 2, 4], tokens: [0, 20, 40], seconds: [0, 4, 4], metrics: { 'heldout/pass@1': [0.2, 0.3, 0.5], 'heldout/entropy': [1, 0.5, 1], 'heldout/pass@2': [0.30000000000000004, 0.4, 0.6] } });
    const line = armLine(a, 'heldout/pass@1', 'step', 'minmax');
    expect(line.map((p) => [p.x, +p.lo.toFixed(9), +p.hi.toFixed(9)])).toEqual([[0, 0.2, 0.2], [2, 0.3, 0.5], [4, 0.5, 0.6]]);
    expect(armLine(a, 'heldout/pass@1', 'tokens', 'se').map((p) => p.x)).toEqual([0, 20, 40]);
    expect(armLine(a, 'heldout/entropy', 'time', 'se').map((p) => p.x)).toEqual([0, 4, 8]);
    // an arm evaluated at the start and the end only: its two points
    expect(b.seeds[0].series!.step).toEqual([0, 2]);
    // no seed evaluated between start and end: no held-out curves to draw
    expect(heldoutView(armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.1])] }]))).curves).toBe(false);
  });

  it('the table sorts by a column, unknown values last either way', () => {
    const arms = armViews(sweep([{ loop: 'grpo', seeds: [seed(1, [0.5])] }, { loop: 'grpo', seeds: [seed(1, [null])] }, { loop: 'grpo', seeds: [seed(1, [0.9])] }]));
    const rows = tableRows(arms, ['reward'], 'arm1');
    expect(sortRows(rows, 'metric:reward', 'desc').map((r) => r.arm.id)).toEqual(['arm3', 'arm1', 'arm2']);
    expect(sortRows(rows, 'metric:reward', 'asc').map((r) => r.arm.id)).toEqual(['arm1', 'arm3', 'arm2']);
  });

  it('the bench\'s synthetic grid: 48 runs in 12 arms, 300 steps, 20 metrics', () => {
    const s = syntheticSweep();
    expect(s.arms).toHaveLength(12);
    expect(s.arms.flatMap((a) => a.ablation.results)).toHaveLength(48);
    expect(Object.keys(s.arms[0].ablation.results[0].series!.metrics)).toHaveLength(20);
    expect(s.arms[0].ablation.results[0].series!.step).toHaveLength(300);
  });
});

describe('explore/axis and gridUrl', () => {
  it('nice ticks at 1, 2, 2.5 or 5 × 10^k, the domain widened to them', () => {
    expect(niceTicks(0, 1, 4)).toEqual({ ticks: [0, 0.25, 0.5, 0.75, 1], lo: 0, hi: 1 });
    expect(niceTicks(3, 297, 5)).toEqual({ ticks: [0, 100, 200, 300], lo: 0, hi: 300 });
    expect(niceTicks(0.31, 0.31).ticks.length).toBeGreaterThan(1);
  });
  it('the form round-trips through the address; a bad parameter is reported and ignored', () => {
    const f = { knobs: [{ key: 'lr', values: '1e-4, 3e-5' }], seeds: '1, 2', control: null, concurrency: 1 };
    expect(formFromParam(formToParam(f))).toEqual({ form: f, warning: null });
    expect(formToParam(EMPTY_FORM)).toBeNull();
    expect(formFromParam('{"knobs":[{"key":"lr"}],"seeds":"1","control":null,"concurrency":null}')).toEqual({ form: EMPTY_FORM, warning: expect.stringMatching(/^grid: knobs\.0\.values: /) as unknown });
    expect(withGridParam('?seed=3&debug', f)).toBe(`?seed=3&debug=&grid=${encodeURIComponent(JSON.stringify(f)).replace(/%20/g, '+')}`);
    expect(galleryPathOf('gallery/svs-leak.json')).toEqual({ path: 'gallery/svs-leak.json', warning: null });
    expect(galleryPathOf('../secret.json').path).toBeNull();
    expect(galleryPathOf('https://x.org/a.json').warning).toMatch(/gallery\/<name>\.json/);
  });
});

describe('parallel coordinates: the axes\' layout', () => {
  // the title spans [x − half, x + half] at 6.5 px a character, as the layout assumes
  const spans = (titles: string[], width: number) => {
    const l = parallelLayout(titles, width);
    return { l, s: titles.map((t, j) => ({ lo: l.xs[j] - (t.length * 6.5) / 2, hi: l.xs[j] + (t.length * 6.5) / 2, row: l.titleY[j] })) };
  };
  it('keeps every title inside the figure and apart from its neighbour on the same line, long end titles included', () => {
    const titles = ['lr', 'trainProblems', 'steps', 'pass@1 (end)', 'pass@1 change', 'reward (end)', 'entropy/solve (end)', 'completions/mean_length (end)'];
    for (const width of [400, 900, 1170, 2000]) {
      const { l, s } = spans(titles, width);
      expect(l.w).toBeGreaterThanOrEqual(width);
      expect(s[0].lo).toBeGreaterThanOrEqual(0);
      expect(s[s.length - 1].hi).toBeLessThanOrEqual(l.w - 4);
      for (let i = 0; i < s.length; i++) for (let j = i + 1; j < s.length; j++) if (s[i].row === s[j].row) expect(s[i].hi < s[j].lo, `${titles[i]} and ${titles[j]} at ${width} px`).toBe(true);
      // the axes are in order, at least 110 px apart
      for (let j = 1; j < l.xs.length; j++) expect(l.xs[j] - l.xs[j - 1]).toBeGreaterThanOrEqual(110 - 1e-9);
    }
  });
  it('staggers the titles only where neighbours would meet, and then starts the plot lower', () => {
    const short = parallelLayout(['lr', 'seed', 'pass@1 (end)'], 1000);
    expect(new Set(short.titleY).size).toBe(1);
    expect(short.top).toBe(22);
    const long = parallelLayout(['entropy/solve (end)', 'completions/mean_length (end)', 'reward (end)'], 300);
    expect(long.titleY).toEqual([12, 26, 12]);
    expect(long.top).toBeGreaterThan(26);
  });
});
