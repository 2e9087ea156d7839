// One training metric by step or by wall time (xaxis.ts), of the selected run or of the runs
// compared (a seed group adds its mean and min–max band, by step only); steps where a run stopped
// on its own, or took new knob values, are marked. Points are
// thinned to the chart's width; with smoothing on, a single run's recorded values stay as a
// faint line under the smoothed one. Animation is off: the store updates at most once per frame
// and each update draws at once.
import { createContext, memo, useContext, useMemo, useRef, useState, type ComponentType, type ReactNode } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { meanBand } from '../../state/compare';
import { chartSeries, smooth } from '../../state/charts/series';
import { placeOnAxis, type RunClock, type XAxisMode } from '../../state/charts/wallTime';
import { formatValue } from '../format';
import { useLab } from '../LabStore';
import type { MetricChartSpec } from './specs';
import { categoryClass, constantValue, overlayRows, seriesClass } from './overlay';
import { downloadChartPng, type LegendEntry } from './png';
import { useStaggered } from './stagger';
import { useWidth } from './useWidth';
import { LessonFocus } from '../Lesson';
import { axisMargin, axisTick, tipLabel, tipValue, xAxisProps, yTitle, type AxisTitle, type ChartAxis } from './xaxis';
import { errorText } from '../../util/errors';

export { axisTick };

export const CHART_HEIGHT = 170;
/**
 * Every tick the axis computes is drawn (about five): with recharts' default it measures each
 * label's text in the DOM to thin them, a forced layout per label and most of an axis's cost.
 */
export const ALL_TICKS = 0;
const Y_AXIS_WIDTH = 62;
const MARGIN = { top: 6, right: 10, bottom: 0, left: 0 };

interface ChartFrameProps {
  id: string;
  title: string;
  value?: string;
  note: string;
  points: number;
  children: ReactNode;
  extra?: Record<string, string | number>;
  /** the series drawn, for the PNG's legend */
  legend?: readonly LegendEntry[];
  /** nothing drawn to save (a constant metric shown as text) */
  noPng?: boolean;
  /** the one run a loop's own chart draws while several are compared: named beside the title */
  run?: RunBadge;
}

/** Which run a chart of one run shows, while several are compared: its label and legend swatch. */
export interface RunBadge {
  label: string;
  cls: string;
}

/**
 * A chart's tooltip mounts when a pointer or the focus first reaches the chart: most charts are
 * never pointed at, and a mounted tooltip adds a measured wrapper and listeners to every drawing.
 */
export function useTooltipOn(): [boolean, { onPointerEnter: () => void; onFocus: () => void }] {
  const [on, setOn] = useState(false);
  const turnOn = () => setOn(true);
  return [on, { onPointerEnter: turnOn, onFocus: turnOn }];
}

/** True while newer data waits for the chart's turn (see staggered). */
const Waiting = createContext(false);

/** Whose charts these are ("#3 GRPO · small", "2 runs compared: #1, #3"): a saved PNG's title names it. */
export const ChartSubject = createContext('');

export function ChartFrame({ id, title, value, note, points, children, extra, legend = [], noPng = false, run }: ChartFrameProps) {
  const figure = useRef<HTMLElement>(null);
  const waiting = useContext(Waiting);
  const subject = useContext(ChartSubject);
  // a lesson's chart to watch is marked (styles/lessons.css)
  const focus = useContext(LessonFocus).includes(id);
  const [pngError, setPngError] = useState<string | null>(null);
  const pngTitle = run ? `${title} · ${run.label}` : subject ? `${title} · ${subject}` : title;
  const savePng = () => {
    if (!figure.current) return;
    setPngError(null);
    downloadChartPng(figure.current, id, pngTitle, legend).catch((e: unknown) => setPngError(`PNG: ${errorText(e)}`));
  };
  return (
    <figure ref={figure} className={focus ? 'chart metric-chart lesson-focus' : 'chart metric-chart'} data-testid={`chart-${id}`} data-lesson-focus={focus || undefined} data-run={run?.label} data-points={points} data-png-title={pngTitle} data-waiting={waiting || undefined} {...Object.fromEntries(Object.entries(extra ?? {}).map(([k, v]) => [`data-${k}`, v]))}>
      <figcaption>
        <span className="chart-title">{title}</span>
        {run && (
          <span className="chart-run" data-testid="chart-run">
            <span className={`swatch ${run.cls}`} aria-hidden="true" />
            {run.label} only
          </span>
        )}
        {value !== undefined && <span className="chart-value">{value}</span>}
        <button type="button" className="link chart-png" data-testid={`chart-png-${id}`} disabled={points === 0 || noPng} title={noPng ? 'A constant value: nothing drawn to save' : 'Save this chart as a PNG picture'} aria-label={`Save the chart ${title} as PNG`} onClick={savePng}>
          PNG
        </button>
      </figcaption>
      {children}
      <p className="chart-note">{note}</p>
      {pngError && (
        <p className="cfg-error" role="alert">
          {pngError}
        </p>
      )}
    </figure>
  );
}

/** The y axis's title: the chart's own unit, "fraction" for a 0–1 chart, none otherwise. */
function yLabelOf(spec: MetricChartSpec): AxisTitle | undefined {
  const text = spec.yLabel ?? (spec.unit ? 'fraction' : null);
  return text ? yTitle(text) : undefined;
}

type Bound = number | 'auto' | ((v: number) => number);

/**
 * Fractions (rates, rewards) keep a 0–1 axis; other metrics start at 0 and never show an empty
 * 0–0 axis; a log axis spans whole decades (an automatic one zooms into rounding noise).
 */
function yDomain(spec: MetricChartSpec, log: boolean, minY: number, maxY: number): [Bound, Bound] {
  if (log) {
    const lo = 10 ** Math.floor(Math.log10(minY));
    const hi = 10 ** Math.ceil(Math.log10(maxY));
    return [lo, hi > lo ? hi : lo * 10];
  }
  if (spec.unit) return [0, maxY > 1 ? 'auto' : 1];
  return [(min: number) => Math.min(0, min), maxY > 0 ? 'auto' : 1];
}

/** One run's values of the chart's metric. */
export interface ChartSeries {
  id: string;
  name: string;
  steps: readonly number[];
  /** the metric's values aligned with `steps`; undefined until the loop reports it */
  values: readonly number[] | undefined;
  /** the run's compute time by step (clockOf: one object per version of the run's data) */
  clock: RunClock;
}

/** A knob change marked on a chart: its step, where the axis draws it, and what changed. */
export interface ChangeLine {
  step: number;
  x: number;
  label: string;
}

interface MetricChartProps {
  spec: MetricChartSpec;
  /** one run, or the runs compared (the first is the base) */
  series: readonly ChartSeries[];
  /** the runs differ only by seed: draw their mean and min–max band */
  seeds: boolean;
  /** where runs stopped on their own, in the axis's unit (reference lines) */
  marks: readonly number[];
  /** where a run's knobs changed, with what changed (labelled reference lines) */
  changes?: readonly ChangeLine[];
  axis: ChartAxis;
  /** why the shown runs' set-ups hold this metric fixed (null: they do not) */
  fixed?: string | null;
  /** the series are a loop's categories of one run (categoryClass colours), not runs */
  categories?: boolean;
  run?: RunBadge;
}

const NO_CHANGES: readonly ChangeLine[] = [];
const changesKey = (c: readonly ChangeLine[] | undefined): string => (c ?? NO_CHANGES).map((x) => `${x.x}:${x.label}`).join('|');

const sameSeries = (a: readonly ChartSeries[], b: readonly ChartSeries[]): boolean =>
  a.length === b.length && a.every((s, i) => s.id === b[i].id && s.name === b[i].name && s.steps === b[i].steps && s.values === b[i].values && s.clock === b[i].clock);

/** Re-renders only when a plotted array changes: a batch that only changes a run's status redraws no chart. */
function sameProps(a: MetricChartProps, b: MetricChartProps): boolean {
  return a.spec === b.spec && a.seeds === b.seeds && a.fixed === b.fixed && a.categories === b.categories && a.run?.label === b.run?.label && a.run?.cls === b.run?.cls && a.axis.mode === b.axis.mode && a.axis.max === b.axis.max && a.marks.join() === b.marks.join() && changesKey(a.changes) === changesKey(b.changes) && sameSeries(a.series, b.series);
}

/**
 * The lines, placed on the axis after smoothing and thinning by step. The seed band needs one x
 * common to all seeds: a step is, a time is not (each seed reaches a step at its own time), so on
 * a time axis each seed's line is drawn on its own clock, without mean or band.
 */
function usePlot(series: readonly ChartSeries[], seeds: boolean, width: number, mode: XAxisMode) {
  const smoothing = useLab((s) => s.view.smoothing);
  const log = useLab((s) => s.view.logScale);
  return useMemo(() => {
    const opts = { smoothing, log, width: width - Y_AXIS_WIDTH };
    const lines = series.map((s) => (s.values && width > 0 ? placeOnAxis(chartSeries(s.steps, s.values, opts), s.clock, mode) : []));
    const band = seeds && mode === 'step' && width > 0 ? seedBand(series, smoothing, log) : [];
    return { lines, rows: overlayRows(lines, band), band, smoothing, log };
  }, [series, seeds, width, smoothing, log, mode]);
}

/** Mean and min–max band of the seeds, smoothed like the lines. */
function seedBand(series: readonly ChartSeries[], smoothing: number, log: boolean) {
  const b = meanBand(series.map((s) => ({ xs: s.steps, ys: s.values ?? [] })));
  const [mean, lo, hi] = [b.map((p) => p.mean), b.map((p) => p.lo), b.map((p) => p.hi)].map((ys) => smooth(ys, smoothing));
  const out = b.map((p, i) => ({ x: p.x, mean: mean[i], lo: lo[i], hi: hi[i] }));
  return log ? out.filter((p) => p.lo > 0) : out;
}

/**
 * A chart that draws new props in its own turn (stagger.ts), never inside the update that brought
 * them: the drawing is memoised on the props of its last turn; before its first, an empty frame.
 */
export function staggered<P extends object>(Chart: ComponentType<P>, frame: (p: P) => { id: string; title: string; note: string }): ComponentType<P> {
  // memoised on primitives and the props of the last turn: a newer `props` waiting for its turn redraws nothing
  const Drawing = memo(function Drawing({ props, id, title, note }: { props: P | null; id: string; title: string; note: string }) {
    if (props !== null) return <Chart {...props} />;
    return (
      <ChartFrame id={id} title={title} note={note} points={0}>
        <div className="chart-area" />
      </ChartFrame>
    );
  });
  return function Staggered(props: P) {
    const shown = useStaggered(props);
    // the frame alone re-renders for this (its drawn children are unchanged elements)
    return (
      <Waiting.Provider value={shown !== props}>
        <Drawing props={shown} {...frame(props)} />
      </Waiting.Provider>
    );
  };
}

/** A training metric's chart; a batch that changes none of its arrays does not redraw it. */
export const MetricChart = memo(
  staggered((p: MetricChartProps) => <MetricChartDrawn {...p} />, (p) => ({ id: p.spec.id, title: p.spec.title, note: p.spec.note })),
  sameProps,
);

function MetricChartDrawn({ spec, series, seeds, marks, changes = NO_CHANGES, axis, fixed = null, categories = false, run }: MetricChartProps) {
  const cls = (i: number) => (categories ? categoryClass(i) : seriesClass(i, series.length));
  const [ref, width] = useWidth<HTMLDivElement>();
  const [tooltip, tooltipOn] = useTooltipOn();
  const { lines, rows, band, smoothing, log } = usePlot(series, seeds, width, axis.mode);
  const single = series.length === 1;
  const first = lines[0] ?? [];
  const last = first[first.length - 1];
  // values only: not x, nor a series' step (s<i>) or time (t<i>)
  const ys = rows.flatMap((r) => Object.entries(r).flatMap(([k, v]) => (k === 'x' || /^[st]\d+$/.test(k) ? [] : Array.isArray(v) ? v : typeof v === 'number' ? [v] : [])));
  const maxY = ys.reduce((m, y) => Math.max(m, y), -Infinity);
  const minY = ys.reduce((m, y) => Math.min(m, y), Infinity);
  const reported = series.some((s) => s.values);
  const empty = !reported ? 'Appears once the first step is done.' : log ? 'No positive values to show on a log scale.' : 'Nothing recorded yet.';
  // a metric the run's set-up holds fixed (clip fraction at μ = 1, KL at β = 0, an unchanged
  // learning rate) is one line of text, not a flat chart
  const constant = fixed === null ? null : constantValue(series);
  if (constant !== null && rows.length > 0) {
    return (
      <ChartFrame id={spec.id} title={spec.title} value={formatValue(constant)} note={spec.note} points={first.length} noPng run={run} extra={{ series: series.length, marks: 0, changes: '', constant: 'true' }}>
        <div ref={ref} className="chart-area chart-constant">
          {formatValue(constant)} at every step so far{series.length > 1 ? `, in all ${series.length} runs` : ''} ({fixed}); drawn as a chart if it changes.
        </div>
      </ChartFrame>
    );
  }
  const legend: LegendEntry[] = single
    ? smoothing > 0 ? [{ name: 'recorded', cls: 'series-raw' }, { name: 'smoothed', cls: 'series-main' }] : [{ name: spec.key, cls: 'series-main' }]
    : [...series.map((s, i) => ({ name: s.name, cls: cls(i) })), ...(band.length > 0 ? [{ name: `mean of ${series.length} seeds`, cls: 'series-mean' }] : [])];
  return (
    <ChartFrame id={spec.id} title={spec.title} value={single && last ? formatValue(last.raw) : undefined} note={spec.note} points={first.length} legend={legend} run={run} extra={{ series: series.length, marks: marks.length + changes.length, changes: changes.map((c) => c.step).join(' ') }}>
      <div ref={ref} className="chart-area" {...tooltipOn}>
        {rows.length === 0 || width === 0 ? (
          <div className="chart-empty">{empty}</div>
        ) : (
          <ComposedChart width={width} height={CHART_HEIGHT} data={rows} margin={axisMargin(axis, MARGIN)}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" {...xAxisProps(axis)} interval={ALL_TICKS} />
            {/* a log axis can get many ticks (d3's 1–9 × 10^k): those are thinned, measured */}
            <YAxis width={Y_AXIS_WIDTH} scale={log ? 'log' : 'auto'} domain={yDomain(spec, log, minY, maxY)} tickFormatter={axisTick} interval={log ? 'preserveEnd' : ALL_TICKS} label={yLabelOf(spec)} />
            {tooltip && (
              <Tooltip
                formatter={(v, _name, item) => tipValue(typeof v === 'number' ? formatValue(v) : Array.isArray(v) ? v.map((x) => formatValue(Number(x))).join(' – ') : String(v), item.dataKey, item.payload, axis.mode, single)}
                labelFormatter={(x, items) => tipLabel(x, items[0]?.payload, axis.mode, single)}
              />
            )}
            {band.length > 0 && <Area className="series-band" type="linear" dataKey="band" name="seed range" isAnimationActive={false} connectNulls />}
            {single && smoothing > 0 && <Line className="series-raw" type="linear" dataKey="raw0" name="recorded" dot={false} isAnimationActive={false} strokeWidth={1} />}
            {/* under the runs' own lines (they sit at zIndex 400), so a run on the mean stays visible */}
            {band.length > 0 && <Line className="series-mean" zIndex={350} type="linear" dataKey="mean" name={`mean of ${series.length} seeds`} dot={false} isAnimationActive={false} strokeWidth={2.5} connectNulls />}
            {series.map((s, i) => (
              <Line
                key={s.id} className={cls(i)} type="linear" dataKey={`y${i}`} name={single ? (smoothing > 0 ? 'smoothed' : spec.key) : s.name}
                // dots while a line is short: one point alone would draw nothing
                dot={single ? (first.length < 30 ? { className: 'dot-main' } : false) : (lines[i]?.length ?? 0) <= 2 && { className: `dot-${cls(i)}` }} isAnimationActive={false} strokeWidth={band.length > 0 ? 1.5 : 2} connectNulls
              />
            ))}
            {changes.map((c) => (
              // the label sits on the side of the line with more room, so it stays inside the plot
              <ReferenceLine key={`change-${c.x}-${c.label}`} x={c.x} className="change-line" strokeDasharray="2 2" label={{ value: c.label, position: c.x > axis.max / 2 ? 'insideTopRight' : 'insideTopLeft', className: 'change-label' }} />
            ))}
            {marks.map((m) => (
              <ReferenceLine key={m} x={m} className="halt-line" strokeDasharray="4 3" label={{ value: '!', position: 'insideTopRight', className: 'halt-label' }} />
            ))}
          </ComposedChart>
        )}
      </div>
    </ChartFrame>
  );
}
