// Run export and chart data: CSV cells are guarded against formula injection and quoted where
// needed; run data appends chunks column-wise; smoothing and thinning keep what a chart needs.
import { describe, expect, it } from 'vitest';
import { csvCell, metricsCsv } from '../../src/state/files/csv';
import { runFile } from '../../src/state/files/exportRun';
import { appendChunk, EMPTY_RUN_DATA, MAX_SAMPLE_EVENTS, type RunChunk } from '../../src/state/runData';
import { chartSeries, lttb, smooth } from '../../src/state/charts/series';
import { defaultConfig } from '../../src/state/launcher';

describe('CSV cells', () => {
  it('prefixes text that a spreadsheet would run as a formula with a quote', () => {
    expect(csvCell('=1+2')).toBe("'=1+2");
    expect(csvCell('+cmd')).toBe("'+cmd");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
  });

  it('quotes separators, quotes and line breaks (after the formula guard)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("x","y")')).toBe('"\'=HYPERLINK(""x"",""y"")"');
    expect(csvCell('clip_ratio/low_mean')).toBe('clip_ratio/low_mean');
  });

  it('writes numbers as numbers (a negative value is data, not a formula) and empty cells for missing ones', () => {
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell(1e-4)).toBe('0.0001');
    expect(csvCell(NaN)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(Infinity)).toBe('Infinity');
  });

  it('exports one row per step with every metric', () => {
    const csv = metricsCsv({ step: [1, 2], seconds: [0.5, 0.25], series: { reward: [0, 1], '=evil': [NaN, -3] } });
    expect(csv).toBe("step,seconds,reward,'=evil\r\n1,0.5,0,\r\n2,0.25,1,-3\r\n");
  });

  it('puts each evaluation\'s pass@k on its step\'s row, the start\'s on a row of its own', () => {
    const csv = metricsCsv({
      step: [1, 2], seconds: [0.5, 0.25], series: { reward: [0, 1] },
      evals: [{ step: 0, passAtK: { '1': 0.25, '4': 0.5, '16': 0.75 } }, { step: 2, passAtK: { '1': 0.375, '4': 0.625, '16': 0.8125 } }],
    });
    expect(csv).toBe('step,seconds,reward,eval_pass@1,eval_pass@4,eval_pass@16\r\n0,,,0.25,0.5,0.75\r\n1,0.5,0,,,\r\n2,0.25,1,0.375,0.625,0.8125\r\n');
  });
});

const chunk = (steps: number[], keys: string[], metrics: number[], extra: Partial<RunChunk> = {}): RunChunk => ({
  step: steps, seconds: steps.map(() => 1), keys, metrics, samples: [], evals: [], ...extra,
});

describe('run data', () => {
  it('appends chunks column-wise, NaN-filling metrics a chunk lacks or a new metric had before', () => {
    let d = appendChunk(EMPTY_RUN_DATA, chunk([1, 2], ['reward'], [0, 1]));
    d = appendChunk(d, chunk([3], ['entropy', 'reward'], [2, 0.5]));
    expect(d.step).toEqual([1, 2, 3]);
    expect(d.series.reward).toEqual([0, 1, 0.5]);
    expect(d.series.entropy).toEqual([NaN, NaN, 2]);
    expect(() => appendChunk(d, chunk([4], ['a', 'b'], [1]))).toThrow(/2 metric values/);
    expect(EMPTY_RUN_DATA.step).toEqual([]);
  });

  it('keeps only the most recent samples events', () => {
    let d = EMPTY_RUN_DATA;
    for (let s = 1; s <= MAX_SAMPLE_EVENTS + 5; s++) d = appendChunk(d, chunk([], [], [], { samples: [{ type: 'samples', step: s, samples: [] }] }));
    expect(d.samples.map((e) => e.step)[0]).toBe(6);
    expect(d.samples).toHaveLength(MAX_SAMPLE_EVENTS);
  });

  it('exports JSON with the config and null for missing values', () => {
    const data = appendChunk(EMPTY_RUN_DATA, chunk([1, 2], ['reward', 'kl'], [1, NaN, 0, 0.1]));
    const status = { state: 'done' as const, step: 2, totalSteps: 2, stepsPerS: 1, etaS: 0, error: null };
    const run = { id: 'x', index: 2, label: '#2 GRPO · tiny', diff: '', loop: 'grpo', policy: 'tiny', config: defaultConfig('grpo'), createdAt: Date.UTC(2025, 0, 2, 3, 4, 5), status, data };
    const f = runFile(run, 'json');
    expect(f.filename).toBe('rlvr-lab-run-2-grpo-tiny-2025-01-02-03-04-05.json');
    const back = JSON.parse(f.text) as { config: { rl: { clipHigh: number } }; metrics: { series: Record<string, unknown> } };
    expect(back.config.rl.clipHigh).toBe(0.28);
    expect(back.metrics.series.kl).toEqual([null, 0.1]);
    expect(runFile(run, 'csv').text.split('\r\n')[0]).toBe('step,seconds,reward,kl');
  });
});

describe('chart series', () => {
  it('smooths with a debiased EMA (the first value is kept)', () => {
    expect(smooth([1, 1, 1], 0.9)).toEqual([1, 1, 1].map(() => expect.closeTo(1, 12) as unknown));
    const s = smooth([0, 10], 0.5);
    expect(s[0]).toBe(0);
    expect(s[1]).toBeCloseTo((0.5 * 0 * 0.5 + 0.5 * 10) / (1 - 0.25), 12);
    expect(() => smooth([1], 1)).toThrow(RangeError);
  });

  it('thins to the width, keeping the first, the last and a spike', () => {
    const pts = Array.from({ length: 1000 }, (_, i) => ({ x: i, y: i === 500 ? 100 : Math.sin(i / 50) }));
    const out = lttb(pts, 100);
    expect(out).toHaveLength(100);
    expect(out[0]).toEqual(pts[0]);
    expect(out[99]).toEqual(pts[999]);
    expect(out.some((p) => p.y === 100)).toBe(true);
  });

  it('drops missing values, and non-positive ones on a log axis', () => {
    const xs = [1, 2, 3, 4];
    const ys = [0, NaN, 2, 4];
    expect(chartSeries(xs, ys, { smoothing: 0, log: false, width: 300 })).toEqual([{ x: 1, y: 0, raw: 0 }, { x: 3, y: 2, raw: 2 }, { x: 4, y: 4, raw: 4 }]);
    expect(chartSeries(xs, ys, { smoothing: 0, log: true, width: 300 }).map((p) => p.x)).toEqual([3, 4]);
    expect(chartSeries(Array.from({ length: 500 }, (_, i) => i), Array.from({ length: 500 }, () => 1), { smoothing: 0, log: false, width: 120 })).toHaveLength(120);
  });
});
