// One training metric of the selected run by step. Points are thinned to the chart's width;
// with smoothing on, the recorded values stay as a faint line under the smoothed one. Animation
// is off: the store updates at most once per frame and each update draws at once.
import { memo, useMemo, type ReactNode } from 'react';
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { chartSeries } from '../../state/series';
import { formatValue } from '../format';
import { useLab } from '../LabStore';
import type { MetricChartSpec } from './specs';
import { useWidth } from './useWidth';

export const CHART_HEIGHT = 170;
const Y_AXIS_WIDTH = 52;
const MARGIN = { top: 6, right: 10, bottom: 0, left: 0 };

export function ChartFrame({ id, title, value, note, points, children, extra }: { id: string; title: string; value?: string; note: string; points: number; children: ReactNode; extra?: Record<string, string | number> }) {
  return (
    <figure className="chart metric-chart" data-testid={`chart-${id}`} data-points={points} {...Object.fromEntries(Object.entries(extra ?? {}).map(([k, v]) => [`data-${k}`, v]))}>
      <figcaption>
        <span className="chart-title">{title}</span>
        {value !== undefined && <span className="chart-value">{value}</span>}
      </figcaption>
      {children}
      <p className="chart-note">{note}</p>
    </figure>
  );
}

/** Short axis labels: "1e-4", "7.5e-5", "0.25", "120". */
export function axisTick(v: number): string {
  const a = Math.abs(v);
  if (v !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1).replace('.0e', 'e').replace('e+', 'e');
  return String(Number(v.toPrecision(3)));
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

interface MetricChartProps {
  spec: MetricChartSpec;
  steps: readonly number[];
  /** the metric's values aligned with `steps`; undefined until the loop reports it */
  values: readonly number[] | undefined;
  totalSteps: number;
}

/** Memoised on its arrays: a batch that only changes the run's status redraws no chart. */
export const MetricChart = memo(function MetricChart({ spec, steps, values, totalSteps }: MetricChartProps) {
  const smoothing = useLab((s) => s.view.smoothing);
  const log = useLab((s) => s.view.logScale);
  const [ref, width] = useWidth<HTMLDivElement>();
  const points = useMemo(
    () => (values && width > 0 ? chartSeries(steps, values, { smoothing, log, width: width - Y_AXIS_WIDTH }) : []),
    [steps, values, smoothing, log, width],
  );
  const last = points[points.length - 1];
  const maxY = points.reduce((m, p) => Math.max(m, p.y, p.raw), -Infinity);
  const minY = points.reduce((m, p) => Math.min(m, p.y, p.raw), Infinity);
  const empty = !values ? 'Appears once the first step is done.' : log ? 'No positive values to show on a log scale.' : 'Nothing recorded yet.';
  return (
    <ChartFrame id={spec.id} title={spec.title} value={last ? formatValue(last.raw) : undefined} note={spec.note} points={points.length}>
      <div ref={ref} className="chart-area">
        {points.length === 0 || width === 0 ? (
          <div className="chart-empty">{empty}</div>
        ) : (
          <LineChart width={width} height={CHART_HEIGHT} data={points} margin={MARGIN}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" domain={[0, (max: number) => Math.max(max, totalSteps)]} allowDecimals={false} tickFormatter={axisTick} />
            <YAxis width={Y_AXIS_WIDTH} scale={log ? 'log' : 'auto'} domain={yDomain(spec, log, minY, maxY)} tickFormatter={axisTick} />
            <Tooltip formatter={(v) => (typeof v === 'number' ? formatValue(v) : String(v))} labelFormatter={(s) => `step ${s}`} />
            {smoothing > 0 && <Line className="series-raw" type="linear" dataKey="raw" name="recorded" dot={false} isAnimationActive={false} strokeWidth={1} />}
            <Line className="series-main" type="linear" dataKey="y" name={smoothing > 0 ? 'smoothed' : spec.key} dot={points.length < 30 ? { className: 'dot-main' } : false} isAnimationActive={false} strokeWidth={2} />
          </LineChart>
        )}
      </div>
    </ChartFrame>
  );
});
