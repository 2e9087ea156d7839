// The first principal components of a set of vectors (the pool map's projection): centre, then
// power iteration with deflation on the covariance, from a fixed start so the map is the same on
// every reload. Signs are fixed so a component's largest-magnitude entry is positive.

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** The top `k` unit eigenvectors of X^T X (X centred, rows = vectors), largest first; zero vectors when the variance runs out. */
export function principalComponents(rows: readonly ArrayLike<number>[], k = 2, iterations = 200): Float64Array[] {
  const n = rows.length;
  const d = n ? rows[0].length : 0;
  const mean = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / n;
  const X = rows.map((r) => Float64Array.from({ length: d }, (_, j) => r[j] - mean[j]));
  const comps: Float64Array[] = [];
  for (let c = 0; c < k; c++) {
    let v = Float64Array.from({ length: d }, (_, j) => 1 + ((j * 7919 + c * 104729) % 13) / 13);
    let ok = false;
    for (let it = 0; it < iterations; it++) {
      const w = new Float64Array(d);
      for (const x of X) {
        const p = dot(x, v);
        for (let j = 0; j < d; j++) w[j] += p * x[j];
      }
      // deflate: stay orthogonal to the components found
      for (const u of comps) {
        const p = dot(w, u);
        for (let j = 0; j < d; j++) w[j] -= p * u[j];
      }
      const norm = Math.sqrt(dot(w, w));
      if (norm < 1e-12) break;
      v = w.map((x) => x / norm);
      ok = true;
    }
    if (!ok) v = new Float64Array(d);
    let big = 0;
    for (let j = 0; j < d; j++) if (Math.abs(v[j]) > Math.abs(v[big])) big = j;
    if (v[big] < 0) v = v.map((x) => -x);
    comps.push(v);
  }
  return comps;
}

/** Each vector's coordinates on the first two principal components (centred). */
export function project2d(rows: readonly ArrayLike<number>[]): { x: number; y: number }[] {
  if (rows.length === 0) return [];
  const [a, b] = principalComponents(rows, 2);
  const d = rows[0].length;
  const mean = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / rows.length;
  return rows.map((r) => {
    const c = Float64Array.from({ length: d }, (_, j) => r[j] - mean[j]);
    return { x: dot(c, a), y: dot(c, b) };
  });
}
