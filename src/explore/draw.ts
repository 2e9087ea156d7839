// What the explorer draws, from a Sweep (a grid running live, an imported file, a gallery entry:
// all the same): the arms with their colours, the charts (every step metric of the arms' loops,
// the registry's charts first), each arm's mean and band by step, generated tokens or compute time
// (metrics/bands.ts: the seeds that reached a step, n of them), thinned to the chart's width with
// LTTB; pass@k and maj@k by k at the start and the last evaluation with error bars across seeds.
import { armBand, type BandKind, type BandPoint, type SeedSeries } from '../metrics/bands';
import { isLoopName, loopNamed } from '../loops/registry';
import type { MetricChartSpec } from '../loops/spec';
import { lttb } from '../state/charts/series';
import type { Sweep, SweepEval, SweepSeed } from './format';
import { meanSe } from '../metrics/bands';

export type XMode = 'step' | 'tokens' | 'time';
export const X_MODES: readonly XMode[] = ['step', 'tokens', 'time'];
export const X_LABEL: Readonly<Record<XMode, string>> = { step: 'step', tokens: 'generated tokens', time: 'compute time (s)' };

export interface ArmView {
  id: string;
  label: string;
  /** the arm's colour: its place in the grid (stable while arms without seeds are still missing) */
  colour: number;
  loop: string;
  policy: string;
  control: boolean;
  matchedTo?: string;
  knobs: Record<string, unknown>;
  config: Record<string, unknown>;
  /** its seeds, in seed order */
  seeds: SweepSeed[];
  /** seeds planned (a live grid) or in the file */
  planned: number;
}

/** The arms of a sweep; `order` fixes colours by the grid's arms (live), `planned` their seed counts. */
export function armViews(s: Sweep, opts: { order?: readonly string[]; planned?: Readonly<Record<string, number>> } = {}): ArmView[] {
  return s.arms.map((a, i) => {
    const at = opts.order?.indexOf(a.id) ?? -1;
    return {
      id: a.id, label: a.label, colour: at >= 0 ? at : i, loop: a.ablation.loop, policy: a.ablation.base, control: a.control === true, matchedTo: a.matchedTo,
      knobs: a.knobs, config: a.ablation.config, seeds: [...a.ablation.results].sort((x, y) => x.seed - y.seed), planned: opts.planned?.[a.id] ?? a.ablation.results.length,
    };
  });
}

export interface ChartDef {
  /** `explorer-chart-<id>` */
  id: string;
  key: string;
  title: string;
  note: string;
  unit?: boolean;
  /** the loops whose own metric this is (null: every arm's loop reports it) */
  own: string[] | null;
  /** a recorded metric no loop view draws (the explorer lists these under "more metrics") */
  extra?: boolean;
}

const safeId = (key: string) => key.replace(/[^\w-]+/g, '-');

/** A loop's charts of single metrics: its metric charts, then each line of its multi-line charts. */
function loopCharts(loop: string): MetricChartSpec[] {
  if (!isLoopName(loop)) return [];
  const v = loopNamed(loop).spec.views;
  return [...v.metrics, ...(v.multiLine ?? []).flatMap((m) => m.series.map((s) => ({ id: safeId(s.key), key: s.key, title: `${m.title}: ${s.label}`, note: m.note, unit: m.unit })))];
}

const hasValues = (arms: readonly ArmView[], key: string) => arms.some((a) => a.seeds.some((s) => s.series?.metrics[key]?.some((v) => v !== null && Number.isFinite(v))));

/**
 * Every step metric the arms recorded, one chart each: the registry's charts of the arms' loops
 * first (shared ones, then each loop's own), then any other recorded metric by name. A chart with
 * no value in any arm is left out.
 */
export function chartDefs(arms: readonly ArmView[]): ChartDef[] {
  const loops = [...new Set(arms.map((a) => a.loop))];
  const byKey = new Map<string, { spec: MetricChartSpec; loops: string[] }>();
  for (const l of loops) for (const spec of loopCharts(l)) {
    const had = byKey.get(spec.key);
    // a loop can draw one metric twice (its own chart and a line of a multi-line one): counted once
    if (had) {
      if (!had.loops.includes(l)) had.loops.push(l);
    }
    else byKey.set(spec.key, { spec, loops: [l] });
  }
  const out: ChartDef[] = [];
  const ids = new Set<string>();
  const add = (d: Omit<ChartDef, 'id'> & { id: string }) => {
    let id = d.id;
    for (let i = 2; ids.has(id); i++) id = `${d.id}-${i}`;
    ids.add(id);
    out.push({ ...d, id });
  };
  const entries = [...byKey.values()];
  const shared = entries.filter((e) => e.loops.length === loops.length);
  const own = entries.filter((e) => e.loops.length < loops.length);
  for (const e of [...shared, ...own]) {
    if (!hasValues(arms, e.spec.key)) continue;
    add({ id: e.spec.id, key: e.spec.key, title: e.spec.title, note: e.spec.note, unit: e.spec.unit, own: e.loops.length === loops.length ? null : e.loops });
  }
  const recorded = new Set(arms.flatMap((a) => a.seeds.flatMap((s) => Object.keys(s.series?.metrics ?? {}))));
  for (const key of [...recorded].filter((k) => !byKey.has(k)).sort()) {
    if (!hasValues(arms, key)) continue;
    add({ id: safeId(key), key, title: key, note: 'A step metric the runs recorded (no chart of its own in the loops\' views).', own: null, extra: true });
  }
  return out;
}

/** A seed's x values on the axis: its steps, its cumulative generated tokens, or its cumulative compute seconds. */
export function xOf(s: SweepSeed, mode: XMode): number[] {
  const series = s.series;
  if (!series) return [];
  if (mode === 'step') return series.step;
  if (mode === 'tokens') return series.tokens.map((t) => (t === null ? NaN : t));
  let t = 0;
  return series.seconds.map((x) => (t = x === null || !Number.isFinite(t) ? NaN : t + x));
}

/** An arm's band of one metric (the seeds that reached each step), or [] when no seed recorded curves. */
export function armLine(arm: ArmView, key: string, mode: XMode, kind: BandKind): BandPoint[] {
  const withSeries = arm.seeds.filter((s) => s.series);
  if (withSeries.length === 0) return [];
  const seeds: SeedSeries[] = withSeries.map((s) => ({ x: xOf(s, mode), y: (s.series!.metrics[key] ?? []).map((v) => (v === null ? NaN : v)) }));
  const longest = withSeries.reduce((a, s) => (s.series!.step.length > a.length ? s.series!.step : a), [] as number[]);
  return armBand(seeds, longest, kind).filter((p) => Number.isFinite(p.mean) && Number.isFinite(p.x));
}

/** The band thinned to `width` points by LTTB on its mean (peaks kept); the band is kept at the same points. */
export function thinBand(points: readonly BandPoint[], width: number): BandPoint[] {
  const max = Math.max(2, Math.floor(width));
  if (points.length <= max) return points.slice();
  const tagged = points.map((p, i) => ({ x: p.x, y: p.mean, i }));
  return (lttb(tagged, max) as typeof tagged).map((t) => points[t.i]);
}

/** One seed's own line of a metric (the "seeds" option draws these thin, in the arm's colour). */
export function seedLine(s: SweepSeed, key: string, mode: XMode): { x: number; y: number }[] {
  const xs = xOf(s, mode);
  const ys = s.series?.metrics[key] ?? [];
  const out: { x: number; y: number }[] = [];
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    if (y !== null && Number.isFinite(y) && Number.isFinite(xs[i])) out.push({ x: xs[i], y });
  }
  return out;
}

/** Seeds that have recorded any value of the metric (the legend's n). */
export const seedsWith = (arm: ArmView, key: string): number => arm.seeds.filter((s) => s.series?.metrics[key]?.some((v) => v !== null && Number.isFinite(v))).length;

export interface KPoint {
  k: number;
  mean: number;
  se: number;
  n: number;
}

/** The evaluation of each seed at the start or at its last evaluation. */
export const evalsAt = (arm: ArmView, at: 'start' | 'end'): SweepEval[] => arm.seeds.map((s) => (at === 'start' ? s.start : s.end));

/**
 * pass@k (or maj@k) by k of an arm at the start or at the last evaluation: each k's mean over the
 * seeds with its standard error across seeds (an evaluation's pass@k is already its mean over
 * problems). Only the k every seed reports; none when a seed lacks maj@k.
 */
export function kCurve(arm: ArmView, at: 'start' | 'end', what: 'pass' | 'maj'): KPoint[] {
  const evals = evalsAt(arm, at);
  const tables = evals.map((e) => (what === 'pass' ? e.passAtK : e.majAtK));
  if (tables.length === 0 || tables.some((t) => !t)) return [];
  const ks = Object.keys(tables[0]!).map(Number).filter((k) => Number.isInteger(k) && k >= 1 && tables.every((t) => String(k) in t!)).sort((a, b) => a - b);
  return ks.map((k) => ({ k, ...meanSe(tables.map((t) => t![String(k)])) })).filter((p) => Number.isFinite(p.mean));
}

/** The arms' colours: distinct for the first ten (Tableau 10), then spread around the hue circle. */
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
export function armColour(i: number): string {
  if (i < PALETTE.length) return PALETTE[i];
  return `hsl(${Math.round((i * 137.508) % 360)} 65% 45%)`;
}
