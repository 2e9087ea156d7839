// Diversity metrics: the symmetric eigen-solver, Vendi score, cosine helpers, n-gram embeddings, PCA.
import { describe, expect, it } from 'vitest';
import { mulberry32, randn } from '../helpers/rng';
import { expectClose } from '../helpers/tolerance';
import {
  cosine, cosineMatrix, meanCosine, ngramEmbedding, pca2d, topKMeanCosine, unit, vendiScore,
} from '../../src/metrics/diversity';
import { symmetricEigen } from '../../src/metrics/eigen';

const basis = (d: number, i: number) => Float64Array.from({ length: d }, (_, j) => (j === i ? 1 : 0));

function randomOrthonormal(rand: () => number, d: number, count: number): Float64Array[] {
  const out: Float64Array[] = [];
  while (out.length < count) {
    const v = Float64Array.from(randn(rand, d));
    for (const u of out) {
      const p = v.reduce((s, x, i) => s + x * u[i], 0);
      for (let i = 0; i < d; i++) v[i] -= p * u[i];
    }
    out.push(unit(v));
  }
  return out;
}

describe('symmetricEigen (Householder + implicit QL)', () => {
  /** A = Σ λ v vᵀ and VᵀV = I: a complete, orthonormal eigen-decomposition. */
  function checkDecomposition(label: string, A: Float64Array, n: number) {
    const { values, vectors } = symmetricEigen(A, n);
    expect(values.length).toBe(n);
    for (let a = 1; a < n; a++) expect(values[a]).toBeLessThanOrEqual(values[a - 1]);
    const scale = Math.max(1, ...Array.from(A, Math.abs));
    const rebuilt = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) rebuilt[i * n + j] += values[a] * vectors[a][i] * vectors[a][j];
    expectClose(`${label}: A = V Λ Vᵀ`, rebuilt, A, { atol: 1e-12 * scale * n, rtol: 0 });
    const gram = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) gram[a * n + b] = vectors[a].reduce((s, x, i) => s + x * vectors[b][i], 0);
    expectClose(`${label}: VᵀV = I`, gram, Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)), { atol: 1e-12 * n, rtol: 0 });
    const valuesOnly = symmetricEigen(A, n, false);
    expect(valuesOnly.vectors).toEqual([]);
    expectClose(`${label}: values without vectors`, valuesOnly.values, values, { atol: 1e-12 * scale * n, rtol: 0 });
  }

  it('random symmetric matrices of several sizes', () => {
    const rand = mulberry32(11);
    for (const n of [1, 2, 3, 9, 40]) {
      const A = new Float64Array(n * n);
      for (let i = 0; i < n; i++) for (let j = i; j < n; j++) A[i * n + j] = A[j * n + i] = rand() * 2 - 1;
      checkDecomposition(`random n=${n}`, A, n);
    }
  });

  it('repeated eigenvalues, a diagonal, a zero and a rank-one matrix', () => {
    const rand = mulberry32(12);
    const n = 7;
    const Q = randomOrthonormal(rand, n, n);
    const lambda = [3, 3, 3, 1, 1, 0, -2];
    const A = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A[i * n + j] += lambda[a] * Q[a][i] * Q[a][j];
    checkDecomposition('repeated', A, n);
    expectClose('repeated values', symmetricEigen(A, n).values, [3, 3, 3, 1, 1, 0, -2], { atol: 1e-12, rtol: 0 });
    const D = new Float64Array(16);
    [2, -1, 5, 0].forEach((x, i) => (D[i * 4 + i] = x));
    checkDecomposition('diagonal', D, 4);
    expect(Array.from(symmetricEigen(D, 4).values)).toEqual([5, 2, 0, -1]);
    checkDecomposition('zero', new Float64Array(9), 3);
    const u = [1, 2, 2];
    checkDecomposition('rank one', Float64Array.from({ length: 9 }, (_, k) => u[Math.floor(k / 3)] * u[k % 3]), 3);
    expectClose('rank one values', symmetricEigen(Float64Array.from({ length: 9 }, (_, k) => u[Math.floor(k / 3)] * u[k % 3]), 3).values, [9, 0, 0], { atol: 1e-12, rtol: 0 });
    expect(symmetricEigen([], 0).values.length).toBe(0);
    expect(() => symmetricEigen([1, 2, 3], 2)).toThrow(/2×2/);
  });
});

describe('Vendi score', () => {
  it('identical vectors give 1, orthogonal vectors give n (both matrix sizes)', () => {
    const v = [0.3, -1, 2, 0.5];
    expectClose('identical n=6 d=4', [vendiScore(Array.from({ length: 6 }, () => v))], [1], { atol: 1e-12, rtol: 0 });
    expectClose('identical scaled', [vendiScore([v, v.map((x) => 3 * x)])], [1], { atol: 1e-12, rtol: 0 });
    expectClose('orthogonal n=5 d=5', [vendiScore([0, 1, 2, 3, 4].map((i) => basis(5, i)))], [5], { atol: 1e-12, rtol: 0 });
    expectClose('orthogonal n=3 d=8', [vendiScore([0, 1, 2].map((i) => basis(8, i)))], [3], { atol: 1e-12, rtol: 0 });
    const twoGroups = [...Array<Float64Array>(4).fill(basis(2, 0)), ...Array<Float64Array>(4).fill(basis(2, 1))]; // n = 8 > d = 2
    expectClose('two groups', [vendiScore(twoGroups)], [2], { atol: 1e-12, rtol: 0 });
    expect(vendiScore([])).toBe(0);
  });

  it('equals exp(entropy) of the eigenvalues of K/n computed directly', () => {
    const rand = mulberry32(5);
    for (const [n, d] of [[12, 5], [5, 12], [7, 7]]) {
      const embs = Array.from({ length: n }, () => randn(rand, d));
      const K = cosineMatrix(embs).map((x) => x / n);
      const h = Array.from(symmetricEigen(K, n, false).values).filter((l) => l > 0).reduce((s, l) => s - l * Math.log(l), 0);
      expectClose(`vendi n=${n} d=${d}`, [vendiScore(embs)], [Math.exp(h)], { atol: 1e-10, rtol: 0 });
    }
  });

  it('a zero embedding counts as unlike everything', () => {
    expectClose('[e1, 0]', [vendiScore([basis(3, 0), new Float64Array(3)])], [2], { atol: 1e-12, rtol: 0 });
    const K = cosineMatrix([basis(3, 0), new Float64Array(3)]);
    expect(Array.from(K)).toEqual([1, 0, 0, 1]);
  });
});

describe('cosine helpers', () => {
  it('cosine, mean and top-k mean', () => {
    expect(cosine([1, 0], [0, 2])).toBe(0);
    expectClose('cos', [cosine([1, 1], [2, 0])], [Math.SQRT1_2], { atol: 1e-15, rtol: 0 });
    expect(cosine([0, 0], [1, 0])).toBe(0);
    const set = [[1, 0], [0, 1], [1, 1], [-1, 0]];
    // similarities of [1, 0]: 1, 0, 0.7071, -1
    expectClose('top-2', [topKMeanCosine([1, 0], set, 2)], [(1 + Math.SQRT1_2) / 2], { atol: 1e-15, rtol: 0 });
    expectClose('top-9 = mean of all', [topKMeanCosine([1, 0], set, 9)], [Math.SQRT1_2 / 4], { atol: 1e-15, rtol: 0 });
    expectClose('mean', [meanCosine([1, 0], set)], [Math.SQRT1_2 / 4], { atol: 1e-15, rtol: 0 });
    expect(topKMeanCosine([1, 0], [], 5)).toBe(0);
    expect(() => topKMeanCosine([1, 0], set, 0)).toThrow(/positive integer/);
  });

  it('cosine is dot / √(|a|²·|b|²) to the last bit (the arithmetic OpenSIR and DATPO train on)', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    for (let trial = 0; trial < 200; trial++) {
      const a = Array.from({ length: 16 }, rand), b = Array.from({ length: 16 }, rand);
      let ab = 0, aa = 0, bb = 0;
      for (let i = 0; i < 16; i++) (ab += a[i] * b[i]), (aa += a[i] * a[i]), (bb += b[i] * b[i]);
      expect(cosine(a, b)).toBe(ab / Math.sqrt(aa * bb));
    }
    expect(() => cosine([1, 2], [1, 2, 3])).toThrow(/lengths differ/);
  });

  it('n-gram embeddings: the bins the loops train on, deterministic, similar texts closer', () => {
    // '1+1': unigrams 1, +, 1; bigrams 1+, +1; the trigram: 6 counts in 64 bins (pinned: a new
    // hash or bin count would change every ngram-embedder run of OpenSIR and DATPO)
    const one = ngramEmbedding('1+1');
    expect([...one.entries()].filter(([, x]) => x > 0)).toEqual([[11, 1], [47, 3], [49, 1], [61, 1]]);
    const a = ngramEmbedding('(3+4)*5');
    expect(a).toBeInstanceOf(Float32Array);
    expect(a.length).toBe(64);
    expect(Array.from(ngramEmbedding('(3+4)*5'))).toEqual(Array.from(a));
    expect(a.reduce((s, x) => s + x, 0)).toBe(7 + 6 + 5); // 7 characters: 7 unigrams, 6 bigrams, 5 trigrams
    expect(cosine(a, ngramEmbedding('(3+4)*6'))).toBeGreaterThan(cosine(a, ngramEmbedding('max(11,2)-9')));
    expect(cosine(ngramEmbedding('12+34'), ngramEmbedding('12+35'))).toBeGreaterThan(cosine(ngramEmbedding('12+34'), ngramEmbedding('max(9,7)*6')));
    expect(ngramEmbedding('', 8).every((x) => x === 0)).toBe(true);
    expect(() => ngramEmbedding('1', 0)).toThrow(/positive integer/);
  });
});

describe('PCA to 2-D', () => {
  const centred = (x: Float32Array) => {
    const m = x.reduce((s, y) => s + y, 0) / x.length;
    return Float64Array.from(x, (y) => y - m);
  };

  function planted(seed: number, n: number, d: number) {
    const rand = mulberry32(seed);
    const [u, v] = randomOrthonormal(rand, d, 2);
    // coordinates centred and uncorrelated in-sample, so the sample covariance has axes u, v exactly
    const a = centred(randn(rand, n, 3)), b = centred(randn(rand, n, 1)), offset = randn(rand, d, 5);
    const ab = a.reduce((s, x, i) => s + x * b[i], 0) / a.reduce((s, x) => s + x * x, 0);
    for (let i = 0; i < n; i++) b[i] -= ab * a[i];
    const embs = Array.from({ length: n }, (_, i) => {
      const noise = randn(rand, d, 0.01);
      return Float64Array.from({ length: d }, (_, j) => offset[j] + a[i] * u[j] + b[i] * v[j] + noise[j]);
    });
    return { embs, u, v, a, b };
  }

  for (const [n, d] of [[60, 10], [8, 30]]) {
    it(`recovers a planted plane (n=${n}, d=${d})`, () => {
      const { embs, u, v, a, b } = planted(n + d, n, d);
      const p = pca2d(embs);
      expect(Math.abs(cosine(p.axes[0], u))).toBeGreaterThan(0.999);
      expect(Math.abs(cosine(p.axes[1], v))).toBeGreaterThan(0.99);
      expect(p.variance[0]).toBeGreaterThan(p.variance[1]);
      expect(Math.abs(cosine(p.points.map((q) => q[0]), a))).toBeGreaterThan(0.999);
      expect(Math.abs(cosine(p.points.map((q) => q[1]), b))).toBeGreaterThan(0.99);
      const again = pca2d(embs);
      expect(again.points).toEqual(p.points); // deterministic, signs fixed
    });
  }

  it('degenerate inputs: one point, identical points, 1-D data', () => {
    expect(pca2d([[1, 2, 3]]).points).toEqual([[0, 0]]);
    expect(pca2d([[1, 2], [1, 2]]).points).toEqual([[0, 0], [0, 0]]);
    const line = pca2d([[0], [1], [3]]);
    expect(line.points.map((q) => q[1])).toEqual([0, 0, 0]);
    expectClose('1-D x', line.points.map((q) => q[0]), [-4 / 3, -1 / 3, 5 / 3], { atol: 1e-12, rtol: 0 });
  });
});
