// What the explorer draws, from a Sweep (a grid running live, an imported file, a gallery entry:
// all the same): the arms with their colours, the charts (every step metric of the arms' loops,
// the registry's charts first), each arm's mean and band by step, generated tokens or compute time
// (metrics/bands.ts: at each x the seeds whose values span it, n of them; dashed where not all do,
// a ring at the arm's end where its seeds end apart), thinned to the chart's width with
// LTTB; pass@k and maj@k by k at the start and the last evaluation with error bars across seeds;
// the held-out evaluations over training (pass@1, pass@K, entropy) drawn as bands like a step metric.
import { armBand, bandOf, type BandKind, type BandPoint, type SeedSeries } from '../metrics/bands';
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

/**
 * An arm's band of one metric along the chosen axis (at each x, the seeds whose values span it: by
 * tokens, seeds that spend different tokens a step are compared at the same tokens), or [] when no
 * seed recorded curves.
 */
export function armLine(arm: ArmView, key: string, mode: XMode, kind: BandKind): BandPoint[] {
  const seeds: SeedSeries[] = arm.seeds.filter((s) => s.series).map((s) => ({ x: xOf(s, mode), y: (s.series!.metrics[key] ?? []).map((v) => (v === null ? NaN : v)) }));
  return armBand(seeds, kind).filter((p) => Number.isFinite(p.mean));
}

/**
 * Where an arm's seeds end when they end apart (different last x): the mean of every seed's last
 * value at the mean of their last x, with n = all of them: the arm's result, which a tail drawn from
 * fewer seeds is not. null when the seeds end together (the line's last point is this already).
 */
export function armEnd(arm: ArmView, key: string, mode: XMode, kind: BandKind): BandPoint | null {
  const lasts = arm.seeds.filter((s) => s.series).flatMap((s) => {
    const xs = xOf(s, mode), ys = s.series!.metrics[key] ?? [];
    for (let i = Math.min(xs.length, ys.length) - 1; i >= 0; i--) {
      const y = ys[i];
      if (y !== null && Number.isFinite(y) && Number.isFinite(xs[i])) return [{ x: xs[i], y }];
    }
    return [];
  });
  if (lasts.length < 2 || lasts.every((l) => l.x === lasts[0].x)) return null;
  const x = lasts.reduce((a, l) => a + l.x, 0) / lasts.length;
  return { ...bandOf(lasts.map((l) => l.y), kind), step: x, x };
}

/**
 * An arm's line split where not all its seeds count: `full` from the first to the last point every
 * seed that has the metric spans (n at its largest), `head` before it and `tail` after it (each
 * sharing its end point with `full`, so they join). On the tokens axis seeds start and stop at
 * different tokens; by step a seed may stop early (halted, still running, or stopped at a budget).
 * There the mean is over fewer seeds, and a jump is the seeds changing, not the metric: the chart
 * draws head and tail dashed, with no band.
 */
export function splitBySeeds(points: readonly BandPoint[]): { head: BandPoint[]; full: BandPoint[]; tail: BandPoint[]; seeds: number } {
  const seeds = points.reduce((a, p) => Math.max(a, p.n), 0);
  const first = points.findIndex((p) => p.n === seeds);
  let last = -1;
  for (let i = 0; i < points.length; i++) if (points[i].n === seeds) last = i;
  if (first < 0) return { head: [], full: [], tail: [], seeds };
  return {
    head: first > 0 ? points.slice(0, first + 1) : [],
    full: points.slice(first, last + 1),
    tail: last < points.length - 1 ? points.slice(last) : [],
    seeds,
  };
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

/** The held-out charts' keys: pass@1, pass@k at the largest k every evaluation reports, and the mean token entropy. */
const HELDOUT_PASS1 = 'heldout/pass@1';
const HELDOUT_ENTROPY = 'heldout/entropy';

/** A seed's evaluations by step (start, the --eval-every ones, end), one per step, in step order. */
function seedEvals(s: SweepSeed): SweepEval[] {
  const byStep = new Map<number, SweepEval>();
  for (const e of [s.start, ...(s.evals ?? []), s.end]) byStep.set(e.step, e);
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

/**
 * The held-out set over training, drawn like a step metric: each seed's evaluations become a series
 * at their steps (x by step, by the cumulative generated tokens at that step, or by the compute time
 * spent training up to it), with pass@1, pass@K (K the largest k every evaluation of every arm
 * reports) and the mean token entropy of the samples as its metrics. Arms whose seeds evaluated only
 * at the start and the end still get their two points; `curves` is false when no seed evaluated
 * between them (the explorer then leaves these charts out: pass@k by k already shows start and end).
 */
export function heldoutView(arms: readonly ArmView[]): { arms: ArmView[]; defs: ChartDef[]; curves: boolean } {
  const all = arms.flatMap((a) => a.seeds.flatMap(seedEvals));
  const ks = all.length ? Object.keys(all[0].passAtK).map(Number).filter((k) => Number.isInteger(k) && k > 1 && all.every((e) => typeof e.passAtK[String(k)] === 'number')) : [];
  const kMax = ks.length ? Math.max(...ks) : null;
  const keyMax = kMax === null ? null : `heldout/pass@${kMax}`;
  const seriesOf = (s: SweepSeed): SweepSeed['series'] => {
    const evals = seedEvals(s);
    const at = new Map<number, number>((s.series?.step ?? []).map((st, i) => [st, i]));
    const tokensAt = (step: number) => (step === 0 ? 0 : step === s.steps && !at.has(step) ? s.generatedTokens : (s.series?.tokens[at.get(step) ?? -1] ?? null));
    let cum = 0;
    const secondsTo = s.series ? s.series.step.map((_, i) => (cum += s.series!.seconds[i] ?? NaN)) : [];
    const secAt = (step: number) => (step === 0 ? 0 : at.has(step) ? secondsTo[at.get(step)!] : step === s.steps ? s.seconds : NaN);
    const metrics: Record<string, (number | null)[]> = {
      [HELDOUT_PASS1]: evals.map((e) => e.passAtK['1'] ?? null),
      [HELDOUT_ENTROPY]: evals.map((e) => e.meanEntropy),
    };
    if (keyMax) metrics[keyMax] = evals.map((e) => e.passAtK[String(kMax)] ?? null);
    // xOf adds the seconds up: each point carries the compute time since the one before
    const secs = evals.map((e) => secAt(e.step));
    return { step: evals.map((e) => e.step), tokens: evals.map((e) => tokensAt(e.step)), seconds: secs.map((t, i) => (i === 0 ? t : t - secs[i - 1])), metrics };
  };
  const out = arms.map((a) => ({ ...a, seeds: a.seeds.map((s) => ({ ...s, series: seriesOf(s) })) }));
  const defs: ChartDef[] = [
    { id: 'heldout-pass1', key: HELDOUT_PASS1, title: 'Held-out pass@1 over training', note: 'pass@1 on the held-out set at each evaluation (the start, every --eval-every steps, the end): the mean over problems, each arm\'s mean over its seeds with the band.', own: null },
    ...(keyMax ? [{ id: `heldout-pass${kMax}`, key: keyMax, title: `Held-out pass@${kMax} over training`, note: `Coverage: the chance that at least one of ${kMax} samples is right, at each evaluation. RLVR that narrows the policy pulls it below the start while pass@1 rises.`, own: null }] : []),
    { id: 'heldout-entropy', key: HELDOUT_ENTROPY, title: 'Held-out entropy over training (nats per token)', note: 'Mean token entropy of the held-out samples at each evaluation (the same problems and sampling every time), beside the training-time entropy of the step charts.', own: null },
  ];
  return { arms: out, defs, curves: arms.some((a) => a.seeds.some((s) => seedEvals(s).length > 2)) };
}

/** An axis title's width per character in the parallel-coordinates chart (11 px text), for its layout. */
const TITLE_CHAR_PX = 6.5;

/**
 * Where the parallel-coordinates chart puts its axes in a figure `width` wide: at least 110 px
 * apart (a narrow screen scrolls the chart sideways rather than overlap them), with margins that
 * hold the first and last titles (centred on their axes) and the last axis's value labels; where two
 * neighbouring titles would still meet, every other one drops a line and the plot starts lower.
 */
export function parallelLayout(titles: readonly string[], width: number): { w: number; xs: number[]; titleY: number[]; top: number } {
  const half = (j: number) => (titles[j].length * TITLE_CHAR_PX) / 2;
  const last = titles.length - 1;
  if (last < 0) return { w: width, xs: [], titleY: [], top: 22 };
  const left = Math.max(40, half(0) + 4), right = Math.max(60, half(last) + 4);
  const w = Math.max(width, left + right + 110 * last);
  const gap = last > 0 ? (w - left - right) / last : 0;
  const xs = titles.map((_, j) => left + j * gap);
  const staggered = titles.some((_, j) => j < last && half(j) + half(j + 1) + 8 > gap);
  return { w, xs, titleY: titles.map((_, j) => (staggered && j % 2 === 1 ? 26 : 12)), top: staggered ? 36 : 22 };
}

/** The arms' colours: distinct for the first ten (Tableau 10), then spread around the hue circle. */
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
export function armColour(i: number): string {
  if (i < PALETTE.length) return PALETTE[i];
  return `hsl(${Math.round((i * 137.508) % 360)} 65% 45%)`;
}
