// The evaluation's scoring rule on hand-made decoder output, its per-batch seeds, and the
// CLI's --k parsing (no GPU needed).
import { describe, expect, it } from 'vitest';
import { scoreRow, type SampledBatch } from '../../src/eval/score';
import { batchSeed, whyModelCannotSolve } from '../../src/eval/evaluate';
import { parseKs } from '../../src/cli/eval';
import { GPT_PRESETS } from '../../src/model/config';
import { encode, EOS, solvePrompt } from '../../src/world';

function batchOf(rows: { prompt: number[]; response: number[]; finished: boolean }[], Tmax: number): SampledBatch {
  const tokens = new Uint32Array(rows.length * Tmax);
  const entropy = new Float32Array(rows.length * Tmax);
  rows.forEach((r, b) => {
    tokens.set([...r.prompt, ...r.response], b * Tmax);
    r.response.forEach((_, t) => (entropy[b * Tmax + r.prompt.length + t] = 0.5 + t));
  });
  return { tokens, entropy, promptLen: rows.map((r) => r.prompt.length), responseLen: rows.map((r) => r.response.length), finished: rows.map((r) => r.finished) };
}

describe('scoring sampled solve responses', () => {
  const Tmax = 24;
  const p = solvePrompt('3+4');
  const batch = batchOf([
    { prompt: p, response: [...encode('3+4=7;#7'), EOS], finished: true },
    { prompt: p, response: encode('3+4=7;#7'), finished: false }, // cut at the limit: no answer
    { prompt: p, response: [...encode('77'), EOS], finished: true }, // no '#'
    { prompt: p, response: [...encode('#07'), EOS], finished: true }, // not a canonical integer
    { prompt: p, response: [...encode('#-2'), EOS], finished: true },
  ], Tmax);

  it('reads the answer of ended responses only', () => {
    expect([0, 1, 2, 3, 4].map((b) => scoreRow(batch, Tmax, b).answer)).toEqual([7, null, null, null, -2]);
    expect(scoreRow(batch, Tmax, 1).truncated).toBe(true);
    expect(scoreRow(batch, Tmax, 0).truncated).toBe(false);
  });

  it('length counts EOS; entropy sums over the response tokens only', () => {
    const s = scoreRow(batch, Tmax, 0);
    expect(s.length).toBe(9);
    expect(s.entropySum).toBeCloseTo(9 * 0.5 + 36, 5); // Σ_{t<9} (0.5 + t)
  });
});

describe('evaluation plumbing', () => {
  it('batch seeds differ across batches and seeds, and are u32', () => {
    const seeds = new Set<number>();
    for (let s = 0; s < 20; s++) for (let g = 0; g < 50; g++) {
      const x = batchSeed(s, g);
      expect(Number.isInteger(x) && x >= 0 && x < 2 ** 32).toBe(true);
      seeds.add(x);
    }
    expect(seeds.size).toBe(1000);
    expect(batchSeed(3, 4)).toBe(batchSeed(3, 4));
  });

  it('parseKs: list, default powers of two, errors', () => {
    expect(parseKs('1,2,4', 4)).toEqual([1, 2, 4]);
    expect(parseKs(' 4 ,1,4', 8)).toEqual([4, 1]);
    expect(parseKs(undefined, 64)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(parseKs(undefined, 6)).toEqual([1, 2, 4]);
    expect(() => parseKs('1,8', 4)).toThrow(/larger than --n 4/);
    expect(() => parseKs('1,,2', 4)).toThrow(/entry 2/);
    expect(() => parseKs('0', 4)).toThrow(/positive integer/);
  });

  it('rejects a model whose context or vocabulary does not fit the problems', () => {
    const problems = [{ id: 0, text: '1+2', answer: 3 }];
    expect(whyModelCannotSolve(GPT_PRESETS.tiny, problems)).toBeNull();
    expect(whyModelCannotSolve({ ...GPT_PRESETS.tiny, nPositions: 5 }, problems)).toMatch(/6-token prompt; the model's context is 5/);
    expect(whyModelCannotSolve({ ...GPT_PRESETS.tiny, vocabSize: 65 }, problems)).toMatch(/vocabulary/);
  });
});
