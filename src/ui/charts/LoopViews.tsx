// The charts a loop declares beyond its single-metric lines (src/loops/spec.ts): several metrics
// of one run as lines on one chart (e.g. rates sharing a 0–1 axis) and several metrics stacked as
// bars per step (e.g. a data mix). They draw the selected run (the first shown); the page draws
// them from the registry without knowing the loop.
import { memo, useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ComposedChart, Line, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { CurveSpec, MapSpec, MultiLineChartSpec, StackedChartSpec } from '../../loops/spec';
import type { RecordsEvent } from '../../lab/protocol';
import { pca2d } from '../../metrics/diversity';
import type { BaseLoopConfig } from '../../loops/base_config';
import { clockFor } from '../../state/charts/wallTime';
import type { RunData } from '../../state/runData';
import { formatValue } from '../format';
import { ALL_TICKS, CHART_HEIGHT, ChartFrame, MetricChart, staggered, useTooltipOn, type RunBadge } from './MetricChart';
import { categoryClass } from './overlay';
import { useWidth } from './useWidth';
import { axisTick, X_TITLE_ROOM, xTitle, yTitle, type ChartAxis } from './xaxis';

/** The series of a chart; a click on an entry hides that series (and shows it again). */
function Legend({ entries, hidden, toggle }: { entries: readonly { name: string; cls: string }[]; hidden: ReadonlySet<number>; toggle: (i: number) => void }) {
  return (
    <ul className="chart-legend" aria-label="series (click to hide or show)">
      {entries.map((e, i) => (
        <li key={e.name} data-hidden={hidden.has(i) || undefined}>
          <button type="button" className="legend-toggle" data-testid="legend-toggle" aria-pressed={!hidden.has(i)} title={hidden.has(i) ? `Show ${e.name}` : `Hide ${e.name}`} onClick={() => toggle(i)}>
            <span className={`swatch ${e.cls}`} aria-hidden="true" />
            {e.name}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Which series of a chart are hidden, and a toggle for one. */
function useHidden(): [ReadonlySet<number>, (i: number) => void] {
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const toggle = (i: number) => setHidden((h) => {
    const next = new Set(h);
    if (next.has(i)) next.delete(i);
    else next.add(i);
    return next;
  });
  return [hidden, toggle];
}

/** Several metrics of one run as lines, with their legend. */
export function MultiLineChart({ spec, data, axis, marks, run }: { spec: MultiLineChartSpec; data: RunData; axis: ChartAxis; marks: readonly number[]; run?: RunBadge }) {
  const [hidden, toggle] = useHidden();
  const clock = clockFor(data, axis.mode);
  // a hidden series keeps its place (and colour), without values
  const series = useMemo(() => spec.series.map((s, i) => ({ id: s.key, name: s.label, steps: data.step, values: hidden.has(i) ? undefined : data.series[s.key], clock })), [spec, data, hidden, clock]);
  return (
    <div className="multi-line" data-testid={`multi-${spec.id}`}>
      <MetricChart spec={{ id: spec.id, key: spec.series[0]?.key ?? '', title: spec.title, note: spec.note, unit: spec.unit }} series={series} seeds={false} marks={marks} axis={axis} categories run={run} />
      <Legend entries={spec.series.map((s, i) => ({ name: s.label, cls: categoryClass(i) }))} hidden={hidden} toggle={toggle} />
    </div>
  );
}

interface StackedProps {
  spec: StackedChartSpec;
  /** the run it draws, named while several are compared */
  run?: RunBadge;
  steps: readonly number[];
  /** each band's values aligned with `steps` */
  values: readonly (readonly number[] | undefined)[];
}

function StackedDrawn({ spec, steps, values, run }: StackedProps) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [hidden, toggle] = useHidden();
  const [tooltip, tooltipOn] = useTooltipOn();
  const rows = steps.map((step, i) => Object.fromEntries([['step', step], ...spec.series.map((s, j) => [s.key, values[j]?.[i] ?? 0])]) as Record<string, number>);
  const legend = spec.series.map((s, j) => ({ name: s.label, cls: categoryClass(j) }));
  return (
    <ChartFrame id={spec.id} title={spec.title} note={spec.note} points={rows.length} legend={legend} run={run}>
      <div ref={ref} className="chart-area" {...tooltipOn}>
        {rows.length === 0 || width === 0 ? (
          <div className="chart-empty">Appears once the first step is done.</div>
        ) : (
          <BarChart width={width} height={CHART_HEIGHT} data={rows} margin={{ top: 6, right: 10, bottom: 0, left: 0 }}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="step" interval="preserveStartEnd" tickFormatter={axisTick} height={30 + X_TITLE_ROOM} label={xTitle('step')} />
            <YAxis width={62} tickFormatter={axisTick} interval={ALL_TICKS} label={yTitle(spec.yLabel ?? 'per step')} />
            {tooltip && <Tooltip formatter={(v) => formatValue(Number(v))} labelFormatter={(s) => `step ${s}`} />}
            {spec.series.map((s, j) => (hidden.has(j) ? null : <Bar key={s.key} className={categoryClass(j)} dataKey={s.key} name={s.label} stackId="mix" isAnimationActive={false} />))}
          </BarChart>
        )}
      </div>
      <Legend entries={legend} hidden={hidden} toggle={toggle} />
    </ChartFrame>
  );
}

const sameStacked = (a: StackedProps, b: StackedProps) => a.spec === b.spec && a.run?.label === b.run?.label && a.run?.cls === b.run?.cls && a.steps === b.steps && a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]);

/** Several metrics of one run stacked per step; redrawn only when one of its arrays changes. */
export const StackedChart = memo(
  staggered((p: StackedProps) => <StackedDrawn {...p} />, (p) => ({ id: p.spec.id, title: p.spec.title, note: p.spec.note })),
  sameStacked,
);

export function stackedProps(spec: StackedChartSpec, data: RunData, run?: RunBadge): StackedProps {
  return { spec, steps: data.step, values: spec.series.map((s) => data.series[s.key]), run };
}

/** A function of the run's set-up drawn as a curve (CurveSpec), with dots at the values a run can reach. */
export function CurveChart({ spec, config }: { spec: CurveSpec; config: BaseLoopConfig }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const line = spec.points(config).map((p) => ({ x: p.x, y: p.y }));
  const dots = spec.dots?.(config).map((p) => ({ x: p.x, dot: p.y })) ?? [];
  return (
    <ChartFrame id={spec.id} title={spec.title} note={spec.note} points={line.length} extra={{ dots: String(dots.length) }}>
      {spec.caption && <p className="detail curve-caption" data-testid={`curve-caption-${spec.id}`}>{spec.caption(config)}</p>}
      <div ref={ref} className="chart-area">
        {width > 0 && (
          <ComposedChart width={width} height={CHART_HEIGHT} margin={{ top: 6, right: 10, bottom: 14, left: 0 }}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={axisTick} height={30 + X_TITLE_ROOM} label={{ ...xTitle('step'), value: spec.xLabel }} />
            <YAxis width={62} domain={[0, 'auto']} tickFormatter={axisTick} label={yTitle(spec.yLabel)} />
            <Line data={line} dataKey="y" className="series-c0" dot={false} isAnimationActive={false} />
            <Scatter data={dots} dataKey="dot" className="curve-dots" isAnimationActive={false} />
          </ComposedChart>
        )}
      </div>
    </ChartFrame>
  );
}

/** Dot colour of a step: early steps blue, late ones orange (the step's place in the run). */
function stepColour(f: number): string {
  return `hsl(${Math.round(215 - 185 * f)}, 70%, 48%)`;
}

/** A 2-D map of records' vectors (MapSpec): the first two principal components, dots coloured by `colorBy`. */
export function RecordMap({ spec, events }: { spec: MapSpec; events: readonly RecordsEvent[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [tooltip, tooltipOn] = useTooltipOn();
  const records = useMemo(() => events.flatMap((e) => e.records).filter((r) => r.kind === spec.record && Array.isArray(r[spec.vector])), [events, spec]);
  const points = useMemo(() => {
    const vectors = records.map((r) => r[spec.vector] as number[]);
    const xy = vectors.length ? pca2d(vectors).points.map(([x, y]) => ({ x, y })) : [];
    const cs = records.map((r) => Number(r[spec.colorBy]));
    const lo = Math.min(...cs), hi = Math.max(...cs);
    return xy.map((p, i) => ({ ...p, c: cs[i], f: hi > lo ? (cs[i] - lo) / (hi - lo) : 0, label: String(records[i][spec.label]) }));
  }, [records, spec]);
  const span = points.length ? `${spec.colorBy} ${Math.min(...points.map((p) => p.c))} (blue) to ${Math.max(...points.map((p) => p.c))} (orange)` : '';
  return (
    <ChartFrame id={spec.id} title={spec.title} note={spec.note} points={points.length}>
      {points.length > 0 && <p className="detail curve-caption" data-testid={`map-caption-${spec.id}`}>{points.length} problems; colour: {span}</p>}
      <div ref={ref} className="chart-area" {...tooltipOn}>
        {points.length === 0 || width === 0 ? (
          <div className="chart-empty">Appears once the pool has problems.</div>
        ) : (
          <ScatterChart width={width} height={CHART_HEIGHT + 60} margin={{ top: 6, right: 10, bottom: 14, left: 0 }}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" name="PC1" tickFormatter={axisTick} height={30 + X_TITLE_ROOM} label={{ ...xTitle('step'), value: 'first principal component' }} />
            <YAxis dataKey="y" type="number" name="PC2" width={62} tickFormatter={axisTick} label={yTitle('second component')} />
            {tooltip && <Tooltip cursor={false} content={({ payload }) => {
              const p = payload?.[0]?.payload as (typeof points)[number] | undefined;
              return p ? <div className="map-tip">{p.label} · {spec.colorBy} {p.c}</div> : null;
            }} />}
            <Scatter data={points} isAnimationActive={false} className="map-dots">
              {points.map((p, i) => <Cell key={i} fill={stepColour(p.f)} />)}
            </Scatter>
          </ScatterChart>
        )}
      </div>
    </ChartFrame>
  );
}
