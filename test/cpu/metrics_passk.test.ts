// pass@k, avg@k and maj@k against brute-force enumeration of every k-subset of the samples.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../helpers/rng';
import { expectClose } from '../helpers/tolerance';
import {
  accuracyHistogram, avgAtK, binomial, majAtK, meanAvgAtK, meanMajAtK, meanPassAtK, passAtK, type AnswerKey,
} from '../../src/metrics/passk';

function* subsets(n: number, k: number, start = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) {
    yield acc;
    return;
  }
  for (let i = start; i <= n - (k - acc.length); i++) yield* subsets(n, k, i + 1, [...acc, i]);
}

function passBrute(n: number, c: number, k: number): number {
  let hit = 0, all = 0;
  for (const s of subsets(n, k)) {
    all++;
    if (s.some((i) => i < c)) hit++; // samples 0..c-1 are the correct ones
  }
  return hit / all;
}

function majBrute(answers: readonly (AnswerKey | null)[], gold: AnswerKey, k: number): number {
  let score = 0, all = 0;
  for (const s of subsets(answers.length, k)) {
    all++;
    const counts = new Map<AnswerKey, number>();
    for (const i of s) if (answers[i] !== null) counts.set(answers[i]!, (counts.get(answers[i]!) ?? 0) + 1);
    if (counts.size === 0) continue;
    const top = Math.max(...counts.values());
    const tied = [...counts.entries()].filter(([, m]) => m === top).map(([a]) => a);
    if (tied.includes(gold)) score += 1 / tied.length;
  }
  return score / all;
}

describe('pass@k', () => {
  it('known values', () => {
    expectClose('n=10 c=3 k=1', [passAtK(10, 3, 1)], [0.3], { atol: 1e-15, rtol: 0 });
    expect(passAtK(10, 0, 5)).toBe(0);
    expect(passAtK(10, 6, 5)).toBe(1); // n − c = 4 < k
    expect(passAtK(4, 4, 4)).toBe(1);
    expectClose('n=10 c=3 k=2', [passAtK(10, 3, 2)], [1 - (7 * 6) / (10 * 9)], { atol: 1e-15, rtol: 0 });
  });

  it('equals brute force over every k-subset, n ≤ 9', () => {
    for (let n = 1; n <= 9; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= n; k++) {
      expectClose(`n=${n} c=${c} k=${k}`, [passAtK(n, c, k)], [passBrute(n, c, k)], { atol: 1e-13, rtol: 0 });
    }
  });

  it('is stable for large n (no huge binomials)', () => {
    // 1 − C(1000−3, 500)/C(1000, 500) = 1 − (500·499·498)/(1000·999·998)
    const want = 1 - (500 * 499 * 498) / (1000 * 999 * 998);
    expectClose('n=1000 c=3 k=500', [passAtK(1000, 3, 500)], [want], { atol: 1e-14, rtol: 0 });
  });

  it('rejects bad counts', () => {
    expect(() => passAtK(4, 5, 1)).toThrow(/c must be/);
    expect(() => passAtK(4, 1, 5)).toThrow(/k must be/);
    expect(() => passAtK(0, 0, 1)).toThrow(/n must be/);
  });

  it('averages over problems, keyed by k', () => {
    const probs = [{ n: 4, c: 0 }, { n: 4, c: 2 }];
    const p = meanPassAtK(probs, [1, 2, 4]);
    expect(Object.keys(p)).toEqual(['1', '2', '4']);
    expectClose('mean pass', [p['1'], p['2'], p['4']], [0.25, (1 - 1 / 6) / 2, 0.5], { atol: 1e-15, rtol: 0 });
    const a = meanAvgAtK(probs, [1, 4]);
    expect(a).toEqual({ '1': 0.25, '4': 0.25 });
    expect(avgAtK(10, 3, 7)).toBeCloseTo(0.3, 15);
  });
});

describe('maj@k', () => {
  it('equals brute force with ties and invalid answers, random cases', () => {
    const rand = mulberry32(7);
    for (let trial = 0; trial < 120; trial++) {
      const n = 1 + Math.floor(rand() * 9);
      const kinds = 1 + Math.floor(rand() * 4);
      const answers = Array.from({ length: n }, () => {
        const r = Math.floor(rand() * (kinds + 1));
        return r === kinds ? null : r;
      });
      const gold = Math.floor(rand() * kinds);
      for (let k = 1; k <= n; k++) {
        expectClose(`trial ${trial} ${JSON.stringify(answers)} gold ${gold} k=${k}`, [majAtK(answers, gold, k)], [majBrute(answers, gold, k)], { atol: 1e-12, rtol: 0 });
      }
    }
  });

  it('hand cases', () => {
    expect(majAtK([1, 1, 2, 2], 1, 4)).toBeCloseTo(0.5, 15); // a 2–2 tie
    expect(majAtK([1, 2, 3], 1, 3)).toBeCloseTo(1 / 3, 15); // three-way tie
    expect(majAtK([null, null, 5], 5, 3)).toBe(1); // invalid answers do not vote
    expect(majAtK([null, null, 5], 7, 2)).toBe(0);
    expect(majAtK([4, 4, 4], 4, 2)).toBe(1);
    expect(majAtK(['a', 'b', 'a'], 'a', 1)).toBeCloseTo(2 / 3, 15);
  });

  it('matches a many-resample estimate at n = 64, k = 16', () => {
    const rand = mulberry32(3);
    const answers = Array.from({ length: 64 }, () => (rand() < 0.1 ? null : Math.floor(rand() * 5)));
    const exact = majAtK(answers, 0, 16);
    let est = 0;
    const R = 20000;
    for (let r = 0; r < R; r++) {
      const idx = Array.from({ length: 64 }, (_, i) => i);
      for (let i = 0; i < 16; i++) {
        const j = i + Math.floor(rand() * (64 - i));
        [idx[i], idx[j]] = [idx[j], idx[i]];
      }
      est += majBruteSubset(answers, 0, idx.slice(0, 16));
    }
    // standard error of a mean of 20000 draws in [0, 1] is at most 0.0036; allow 4 of them
    expectClose('maj@16 exact vs resampled', [exact], [est / R], { atol: 0.015, rtol: 0 });
    expect(meanMajAtK([{ answers, gold: 0 }], [16])['16']).toBe(exact);
  });

  it('binomial is exact below 2^53 and close beyond', () => {
    expect(binomial(10, 3)).toBe(120);
    expect(binomial(50, 25)).toBe(126410606437752);
    // C(64, 32) = 1832624140942590534 exceeds 2^53: a few ulps of rounding are expected
    expectClose('C(64,32)', [binomial(64, 32)], [1832624140942590534], { atol: 0, rtol: 1e-14 });
    expect(binomial(5, 7)).toBe(0);
  });
});

function majBruteSubset(answers: readonly (AnswerKey | null)[], gold: AnswerKey, s: number[]): number {
  const counts = new Map<AnswerKey, number>();
  for (const i of s) if (answers[i] !== null) counts.set(answers[i]!, (counts.get(answers[i]!) ?? 0) + 1);
  if (counts.size === 0) return 0;
  const top = Math.max(...counts.values());
  const tied = [...counts.entries()].filter(([, m]) => m === top).map(([a]) => a);
  return tied.includes(gold) ? 1 / tied.length : 0;
}

describe('accuracy histogram', () => {
  it('bins c/n, the last bin closed, with zero and full counts', () => {
    const h = accuracyHistogram([{ n: 10, c: 0 }, { n: 10, c: 3 }, { n: 10, c: 10 }, { n: 4, c: 1 }, { n: 10, c: 9 }], 4);
    expect(h.edges).toEqual([0, 0.25, 0.5, 0.75, 1]);
    // c/n = 0, 0.3, 1, 0.25, 0.9 → bins 0, 1, 3 (closed at 1), 1 (left edge included), 3
    expect(h.counts).toEqual([1, 2, 0, 2]);
    expect(h.zero).toBe(1);
    expect(h.full).toBe(1);
  });
});
