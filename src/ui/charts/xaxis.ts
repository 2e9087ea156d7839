// The x axis of the charts by step, shared by the training and evaluation charts: steps, or each
// run's cumulative compute time (src/state/charts/wallTime.ts) with clock ticks; and the tooltips, which
// show a point's step and its time whichever the axis draws. Overlay rows carry each series'
// step as `s<i>` and time as `t<i>` (overlay.ts).
import { clockTicks, formatClock, type XAxisMode } from '../../state/charts/wallTime';

export interface ChartAxis {
  mode: XAxisMode;
  /** the axis's right end at least: the run's total steps, or the longest compute time shown (seconds) */
  max: number;
}

/** Short axis labels: "1e-4", "7.5e-5", "0.25", "120". */
export function axisTick(v: number): string {
  const a = Math.abs(v);
  if (v !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1).replace('.0e', 'e').replace('e+', 'e');
  return String(Number(v.toPrecision(3)));
}

type Domain = [number, number | ((dataMax: number) => number)];

/** An axis title as recharts takes it: under the ticks (x) or turned along the axis (y). */
export interface AxisTitle {
  value: string;
  position: 'insideBottom' | 'insideLeft';
  offset: number;
  angle?: number;
  className: string;
  style?: { textAnchor: 'middle' };
}

const X_TITLES: Readonly<Record<XAxisMode, string>> = { step: 'step', time: 'compute time (m:ss)', tokens: 'generated tokens' };

/** The x axis's title, with its unit. */
export function xTitle(mode: XAxisMode): AxisTitle {
  return { value: X_TITLES[mode], position: 'insideBottom', offset: 2, className: 'axis-title' };
}

/** Token counts on an axis: 950, 12k, 1.2M. */
export function tokenTick(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(2))}M`;
  if (a >= 1e3) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Math.round(v));
}

/** A y axis's title, with its unit. */
export function yTitle(text: string): AxisTitle {
  return { value: text, position: 'insideLeft', offset: 4, angle: -90, className: 'axis-title', style: { textAnchor: 'middle' } };
}

/** Room under the ticks for the x axis's title. */
export const X_TITLE_ROOM = 14;

/** Props of a numeric recharts XAxis (dataKey "x") for the axis. */
export function xAxisProps(axis: ChartAxis): { domain: Domain; ticks?: number[]; allowDecimals: boolean; tickFormatter: (v: number) => string; label: AxisTitle; height: number } {
  const titled = { label: xTitle(axis.mode), height: 30 + X_TITLE_ROOM };
  if (axis.mode === 'step') return { domain: [0, (dataMax: number) => Math.max(dataMax, axis.max)], allowDecimals: false, tickFormatter: axisTick, ...titled };
  if (axis.mode === 'tokens') return { domain: [0, (dataMax: number) => Math.max(dataMax, axis.max)], allowDecimals: false, tickFormatter: tokenTick, ...titled };
  // explicit ticks at clock-friendly spacings: recharts' own would fall at 0:03.75-like times
  const t = clockTicks(axis.max);
  return { domain: [0, t.end], ticks: t.ticks, allowDecimals: true, tickFormatter: (v: number) => formatClock(v, t.decimals), ...titled };
}

/**
 * A chart's margins for the axis: clock labels ("00:00.6") are wider than step numbers, and the
 * last sits on the plot's right edge, so a time axis leaves room for half of one.
 */
export function axisMargin<M extends { right: number }>(axis: ChartAxis, margin: M): M {
  return axis.mode !== 'step' ? { ...margin, right: Math.max(margin.right, 24) } : margin;
}

type Row = Readonly<Record<string, unknown>> | undefined;
/** A tooltip's data row as recharts hands it over (typed any there): an object, or nothing. */
const rowOf = (payload: unknown): Row => (typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : undefined);

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The first series' coordinate `key` ('s' step, 't' time) in a row. */
function firstOf(row: Row, key: 's' | 't'): number | undefined {
  if (!row) return undefined;
  const k = Object.keys(row).find((name) => new RegExp(`^${key}\\d+$`).test(name) && finite(row[name]));
  return k === undefined ? undefined : (row[k] as number);
}

/**
 * The tooltip's heading: the point's x ("step 12" or "01:23.4"); with one run, the other
 * coordinate too ("step 12 · 01:23.4"). With several runs each value says its own (tipValue).
 */
export function tipLabel(x: unknown, payload: unknown, mode: XAxisMode, single: boolean): string {
  const row = rowOf(payload);
  const n = Number(x);
  if (mode === 'step') {
    const t = single ? firstOf(row, 't') : undefined;
    return t === undefined ? `step ${n}` : `step ${n} · ${formatClock(t, 1)}`;
  }
  const head = finite(n) && n >= 0 ? (mode === 'tokens' ? `${n.toLocaleString('en-US')} tokens` : formatClock(n, 1)) : String(x);
  const s = single ? firstOf(row, 's') : undefined;
  return s === undefined ? head : `${head} · step ${s}`;
}

/**
 * A value in the tooltip. With several runs, series `y<i>` is followed by its own run's step (on
 * a time axis) or time (on a step axis): runs reach a step at different times.
 */
export function tipValue(text: string, dataKey: unknown, payload: unknown, mode: XAxisMode, single: boolean): string {
  const row = rowOf(payload);
  const m = /^y(\d+)$/.exec(String(dataKey));
  if (single || !m || !row) return text;
  const other = row[`${mode !== 'step' ? 's' : 't'}${m[1]}`];
  if (!finite(other)) return text;
  return mode !== 'step' ? `${text} at step ${other}` : `${text} at ${formatClock(other, 1)}`;
}

/** One line for the chart notes: what wall time means. */
export const WALL_TIME_NOTE = 'Wall time: each run\'s compute seconds summed over its training steps, so pauses, evaluations and checkpoint saves are left out.';
