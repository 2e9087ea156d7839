import { describe, expect, it } from 'vitest';
import {
  armBand, armPassAtK, assertOneArm, bandOf, bootstrapInterval, configDiff, isEffect, meanSe, pairedDifference, seedDifference, type SeedSeries,
} from '../../src/metrics/bands';

describe('metrics/bands: means, standard errors and bands across seeds', () => {
  it('meanSe by hand: [1, 2, 4] has mean 7/3 and s.e. sqrt(((4/3)^2+(1/3)^2+(5/3)^2)/2/3)', () => {
    const r = meanSe([1, 2, 4]);
    expect(r.mean).toBeCloseTo(7 / 3, 12);
    expect(r.se).toBeCloseTo(Math.sqrt((16 / 9 + 1 / 9 + 25 / 9) / 2 / 3), 12);
    expect(r.n).toBe(3);
  });
  it('one seed: s.e. 0 and the band collapses on the value; none: NaN', () => {
    expect(meanSe([0.5])).toEqual({ mean: 0.5, se: 0, n: 1 });
    expect(bandOf([0.5], 'se')).toEqual({ mean: 0.5, lo: 0.5, hi: 0.5, n: 1 });
    expect(bandOf([0.5], 'bootstrap')).toEqual({ mean: 0.5, lo: 0.5, hi: 0.5, n: 1 });
    expect(meanSe([]).n).toBe(0);
    expect(Number.isNaN(meanSe([]).mean)).toBe(true);
  });
  it('NaN, null and undefined are left out, not counted as 0', () => {
    expect(meanSe([1, NaN, 3, null, undefined])).toEqual(meanSe([1, 3]));
    expect(bandOf([1, NaN, 3], 'minmax')).toEqual({ mean: 2, lo: 1, hi: 3, n: 2 });
  });
  it('the band kinds: se = mean ± s.e., minmax = the extremes', () => {
    const se = meanSe([1, 2, 4]).se;
    const b = bandOf([1, 2, 4], 'se');
    expect(b.lo).toBeCloseTo(7 / 3 - se, 12);
    expect(b.hi).toBeCloseTo(7 / 3 + se, 12);
    expect(bandOf([1, 2, 4], 'minmax')).toMatchObject({ lo: 1, hi: 4 });
  });
  it('the bootstrap interval is seeded (same seed, same interval), inside min–max, around the mean', () => {
    const xs = [0.1, 0.4, 0.35, 0.2, 0.5];
    const a = bootstrapInterval(xs, 7), b = bootstrapInterval(xs, 7), c = bootstrapInterval(xs, 8);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.lo).toBeGreaterThanOrEqual(0.1);
    expect(a.hi).toBeLessThanOrEqual(0.5);
    expect(a.lo).toBeLessThan(0.31);
    expect(a.hi).toBeGreaterThan(0.31);
    // two values {0, 1}: resample means are 0, .5 or 1 with probabilities 1/4, 1/2, 1/4
    const two = bootstrapInterval([0, 1], 3);
    expect(two).toEqual({ lo: 0, hi: 1 });
  });
});

describe('metrics/bands: an arm along the x-axis', () => {
  it('seeds of unequal length (a halted seed): each point uses the seeds that span it, and says how many', () => {
    const seeds: SeedSeries[] = [
      { x: [1, 2, 3, 4], y: [1, 2, 3, 4] },
      { x: [1, 2], y: [3, 4] }, // halted after step 2
    ];
    const band = armBand(seeds, 'se');
    expect(band.map((p) => p.x)).toEqual([1, 2, 3, 4]);
    expect(band.map((p) => p.n)).toEqual([2, 2, 1, 1]);
    expect(band.map((p) => p.mean)).toEqual([2, 3, 3, 4]);
    expect(band[0].hi - band[0].mean).toBeCloseTo(1, 12); // s.e. of {1, 3} = sqrt(2)/sqrt(2) = 1
    expect(band[2]).toMatchObject({ lo: 3, hi: 3 });
  });
  it('by tokens: seeds that spend different tokens a step are read at the same tokens, on the straight line between their points', () => {
    // seed A: 10 tokens a step; seed B: 20 a step
    const band = armBand([{ x: [10, 20, 30, 40], y: [0, 1, 2, 3] }, { x: [20, 40], y: [10, 20] }], 'minmax');
    expect(band.map((p) => p.x)).toEqual([10, 20, 30, 40]);
    // at 10 only A spans; at 30 B is halfway between its 20 and 40: 15
    expect(band.map((p) => [p.n, p.lo, p.hi])).toEqual([[1, 0, 0], [2, 1, 10], [2, 2, 15], [2, 3, 20]]);
  });
  it('a NaN is left out: the seed is read across it from its neighbours, and not past its last value', () => {
    const band = armBand([{ x: [1, 2, 3], y: [NaN, 2, 4] }, { x: [1, 2, 3, 4], y: [4, NaN, 6, 8] }], 'minmax');
    expect(band.map((p) => [p.x, p.n, p.lo, p.hi])).toEqual([[1, 1, 4, 4], [2, 2, 2, 5], [3, 2, 4, 6], [4, 1, 8, 8]]);
  });
  it('an x repeated in one seed keeps its last value; a seed with no values is no seed', () => {
    const band = armBand([{ x: [1, 1, 2], y: [5, 7, 9] }, { x: [1, 2], y: [NaN, NaN] }], 'se');
    expect(band.map((p) => [p.x, p.mean, p.n])).toEqual([[1, 7, 1], [2, 9, 1]]);
    expect(armBand([], 'se')).toEqual([]);
  });
});

describe('metrics/bands: pass@k of arms and differences paired by problem', () => {
  // two problems, n = 4: pass@1 = c/4
  const e = (c: number[]) => ({ n: 4, correct: c });
  it('an arm\'s pass@1: the seeds\' means over problems, with their s.e.', () => {
    const r = armPassAtK([e([4, 0]), e([2, 2])], 1);
    expect(r.mean).toBeCloseTo(0.5, 12);
    expect(r.se).toBe(0);
    const r2 = armPassAtK([e([4, 4]), e([0, 0])], 1);
    expect(r2).toMatchObject({ mean: 0.5, n: 2 });
    expect(r2.se).toBeCloseTo(0.5, 12);
  });
  it('pass@2 per problem is the unbiased estimator: n=4, c=1 → 1 − C(3,2)/C(4,2) = 0.5', () => {
    expect(armPassAtK([e([1, 0])], 2).mean).toBeCloseTo(0.25, 12);
  });
  it('the paired difference by hand: per-problem differences [0.5, 0.25, 0] → mean 0.25, s.e. 0.25/√3', () => {
    const a = [{ n: 4, correct: [4, 2, 1] }], b = [{ n: 4, correct: [2, 1, 1] }];
    const d = pairedDifference(a, b, 1);
    expect(d.mean).toBeCloseTo(0.25, 12);
    expect(d.se).toBeCloseTo(0.25 / Math.sqrt(3), 12);
    expect(d.problems).toBe(3);
    expect(d.perSeed).toHaveLength(1);
    expect(d.withinTwoSe).toBe(true); // 0.25 < 2 × 0.144
  });
  it('pairing by problem: a constant shift is detected however the problems spread', () => {
    const a = [e([4, 1]), e([4, 1])], b = [e([3, 0]), e([3, 0])];
    const d = pairedDifference(a, b, 1);
    expect(d.mean).toBeCloseTo(0.25, 12);
    expect(d.se).toBe(0);
    expect(d.withinTwoSe).toBe(false);
    expect(d.perSeed).toEqual([0.25, 0.25]);
    expect(isEffect(d)).toBe(true);
  });
  it('the effect rule needs the same sign in two seeds', () => {
    expect(isEffect({ mean: 0.2, se: 0.01, problems: 10, perSeed: [0.3, -0.1], withinTwoSe: false })).toBe(false);
    expect(isEffect({ mean: 0.2, se: 0.01, problems: 10, perSeed: [0.3, 0.1, -0.1], withinTwoSe: false })).toBe(true);
  });
  it('a difference on one problem a seed takes the seeds as its units, for the same rule', () => {
    const d = seedDifference([0.1, 0.2, 0.3]);
    expect(d.mean).toBeCloseTo(0.2, 12);
    expect(d.se).toBeCloseTo(0.1 / Math.sqrt(3), 12);
    expect(d).toMatchObject({ problems: 1, perSeed: [0.1, 0.2, 0.3], withinTwoSe: false });
    expect(isEffect(d)).toBe(true);
    // within two s.e. (the seeds disagree) is no effect, whatever the mean
    const split = seedDifference([0.3, -0.1, 0.1]);
    expect(split.withinTwoSe).toBe(true);
    expect(isEffect(split)).toBe(false);
  });
  it('refuses evaluations of different problems, and a side with none is NaN', () => {
    expect(() => pairedDifference([e([1, 2])], [{ n: 4, correct: [1] }], 1)).toThrow(/same problems/);
    expect(Number.isNaN(pairedDifference([], [e([1, 1])], 1).mean)).toBe(true);
  });
});

describe('metrics/bands: runs that differ in more than the seed are never one arm', () => {
  const c = (seed: number, lr: number) => ({ seed, steps: 10, rl: { lr, clipLow: 0.2 } });
  it('configDiff walks nested objects', () => {
    expect(configDiff(c(1, 1e-4), c(2, 3e-5))).toEqual(['rl.lr', 'seed']);
  });
  it('seeds only: accepted; another knob: refused naming it', () => {
    expect(() => assertOneArm('A', [c(1, 1e-4), c(2, 1e-4), c(3, 1e-4)])).not.toThrow();
    expect(() => assertOneArm('A', [c(1, 1e-4), c(2, 3e-5)])).toThrow(/arm A: its runs differ in rl.lr/);
    expect(() => assertOneArm('ctl', [{ seed: 1, tokenBudget: 10 }, { seed: 2, tokenBudget: 12 }], ['seed', 'tokenBudget'])).not.toThrow();
  });
});
