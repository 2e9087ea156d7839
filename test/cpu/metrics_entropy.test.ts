// The sampling entropy's token mean, response lengths and clip ratios.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { combineClipStats, meanEntropy, responseLengthStats } from '../../src/metrics/entropy';

describe('sampling entropy', () => {
  it('a token mean over every response token, summed in order; 0 for none', () => {
    const trajs = [{ entropy: new Float32Array([1, 2, 3]) }, { entropy: new Float32Array([]) }, { entropy: new Float32Array([4, 0.5]) }];
    expect(meanEntropy(trajs)).toBe((1 + 2 + 3 + 4 + 0.5) / 5);
    // a token mean, not a mean of per-response means ((2 + 2.25) / 2)
    expect(meanEntropy(trajs)).not.toBe((2 + 2.25) / 2);
    expect(meanEntropy([])).toBe(0);
    expect(meanEntropy([{ entropy: [] }])).toBe(0);
  });
});

describe('response lengths and clip ratios', () => {
  it('length stats with the truncated fraction', () => {
    const s = responseLengthStats([2, 4, 6, 8], [false, true, false, true]);
    expect(s).toEqual({ mean: 5, std: Math.sqrt(5), min: 2, max: 8, clipRatio: 0.5, count: 4 });
    expect(responseLengthStats([3]).clipRatio).toBe(0);
    expect(() => responseLengthStats([])).toThrow(/no responses/);
  });

  it('clip ratios combine weighted by tokens', () => {
    const c = combineClipStats([
      { tokens: 10, 'clip_ratio/low_mean': 0.1, 'clip_ratio/high_mean': 0.2, 'clip_ratio/dual_mean': 0 },
      { tokens: 30, 'clip_ratio/low_mean': 0.5, 'clip_ratio/high_mean': 0, 'clip_ratio/dual_mean': 0.1 },
    ]);
    expectClose('clip', [c['clip_ratio/low_mean'], c['clip_ratio/high_mean'], c['clip_ratio/dual_mean'], c['clip_ratio/region_mean']],
      [(1 + 15) / 40, 2 / 40, 3 / 40, (1 + 15 + 2) / 40], { atol: 1e-15, rtol: 0 });
    expect(c.tokens).toBe(40);
  });
});
