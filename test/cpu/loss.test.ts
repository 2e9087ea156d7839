// The softmax reference checked against central finite differences of J in float64, and
// against closed forms.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randArray, randInts } from '../helpers/rng';
import { softmaxLogpRef } from '../../src/reference/loss';

type Case = { logits: Float64Array; targets: Uint32Array; w: Float64Array; e: Float64Array; R: number; V: number };

function objective(c: Case, logits: Float64Array, temperature: number): number {
  const logp = new Float64Array(c.R);
  const entropy = new Float64Array(c.R);
  softmaxLogpRef({ logp, entropy, dlogits: null }, logits, c.targets, c.w, c.e, c, { temperature });
  let J = 0;
  for (let r = 0; r < c.R; r++) J += c.w[r] * logp[r] + c.e[r] * entropy[r];
  return J;
}

function makeCase(seed: number, R: number, V: number): Case {
  const rand = mulberry32(seed);
  const w = Float64Array.from(randArray(rand, R));
  const e = Float64Array.from(randArray(rand, R));
  // row 1 is masked
  if (R > 1) w[1] = e[1] = 0;
  return { logits: Float64Array.from(randArray(rand, R * V, 3)), targets: randInts(rand, R, V), w, e, R, V };
}

describe('softmaxLogpRef', () => {
  it.each([
    [1, 1, 1],
    [3, 5, 1],
    [3, 7, 0.7],
    [4, 6, 1.5],
    [2, 13, 0.3],
  ])('gradient matches central differences (R=%i V=%i T=%f)', (R, V, T) => {
    const c = makeCase(R * 100 + V, R, V);
    const dlogits = new Float64Array(R * V);
    softmaxLogpRef({ logp: new Float64Array(R), entropy: new Float64Array(R), dlogits }, c.logits, c.targets, c.w, c.e, c, { temperature: T });
    const fd = new Float64Array(R * V);
    const h = 1e-5;
    for (let i = 0; i < R * V; i++) {
      const plus = Float64Array.from(c.logits);
      const minus = Float64Array.from(c.logits);
      plus[i] += h;
      minus[i] -= h;
      fd[i] = (objective(c, plus, T) - objective(c, minus, T)) / (2 * h);
    }
    // central differences: O(h²) truncation plus ~1e-16/h rounding
    expectClose(`fd R=${R} V=${V} T=${T}`, dlogits, fd, { atol: 1e-8, rtol: 1e-6 });
    if (R > 1) for (let j = 0; j < V; j++) expect(dlogits[V + j]).toBe(0);
  });

  it('entropy-only and logp-only gradients each match differences', () => {
    for (const [wScale, eScale] of [[1, 0], [0, 1]]) {
      const c = makeCase(7, 3, 9);
      c.w = c.w.map((x) => x * wScale);
      c.e = c.e.map((x) => x * eScale);
      const dlogits = new Float64Array(27);
      softmaxLogpRef({ logp: new Float64Array(3), entropy: new Float64Array(3), dlogits }, c.logits, c.targets, c.w, c.e, c, { temperature: 0.8 });
      const fd = new Float64Array(27);
      for (let i = 0; i < 27; i++) {
        const plus = Float64Array.from(c.logits);
        const minus = Float64Array.from(c.logits);
        plus[i] += 1e-5;
        minus[i] -= 1e-5;
        fd[i] = (objective(c, plus, 0.8) - objective(c, minus, 0.8)) / 2e-5;
      }
      expectClose(`fd w=${wScale} e=${eScale}`, dlogits, fd, { atol: 1e-8, rtol: 1e-6 });
    }
  });

  it('gives log(1/V) and log V on uniform logits, 0 and 0 on a one-hot row of ±1e4', () => {
    const V = 64;
    const logp = new Float64Array(2);
    const entropy = new Float64Array(2);
    const logits = new Float64Array(2 * V).fill(0.5);
    for (let j = 0; j < V; j++) logits[V + j] = j === 3 ? 1e4 : -1e4;
    softmaxLogpRef({ logp, entropy, dlogits: null }, logits, [10, 3], [1, 1], [0, 0], { R: 2, V });
    expect(logp[0]).toBeCloseTo(-Math.log(V), 12);
    expect(entropy[0]).toBeCloseTo(Math.log(V), 12);
    expect(logp[1]).toBe(0);
    expect(entropy[1]).toBe(0);
  });

  it('rejects an out-of-range target', () => {
    expect(() => softmaxLogpRef({ logp: new Float64Array(1), entropy: new Float64Array(1), dlogits: null }, [0, 0], [2], [1], [0], { R: 1, V: 2 })).toThrow(RangeError);
  });
});
