// Eigen-decomposition of a real symmetric matrix: Householder reduction to tridiagonal form,
// then the implicit QL method (EISPACK tred2 / tql2, as in JAMA's public-domain port): about
// 4n³/3 flops for the eigenvalues alone and 9n³ with vectors, several times fewer than cyclic
// Jacobi. Deterministic and exact to rounding. Pure and browser-safe.

export interface Eigen {
  /** eigenvalues, descending */
  values: Float64Array;
  /** vectors[i] is the unit eigenvector of values[i] (empty unless asked for) */
  vectors: Float64Array[];
}

/** Eigenvalues (descending) and, if wanted, eigenvectors of a symmetric n×n row-major matrix. */
export function symmetricEigen(matrix: ArrayLike<number>, n: number, wantVectors = true): Eigen {
  if (!Number.isInteger(n) || n < 0 || matrix.length !== n * n) throw new RangeError(`symmetricEigen: ${matrix.length} entries for a ${n}×${n} matrix`);
  if (n === 0) return { values: new Float64Array(0), vectors: [] };
  // The matrix is symmetric, so its rows are also its columns: T starts as the transpose.
  const T = Array.from({ length: n }, (_, i) => Float64Array.from({ length: n }, (_, j) => matrix[i * n + j]));
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalize(T, d, e, wantVectors);
  const W = wantVectors ? T : null;
  tqlImplicit(W, d, e);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => d[b] - d[a] || a - b);
  const values = Float64Array.from(order, (i) => d[i]);
  const vectors = W ? order.map((i) => W[i]) : [];
  return { values, vectors };
}

/**
 * Householder reduction (tred2): on return d is the diagonal and e[1..n−1] the subdiagonal of
 * the tridiagonal matrix; with wantVectors, T holds the orthogonal transformation transposed
 * (T[i] is its column i). JAMA's loops walk columns; indexing the transpose walks rows.
 */
function tridiagonalize(T: Float64Array[], d: Float64Array, e: Float64Array, wantVectors: boolean): void {
  const n = d.length;
  for (let j = 0; j < n; j++) d[j] = T[j][n - 1];
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
    if (scale === 0) {
      e[i] = d[i - 1];
      for (let j = 0; j < i; j++) {
        d[j] = T[j][i - 1];
        T[j][i] = 0;
        T[i][j] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] /= scale;
        h += d[k] * d[k];
      }
      let f = d[i - 1];
      let g = f > 0 ? -Math.sqrt(h) : Math.sqrt(h);
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j];
        T[i][j] = f;
        g = e[j] + T[j][j] * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += T[j][k] * d[k];
          e[k] += T[j][k] * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] /= h;
        f += e[j] * d[j];
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] -= hh * d[j];
      for (let j = 0; j < i; j++) {
        f = d[j];
        g = e[j];
        for (let k = j; k <= i - 1; k++) T[j][k] -= f * e[k] + g * d[k];
        d[j] = T[j][i - 1];
        T[j][i] = 0;
      }
    }
    d[i] = h;
  }
  if (!wantVectors) {
    // The diagonal of the tridiagonal form sits on V's diagonal until the accumulation below.
    for (let j = 0; j < n; j++) d[j] = T[j][j];
    e[0] = 0;
    return;
  }
  for (let i = 0; i < n - 1; i++) {
    T[i][n - 1] = T[i][i];
    T[i][i] = 1;
    const h = d[i + 1];
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = T[i + 1][k] / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += T[i + 1][k] * T[j][k];
        for (let k = 0; k <= i; k++) T[j][k] -= g * d[k];
      }
    }
    for (let k = 0; k <= i; k++) T[i + 1][k] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = T[j][n - 1];
    T[j][n - 1] = 0;
  }
  T[n - 1][n - 1] = 1;
  e[0] = 0;
}

const MAX_QL_ITERATIONS = 60;

/** Implicit QL iterations on the tridiagonal (d, e) (tql2), rotating the eigenvector rows W[i] along when given. */
function tqlImplicit(W: Float64Array[] | null, d: Float64Array, e: Float64Array): void {
  const n = d.length;
  for (let i = 1; i < n; i++) e[i - 1] = e[i];
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n - 1 && Math.abs(e[m]) > eps * tst1) m++;
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > MAX_QL_ITERATIONS) throw new Error(`symmetricEigen: no convergence for eigenvalue ${l} in ${MAX_QL_ITERATIONS} iterations`);
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        let c = 1, c2 = c, c3 = c, s = 0, s2 = 0;
        const el1 = e[l + 1];
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = Math.hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          if (W) {
            const wi = W[i], wi1 = W[i + 1];
            for (let k = 0; k < n; k++) {
              h = wi1[k];
              wi1[k] = s * wi[k] + c * h;
              wi[k] = c * wi[k] - s * h;
            }
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
}
