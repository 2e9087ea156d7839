// What a chart plots: finite points of one metric, optionally smoothed (TensorBoard's debiased
// exponential moving average) and restricted to positive values on a log axis, then thinned to
// the chart's width in pixels with largest-triangle-three-buckets, which keeps the peaks.

export interface XY {
  x: number;
  y: number;
}

/** Debiased EMA: weight 0 returns the input; weight in [0, 1). */
export function smooth(ys: readonly number[], weight: number): number[] {
  if (!(weight >= 0 && weight < 1)) throw new RangeError(`smooth: weight must be in [0, 1), got ${weight}`);
  if (weight === 0) return ys.slice();
  const out: number[] = [];
  let last = 0;
  let n = 0;
  for (const y of ys) {
    n++;
    last = last * weight + (1 - weight) * y;
    out.push(last / (1 - weight ** n));
  }
  return out;
}

/** Largest-triangle-three-buckets down to `threshold` points (first and last kept). */
export function lttb(points: readonly XY[], threshold: number): XY[] {
  const n = points.length;
  if (threshold >= n || n <= 2) return points.slice();
  if (threshold < 3) return threshold <= 1 ? points.slice(-1) : [points[0], points[n - 1]];
  const out: XY[] = [points[0]];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    const start = Math.floor(i * every) + 1;
    const end = Math.min(Math.floor((i + 1) * every) + 1, n - 1);
    const nextEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let ax = 0, ay = 0, cnt = 0;
    for (let j = end; j < nextEnd; j++) (ax += points[j].x), (ay += points[j].y), cnt++;
    if (cnt === 0) (ax = points[n - 1].x), (ay = points[n - 1].y), (cnt = 1);
    ax /= cnt;
    ay /= cnt;
    let best = start;
    let bestArea = -1;
    for (let j = start; j < end; j++) {
      const area = Math.abs((points[a].x - ax) * (points[j].y - points[a].y) - (points[a].x - points[j].x) * (ay - points[a].y));
      if (area > bestArea) (bestArea = area), (best = j);
    }
    out.push(points[best]);
    a = best;
  }
  out.push(points[n - 1]);
  return out;
}

export interface SeriesPoint {
  x: number;
  /** the plotted (smoothed) value */
  y: number;
  /** the recorded value */
  raw: number;
}

/** Points of one metric ready to plot at `width` pixels. */
export function chartSeries(xs: readonly number[], ys: readonly number[], opts: { smoothing: number; log: boolean; width: number }): SeriesPoint[] {
  const pts: XY[] = [];
  for (let i = 0; i < xs.length; i++) if (Number.isFinite(ys[i])) pts.push({ x: xs[i], y: ys[i] });
  const sm = smooth(pts.map((p) => p.y), opts.smoothing);
  let out = pts.map((p, i) => ({ x: p.x, y: sm[i], raw: p.y }));
  if (opts.log) out = out.filter((p) => p.y > 0 && p.raw > 0);
  const max = Math.max(2, Math.floor(opts.width));
  if (out.length <= max) return out;
  const byX = new Map(out.map((p) => [p.x, p]));
  return lttb(out.map((p) => ({ x: p.x, y: p.y })), max).map((p) => byX.get(p.x)!);
}
