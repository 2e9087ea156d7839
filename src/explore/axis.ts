// Axes of the explorer's charts (drawn as plain SVG: dozens of charts of dozens of arms stay cheap
// to draw): a domain padded to round numbers with about five ticks at 1, 2 or 5 × 10^k, and a
// scale from data to pixels.

/** Ticks from `lo` to `hi` at a round spacing (about `target` intervals), the domain widened to the outer ticks. */
export function niceTicks(lo: number, hi: number, target = 5, integer = false): { ticks: number[]; lo: number; hi: number } {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { ticks: [0, 1], lo: 0, hi: 1 };
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  // steps and counts are whole: ticks at 1, 2, … (never 1.2), and never at 2.5 × 10^k
  const step = Math.max(integer ? 1 : 0, [1, 2, ...(integer ? [] : [2.5]), 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag);
  const start = Math.floor(lo / step + 1e-9) * step;
  const end = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  // rounded to the step's precision: 0.1 × 3 is 0.30000000000000004
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let t = start; t <= end + step / 2; t += step) ticks.push(Number(t.toFixed(digits)));
  return { ticks, lo: start, hi: end };
}

/** A linear map of [d0, d1] onto [r0, r1]. */
export const linear = (d0: number, d1: number, r0: number, r1: number) => (v: number): number => (d1 === d0 ? (r0 + r1) / 2 : r0 + ((v - d0) / (d1 - d0)) * (r1 - r0));

/** "1e-4", "0.25", "12k", "1.2M": short tick labels. */
export function tickText(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  if (v !== 0 && a < 1e-3) return v.toExponential(0).replace('e+', 'e');
  return String(Number(v.toPrecision(4)));
}
