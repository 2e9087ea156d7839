// Diversity of a set of items through their embeddings (LOOPS.md §7): cosine similarity,
// the Vendi score (TTSP), top-k similarity to a set (OpenSIR's diversity reward), the mean
// similarity to siblings (DATPO's bonus), a bag-of-n-grams embedding for when no model embedding
// is at hand (OpenSIR's and DATPO's `ngram` embedder), and PCA to 2-D for the page's maps. Both
// spectral metrics decompose whichever of the n×n or d×d matrix is smaller (eigen.ts). Pure and
// browser-safe. The loops train on cosine, topKMeanCosine, meanCosine and ngramEmbedding: a change
// to their arithmetic changes every run that uses them.
import { symmetricEigen } from './eigen';

export type Vector = ArrayLike<number>;

function norm(a: Vector): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return Math.sqrt(s);
}

function dot(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new RangeError(`embedding lengths differ: ${a.length} and ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * cos(a, b); 0 when either vector is zero (a zero embedding resembles nothing). One pass, and
 * dot / √(|a|²·|b|²) rather than dot / (|a|·|b|): the arithmetic OpenSIR's and DATPO's rewards have
 * always used, so a seed gives the run it gave before.
 */
export function cosine(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new RangeError(`embedding lengths differ: ${a.length} and ${b.length}`);
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) (ab += a[i] * b[i]), (aa += a[i] * a[i]), (bb += b[i] * b[i]);
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/** a / |a| as float64; a zero vector stays zero. */
export function unit(a: Vector): Float64Array {
  const n = norm(a);
  const out = new Float64Array(a.length);
  if (n > 0) for (let i = 0; i < a.length; i++) out[i] = a[i] / n;
  return out;
}

/** K[i, j] = cos(e_i, e_j) as a row-major n×n matrix, with K[i, i] = 1 for every item. */
export function cosineMatrix(embs: readonly Vector[]): Float64Array {
  const n = embs.length;
  const units = embs.map(unit);
  const K = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    K[i * n + i] = 1;
    for (let j = i + 1; j < n; j++) K[i * n + j] = K[j * n + i] = dot(units[i], units[j]);
  }
  return K;
}

/** Mean of the k largest cosine similarities of `e` to the members of `set` (all of them if fewer); 0 for an empty set. */
export function topKMeanCosine(e: Vector, set: readonly Vector[], k: number): number {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`topKMeanCosine: k must be a positive integer, got ${k}`);
  if (set.length === 0) return 0;
  const sims = set.map((s) => cosine(e, s)).sort((a, b) => b - a);
  const top = sims.slice(0, k);
  return top.reduce((a, b) => a + b, 0) / top.length;
}

/** Mean cosine similarity of `e` to the members of `set` (DATPO's sibling similarity); 0 for an empty set. */
export function meanCosine(e: Vector, set: readonly Vector[]): number {
  if (set.length === 0) return 0;
  return set.reduce((s, x) => s + cosine(e, x), 0) / set.length;
}

/**
 * Vendi score exp(−Σ λ log λ), λ the eigenvalues of K/n with K[i, j] = cos(e_i, e_j): the
 * effective number of distinct items, 1 for identical items and n for orthogonal ones; 0 for
 * an empty set. K = UUᵀ for the unit rows U, so its nonzero eigenvalues are those of UᵀU; the
 * smaller of the two matrices is decomposed. A zero embedding gets a private axis of its own
 * (orthogonal to everything, K[i, i] = 1), as cosineMatrix defines it.
 */
export function vendiScore(embs: readonly Vector[]): number {
  const n = embs.length;
  if (n === 0) return 0;
  const d = embs[0].length;
  const units = embs.map(unit);
  const zeros = units.filter((u) => u.every((x) => x === 0)).length;
  const D = d + zeros;
  let z = 0;
  const rows = units.map((u) => {
    const r = new Float64Array(D);
    if (u.every((x) => x === 0)) r[d + z++] = 1;
    else r.set(u);
    return r;
  });
  const m = Math.min(n, D);
  const G = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = i; j < m; j++) {
      let s = 0;
      if (n <= D) s = dot(rows[i], rows[j]);
      else for (let r = 0; r < n; r++) s += rows[r][i] * rows[r][j];
      G[i * m + j] = G[j * m + i] = s / n;
    }
  }
  let h = 0;
  for (const lam of symmetricEigen(G, m, false).values) if (lam > 0) h -= lam * Math.log(lam);
  return Math.exp(h);
}

/**
 * The bag-of-n-grams embedder (LOOPS.md §7's fallback; OpenSIR's and DATPO's `embedder: ngram`):
 * counts of the text's character 1-, 2- and 3-grams, each hashed (FNV-1a seeded by its length)
 * into one of `dims` bins.
 */
export function ngramEmbedding(text: string, dims = 64): Float32Array {
  if (!Number.isInteger(dims) || dims < 1) throw new RangeError(`ngramEmbedding: dims must be a positive integer, got ${dims}`);
  const v = new Float32Array(dims);
  for (let n = 1; n <= 3; n++) {
    for (let i = 0; i + n <= text.length; i++) {
      let h = 2166136261 ^ n;
      for (let j = i; j < i + n; j++) h = Math.imul(h ^ text.charCodeAt(j), 16777619);
      v[(h >>> 0) % dims] += 1;
    }
  }
  return v;
}

export interface Projection2D {
  /** one [x, y] per item: its coordinates on the first two principal axes */
  points: [number, number][];
  /** the two principal axes (unit vectors in embedding space; zero when the data has fewer dimensions) */
  axes: [Float64Array, Float64Array];
  /** variance along each axis */
  variance: [number, number];
  mean: Float64Array;
}

/**
 * PCA to 2-D. The centred data X (n×d) is decomposed through whichever of XᵀX (d×d) or
 * XXᵀ (n×n) is smaller. Each axis is signed so that its largest-magnitude entry is positive,
 * which makes the map stable from one call to the next.
 */
export function pca2d(embs: readonly Vector[]): Projection2D {
  const n = embs.length;
  if (n === 0) throw new RangeError('pca2d: no items');
  const d = embs[0].length;
  const mean = new Float64Array(d);
  for (const e of embs) {
    if (e.length !== d) throw new RangeError(`pca2d: embedding lengths differ: ${d} and ${e.length}`);
    for (let j = 0; j < d; j++) mean[j] += e[j] / n;
  }
  const X = embs.map((e) => Float64Array.from({ length: d }, (_, j) => e[j] - mean[j]));
  const axes = principalAxes(X, d).map(signed) as [Float64Array, Float64Array];
  const points = X.map((x) => [dot(x, axes[0]), dot(x, axes[1])] as [number, number]);
  const variance = axes.map((_, a) => points.reduce((s, p) => s + p[a] * p[a], 0) / n) as [number, number];
  return { points, axes, variance, mean };
}

/** The two leading unit eigenvectors of XᵀX (zero vectors where the rank is lower). */
function principalAxes(X: Float64Array[], d: number): Float64Array[] {
  const n = X.length;
  if (d <= n) {
    const S = new Float64Array(d * d);
    for (const x of X) for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) S[i * d + j] += x[i] * x[j];
    const eig = symmetricEigen(S, d);
    return [0, 1].map((a) => (a < d && eig.values[a] > 1e-12 * Math.max(eig.values[0], 1e-300) ? eig.vectors[a] : new Float64Array(d)));
  }
  // Through the n×n Gram matrix: u an eigenvector of XXᵀ with λ > 0 gives the axis Xᵀu/√λ.
  const G = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) G[i * n + j] = G[j * n + i] = dot(X[i], X[j]);
  const eig = symmetricEigen(G, n);
  return [0, 1].map((a) => {
    const axis = new Float64Array(d);
    const lam = a < n ? eig.values[a] : 0;
    if (!(lam > 1e-12 * Math.max(eig.values[0], 1e-300))) return axis;
    for (let r = 0; r < n; r++) for (let j = 0; j < d; j++) axis[j] += eig.vectors[a][r] * X[r][j];
    return unit(axis);
  });
}

function signed(v: Float64Array): Float64Array {
  let big = 0;
  for (let i = 1; i < v.length; i++) if (Math.abs(v[i]) > Math.abs(v[big])) big = i;
  if (v.length > 0 && v[big] < 0) for (let i = 0; i < v.length; i++) v[i] = -v[i];
  return v;
}
