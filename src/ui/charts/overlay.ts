// Rows for a chart that overlays several series on one x axis: series i plots as `y<i>` (and its
// recorded value as `raw<i>`, and where known its step as `s<i>` and its time as `t<i>`, for the
// tooltips); a seed group adds `mean` and `band` ([lo, hi]). Rows are sorted by x; a series
// without a point at some x leaves the key out there (lines connect across).
import type { SeriesPoint } from '../../state/charts/series';
import type { Timed } from '../../state/charts/wallTime';

export type OverlayRow = { x: number; band?: [number, number] } & Record<string, number | [number, number] | undefined>;

export function overlayRows(series: readonly (readonly (SeriesPoint & Partial<Timed>)[])[], band: readonly { x: number; mean: number; lo: number; hi: number }[] = []): OverlayRow[] {
  const rows = new Map<number, OverlayRow>();
  const row = (x: number): OverlayRow => {
    let r = rows.get(x);
    if (!r) rows.set(x, (r = { x }));
    return r;
  };
  series.forEach((pts, i) => {
    for (const p of pts) {
      const r = row(p.x);
      r[`y${i}`] = p.y;
      r[`raw${i}`] = p.raw;
      if (p.step !== undefined) r[`s${i}`] = p.step;
      if (p.time !== undefined && Number.isFinite(p.time)) r[`t${i}`] = p.time;
    }
  });
  for (const b of band) {
    const r = row(b.x);
    r.mean = b.mean;
    r.band = [b.lo, b.hi];
  }
  return [...rows.values()].sort((a, b) => a.x - b.x);
}

/** The CSS class of series i among n: the single-run look for one, a palette colour otherwise. */
export function seriesClass(i: number, n: number): string {
  return n === 1 ? 'series-main' : `series-c${i % 6}`;
}

/**
 * Colours of a loop's categories (stacked bands, a multi-line chart's series): one palette for
 * bars, lines and legend swatches (styles/compare.css `.cat-c<i>`), as long as the longest category list
 * of any loop's views (a cpu test checks), and apart from the run palette.
 */
export const CATEGORY_COLOURS = 8;

export function categoryClass(i: number): string {
  return `cat-c${i % CATEGORY_COLOURS}`;
}

/** The one value every series holds at every step (at least two steps each), or null. */
export function constantValue(series: readonly { values?: readonly number[] }[]): number | null {
  if (series.length === 0) return null;
  let v: number | null = null;
  for (const s of series) {
    const ys = (s.values ?? []).filter(Number.isFinite);
    if (ys.length < 2) return null;
    for (const y of ys) {
      if (v === null) v = y;
      else if (y !== v) return null;
    }
  }
  return v;
}
