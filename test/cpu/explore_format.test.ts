import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergeSweeps, readSweepText, SweepFileError, sweepText, MAX_SWEEP_FILE_BYTES } from '../../src/explore/format';

const runsDir = new URL('../../docs/runs/', import.meta.url);
const ablationFiles = readdirSync(runsDir).filter((f) => f.endsWith('.json'));

const evalAt = (step: number, c: number[]) => ({ type: 'eval', step, set: 'eval-mixed', passAtK: { '1': 0.5, '2': 0.7 }, meanEntropy: 0.3, n: 4, correct: c });
const ablation = () => ({
  format: 'rlvr-lab.ablation', version: 2, command: 'npm run ablate -- --loop grpo', loop: 'grpo', base: 'public/models/small', config: { steps: 2 }, partial: false,
  results: [{
    seed: 1, start: evalAt(0, [1, 2]), end: evalAt(2, [3, 2]), steps: 2, generatedTokens: 100, seconds: 3, report: { reward: 0.5, kl: null },
    series: { step: [1, 2], seconds: [1.5, 1.5], tokens: [50, 100], metrics: { reward: [0.25, null], 'entropy/solve': [0.3, 0.29] } },
    evals: [evalAt(0, [1, 2]), evalAt(2, [3, 2])],
  }],
});

describe('explore/format: ablations and sweeps in one format', () => {
  it('reads every ablation the lab saved in docs/runs (version 1: summaries only; 2: with series) as a one-arm sweep', () => {
    expect(ablationFiles.length).toBeGreaterThan(10);
    for (const f of ablationFiles) {
      const s = readSweepText(f, readFileSync(new URL(f, runsDir), 'utf8'));
      expect(s.arms).toHaveLength(1);
      // version 1 (no format field) kept summaries only; version 2 keeps every seed's step series
      const v2 = (JSON.parse(readFileSync(new URL(f, runsDir), 'utf8')) as { format?: unknown }).format === 'rlvr-lab.ablation';
      expect(s.curvesRecorded, f).toBe(v2);
      expect(s.arms[0].ablation.results.length).toBeGreaterThan(0);
    }
  });
  it('a version-2 ablation keeps its series; the sweep written and read back is the same', () => {
    const s = readSweepText('a.json', JSON.stringify(ablation()));
    expect(s.curvesRecorded).toBe(true);
    expect(s.arms[0].ablation.results[0].series?.metrics.reward).toEqual([0.25, null]);
    expect(readSweepText('b.json', sweepText(s))).toEqual(s);
  });
  it('merges files into arms in the order given', () => {
    const a = readSweepText('lr1e-4.json', JSON.stringify(ablation()));
    const b = readSweepText('lr3e-5.json', JSON.stringify({ ...ablation(), loop: 'svs' }));
    const m = mergeSweeps('two', [a, b]);
    expect(m.arms.map((x) => [x.id, x.label])).toEqual([['arm1', 'grpo · lr1e-4'], ['arm2', 'svs · lr3e-5']]);
  });
  const refused = (body: string) => {
    try {
      readSweepText('x.json', body);
    } catch (e) {
      expect(e).toBeInstanceOf(SweepFileError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  };
  it('refuses malformed files naming the field path', () => {
    expect(refused('{')).toMatch(/^x.json: not JSON/);
    const bad = ablation();
    (bad.results[0] as { seed: unknown }).seed = 'one';
    expect(refused(JSON.stringify(bad))).toMatch(/^x.json: results\[0\]\.seed: .*got "one"/);
    const ragged = ablation();
    ragged.results[0].series.metrics.reward = [1];
    expect(refused(JSON.stringify(ragged))).toMatch(/results\[0\]\.series: every series has one value per step/);
    expect(refused(JSON.stringify({ format: 'rlvr-lab.sweep', version: 9, title: 't', curvesRecorded: true, arms: [] }))).toMatch(/version/);
    expect(refused(JSON.stringify({ ...ablation(), results: [] }))).toMatch(/results/);
  });
  it('refuses an oversized file before parsing it, and cuts echoed values', () => {
    expect(refused(' '.repeat(MAX_SWEEP_FILE_BYTES + 1))).toMatch(/at most 64 MB/);
    const long = ablation();
    (long as { loop: unknown }).loop = 7;
    (long.results[0] as { seed: unknown }).seed = 'x'.repeat(500);
    const msg = refused(JSON.stringify(long));
    expect(msg.length).toBeLessThan(300);
  });
});

describe('explore/series: step metrics recorded as aligned columns', () => {
  it('a metric first reported late, or missing at a step, holds null there; NaN becomes null', async () => {
    const { SeriesRecorder } = await import('../../src/explore/series');
    const r = new SeriesRecorder();
    r.add(1, 1.5, 10, { reward: 0.5 });
    r.add(2, 1.5, 20, { reward: 0.6, kl: 0.01 });
    r.add(3, NaN, 30, { kl: NaN });
    expect(r.toJSON()).toEqual({ step: [1, 2, 3], seconds: [1.5, 1.5, null], tokens: [10, 20, 30], metrics: { reward: [0.5, 0.6, null], kl: [null, 0.01, null] } });
  });
});
