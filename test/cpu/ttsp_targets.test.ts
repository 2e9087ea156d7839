// TTSP target selection (LOOPS.md §6): MidHard = base mean@n in (0.1, 0.7), VeryHard in (0, 0.1].
import { describe, expect, it } from 'vitest';
import { targetsDocument } from '../../src/cli/ttsp_targets';

const meta = { ckpt: 'x', n: 512, seed: 0, temperature: 1, topP: 1 };
const probs = [0, 1, 2, 3, 4, 5].map((id) => ({ id, text: `${id}+1`, answer: id + 1 }));

describe('ttsp-targets', () => {
  it('sorts candidates by mean@n at the exact boundaries', () => {
    // c/512: 0, 1/512, 51.2/512 boundary ≈ 0.1 (51 → below, 52 → above), 358 → 0.699, 359 → 0.701, 512
    const counts = [0, 1, 51, 52, 358, 512];
    const doc = targetsDocument(probs, { problems: counts.map((c, i) => ({ id: i, n: 512, c }) as never) }, meta);
    expect(doc.veryHard.map((p) => p.id)).toEqual([1, 2]);
    expect(doc.midHard.map((p) => p.id)).toEqual([3, 4]);
    expect(doc.unsolved).toBe(1);
    expect(doc.solved).toBe(1);
    expect(doc.problems[3].passRate).toBeCloseTo(52 / 512, 12);
  });

  it('rejects results that do not line up with the problems', () => {
    expect(() => targetsDocument(probs, { problems: [] }, meta)).toThrow(/6 problems but 0 results/);
    const shifted = probs.map((_, i) => ({ id: i + 1, n: 4, c: 1 }) as never);
    expect(() => targetsDocument(probs, { problems: shifted }, meta)).toThrow(/result 0 is for problem 1, expected 0/);
  });
});
