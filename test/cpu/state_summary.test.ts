// A finished run's summary line: compute, reward and entropy at both ends, pass@k first → last.
import { describe, expect, it } from 'vitest';
import { endsText, runSummary } from '../../src/state/summary';
import { EMPTY_RUN_DATA, type RunData } from '../../src/state/runData';

const evalAt = (step: number, p1: number, p8: number) => ({ type: 'eval' as const, step, set: 'e', passAtK: { '1': p1, '2': p1, '8': p8 }, avgAtK: {}, majAtK: {}, meanEntropy: 0, meanLength: 0, histogram: [] });

describe('runSummary', () => {
  it('averages the first and last five steps, and takes the first and last evaluations', () => {
    const steps = Array.from({ length: 12 }, (_, i) => i + 1);
    const d: RunData = {
      ...EMPTY_RUN_DATA, step: steps, seconds: steps.map(() => 2),
      series: { reward: steps.map((s) => s / 10), 'entropy/solve': steps.map((s) => (s === 3 ? NaN : 1 - s / 100)) },
      evals: [evalAt(0, 0.25, 0.75), evalAt(6, 0.3, 0.7), evalAt(12, 0.5, 0.625)],
    };
    const s = runSummary(d);
    expect(s.steps).toBe(12);
    expect(s.seconds).toBe(24);
    expect(s.reward!.from).toBeCloseTo(0.3, 12); // steps 1–5
    expect(s.reward!.to).toBeCloseTo(1.0, 12); // steps 8–12
    expect(s.entropy!.from).toBeCloseTo(1 - (1 + 2 + 4 + 5 + 6) / 500, 12); // the NaN of step 3 skipped
    expect(s.pass1).toEqual({ from: 0.25, to: 0.5, fromStep: 0, toStep: 12 });
    expect(s.passMax).toEqual({ k: '8', from: 0.75, to: 0.625 });
  });

  it('a run of fewer than ten steps averages its halves, which never overlap, and says so', () => {
    const steps = [1, 2, 3, 4, 5, 6, 7];
    const s = runSummary({ ...EMPTY_RUN_DATA, step: steps, seconds: steps.map(() => 1), series: { reward: [0, 0, 0, 1, 1, 1, 1] }, evals: [] });
    // steps 1–3 and 5–7 (the middle step in neither)
    expect(s.reward).toEqual({ from: 0, to: 1, window: 3, of: 7 });
    expect(endsText(s.reward!)).toBe('first and last 3 of 7 steps');
    const one = runSummary({ ...EMPTY_RUN_DATA, step: [1], seconds: [1], series: { reward: [0.5] }, evals: [] });
    expect(one.reward).toEqual({ from: 0.5, to: 0.5, window: 0, of: 1 });
    expect(endsText(one.reward!)).toBe('one step');
    const long = runSummary({ ...EMPTY_RUN_DATA, step: [1], seconds: [1], series: { reward: Array.from({ length: 10 }, (_, i) => i) }, evals: [] });
    expect(endsText(long.reward!)).toBe('first and last 5 steps');
  });

  it('says nothing it has no data for', () => {
    const s = runSummary({ ...EMPTY_RUN_DATA, step: [1], seconds: [1], series: {}, evals: [evalAt(0, 0.1, 0.2)] });
    expect(s).toMatchObject({ reward: null, entropy: null, pass1: null, passMax: null });
  });
});
