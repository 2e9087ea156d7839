// Entropy per role and data type, response lengths, clip ratios, concept coverage and topic mix.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { combineClipStats, entropyByGroup, entropyByGroupPacked, responseLengthStats } from '../../src/metrics/entropy';
import { ConceptCoverage, tagMix, topicMix, TOPIC_KEYS } from '../../src/metrics/coverage';
import { conceptKey, conceptsOf, parseExpr } from '../../src/world';

const concepts = (text: string) => {
  const r = parseExpr(text);
  if (!r.ok) throw new Error(`bad test problem ${text}`);
  return conceptsOf(r.expr);
};

describe('entropy aggregation', () => {
  const records = [
    { role: 'solve', dataType: 'oqa', entropy: [1, 2, 3] }, // sum 6, 3 tokens
    { role: 'solve', dataType: 'vps', entropy: [4, 100], mask: [1, 0] }, // sum 4, 1 token
    { role: 'vary', entropy: [0.5, 0.5, 2, 1], mask: [1, 1, 1, 0] }, // sum 3, 3 tokens
  ];

  it('token means by hand: overall, per role, per data type', () => {
    const r = entropyByGroup(records);
    expect(r.all).toEqual({ mean: 13 / 7, tokens: 7 });
    expect(r.byRole).toEqual({ solve: { mean: 10 / 4, tokens: 4 }, vary: { mean: 1, tokens: 3 } });
    expect(r.byDataType).toEqual({ oqa: { mean: 2, tokens: 3 }, vps: { mean: 4, tokens: 1 } });
  });

  it('a group with no counted tokens has mean NaN, not 0', () => {
    const r = entropyByGroup([{ role: 'teach', entropy: [3], mask: [0] }]);
    expect(r.byRole.teach.tokens).toBe(0);
    expect(r.byRole.teach.mean).toBeNaN();
    expect(() => entropyByGroup([{ role: 'x', entropy: [1, 2], mask: [1] }])).toThrow(/mask/);
  });

  it('the packed [B, T] form agrees; padding rows are ignored', () => {
    const T = 4;
    const entropy = new Float32Array(3 * T), mask = new Float32Array(3 * T);
    records.forEach((rec, b) => rec.entropy.forEach((h, t) => {
      entropy[b * T + t] = h;
      mask[b * T + t] = rec.mask ? rec.mask[t] : 1;
    }));
    const padded = new Float32Array(4 * T).fill(9);
    padded.set(entropy);
    const maskPadded = new Float32Array(4 * T).fill(1);
    maskPadded.set(mask);
    const r = entropyByGroupPacked(padded, maskPadded, T, records);
    expect(r).toEqual(entropyByGroup(records));
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

describe('concept coverage and topic mix', () => {
  it('counts unique concept keys as they appear', () => {
    const cov = new ConceptCoverage();
    expect(cov.add([concepts('1+2'), concepts('3+4')], 0)).toBe(1); // same key: ops1 + d1 n0 small
    expect(cov.add([concepts('3*4'), concepts('1+2'), concepts('min(1,2)+3')], 1)).toBe(2);
    expect(cov.unique).toBe(3);
    expect(cov.history).toEqual([{ step: 0, unique: 1 }, { step: 1, unique: 3 }]);
    expect(cov.keys().map((k) => k.step)).toEqual([0, 1, 1]);
    expect(cov.keys()[0].key).toBe(conceptKey(concepts('1+2')));
    expect(cov.has(concepts('9+9'))).toBe(true);
  });

  it('topic mix by full key and by operation count; tag mix', () => {
    const items = ['1+2', '3+4', '3*4', '(1+2)*3'].map(concepts);
    const full = topicMix(items);
    expect(full[0]).toEqual({ key: conceptKey(items[0]), count: 2, fraction: 0.5 });
    expect(full.reduce((s, t) => s + t.fraction, 0)).toBeCloseTo(1, 15);
    expect(topicMix(items, TOPIC_KEYS.ops)).toEqual([
      { key: 'ops1', count: 3, fraction: 0.75 },
      { key: 'ops2', count: 1, fraction: 0.25 },
    ]);
    const tags = tagMix(items);
    expect(tags.add).toBe(0.75);
    expect(tags.mul).toBe(0.5);
    expect(tags.nest).toBe(0.25);
    expect(tags.min).toBe(0);
  });
});
