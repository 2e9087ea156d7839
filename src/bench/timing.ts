// Pure helpers of `rlvr-lab bench`: repetition counts, summary statistics and the text table.
// No GPU here, so test/cpu/bench_timing.test.ts can check them.

/** Geometric mean of positive numbers (the summary of per-size speed ratios). */
export function geomean(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('geomean of an empty list');
  for (const x of xs) if (!(x > 0) || !Number.isFinite(x)) throw new Error(`geomean needs positive finite numbers, got ${x}`);
  return Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
}

/**
 * How many repetitions fill about `targetS` seconds, given one calibration repetition took
 * `oneS` seconds; clamped to [min, max] so a very fast op does not run forever and a slow one
 * still runs more than once.
 */
export function calibratedReps(oneS: number, targetS: number, min: number, max: number): number {
  if (!(min >= 1) || max < min) throw new Error(`calibratedReps: bad bounds [${min}, ${max}]`);
  if (!(oneS > 0)) return max;
  return Math.min(max, Math.max(min, Math.round(targetS / oneS)));
}

/** Seconds taken by `fn` (wall clock, including the wait it awaits). */
export async function seconds(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

/** GFLOP/s of `reps` matmuls [M,K]x[K,N] done in `s` seconds. */
export function matmulGflops(dims: { M: number; K: number; N: number }, reps: number, s: number): number {
  return (2 * dims.M * dims.K * dims.N * reps) / s / 1e9;
}

/** A number with about three significant digits, without exponent notation for common ranges. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a >= 1000) return Math.round(x).toString();
  if (a >= 100) return x.toFixed(1);
  if (a >= 10) return x.toFixed(2);
  if (a >= 0.01) return x.toFixed(3);
  return x.toExponential(2);
}

/** Rounds for the JSON summary: three significant digits, integers stay integers. */
export function round3(x: number): number {
  if (!Number.isFinite(x) || x === 0 || Number.isInteger(x)) return x;
  return Number(x.toPrecision(3));
}

/** A left-aligned first column and right-aligned others, columns padded to their widest cell. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  for (const r of rows) if (r.length !== headers.length) throw new Error(`table row has ${r.length} cells, expected ${headers.length}`);
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: readonly string[]) => cells.map((s, c) => (c === 0 ? s.padEnd(widths[c]) : s.padStart(widths[c]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
