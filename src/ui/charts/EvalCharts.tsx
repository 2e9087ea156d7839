// The held-out evaluations: the pass@k curve of one evaluation (k on a log axis, a slider picks
// the step), pass@1 and pass@k(max) over steps (or over each run's wall time: xaxis.ts), and how
// accuracy is spread over the problems. With several runs compared, each run draws its own curve
// (its latest evaluation where one evaluation is shown), and a seed group adds its mean and band
// to pass@1 over steps (by step only: seeds reach a step at different times).
import { memo, useId, useMemo } from 'react';
import { Area, Bar, BarChart, CartesianGrid, ComposedChart, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { EvalEvent } from '../../lab/protocol';
import { meanBand } from '../../state/compare';
import { placeAt, type XAxisMode } from '../../state/charts/wallTime';
import { formatValue } from '../format';
import { useLab } from '../LabStore';
import { ALL_TICKS, CHART_HEIGHT, ChartFrame, staggered, useTooltipOn } from './MetricChart';
import { overlayRows, seriesClass } from './overlay';
import type { LegendEntry } from './png';
import { useWidth } from './useWidth';
import { axisMargin, axisTick, tipLabel, tipValue, WALL_TIME_NOTE, X_TITLE_ROOM, xAxisProps, yTitle, type ChartAxis } from './xaxis';

const MARGIN = { top: 6, right: 12, bottom: 0, left: 0 };
const percent = (v: number): string => `${Math.round(v * 100)}%`;
const percentTip = (v: unknown): string => (typeof v === 'number' ? percent(v) : Array.isArray(v) ? v.map((x) => percent(Number(x))).join(' – ') : String(v));

export interface EvalRun {
  id: string;
  name: string;
  evals: readonly EvalEvent[];
  /** each evaluation's time on the run's clock (evalTimes), aligned with `evals` */
  times: readonly number[];
}

function kCurve(e: EvalEvent): { x: number; y: number; raw: number }[] {
  return Object.entries(e.passAtK)
    .map(([k, v]) => ({ x: Number(k), y: v, raw: v }))
    .filter((p) => Number.isFinite(p.x) && p.x >= 1)
    .sort((a, b) => a.x - b.x);
}

function maxK(e: EvalEvent): string {
  return String(Math.max(...Object.keys(e.passAtK).map(Number)));
}

/** The evaluation a chart shows: the slider's choice for a single run, else each run's latest. */
function useChosen(runs: readonly EvalRun[]): (EvalEvent | undefined)[] {
  const chosen = useLab((s) => s.view.evalIndex);
  return runs.map((r) => (runs.length === 1 && chosen !== null && chosen < r.evals.length ? r.evals[chosen] : r.evals[r.evals.length - 1]));
}

const EMPTY = <div className="chart-empty">Appears after the first evaluation.</div>;

/** The PNG legend of a chart with one series per run (its palette colour and label). */
const runLegend = (runs: readonly EvalRun[], label: (r: EvalRun, i: number) => string = (r) => r.name): LegendEntry[] =>
  runs.map((r, i) => ({ name: label(r, i), cls: seriesClass(i, runs.length) }));

/** Whether every run's shown evaluation is at one step. */
const sameStep = (chosen: readonly (EvalEvent | undefined)[]): boolean => chosen.every((c) => c !== undefined && c.step === chosen[0]?.step);

function PassKChart({ runs }: { runs: readonly EvalRun[] }) {
  const sliderId = useId();
  const setIndex = useLab((s) => s.setEvalIndex);
  const [ref, width] = useWidth<HTMLDivElement>();
  const [tooltip, tooltipOn] = useTooltipOn();
  const chosen = useChosen(runs);
  const e = chosen[0];
  // a few points per run: cheap enough to rebuild on each (rare) render
  const lines = chosen.map((c) => (c ? kCurve(c) : []));
  const evals = runs[0].evals;
  const index = e ? evals.indexOf(e) : -1;
  const single = runs.length === 1;
  // one run: the start-of-run curve stays under the shown one, so the change reads at a glance
  const start = single && index > 0 ? evals[0] : null;
  const rows = overlayRows(start ? [...lines, kCurve(start)] : lines);
  const p1 = (x: EvalEvent) => percent(x.passAtK['1'] ?? NaN);
  return (
    <ChartFrame
      id="passk" title={single && e ? `pass@k at step ${e.step}${start ? ` and at the start` : ''}` : `pass@k at each run's latest evaluation${sameStep(chosen) ? ` (step ${chosen[0]?.step})` : ': steps differ'}`}
      value={single && e ? (start ? `pass@1 ${p1(start)} → ${p1(e)}` : `pass@1 ${p1(e)}`) : undefined} points={width > 0 ? lines[0].length : 0}
      note="Chance that at least one of k samples is right, per held-out problem (unbiased estimator), by k. RLVR lifts small k; if it narrows the policy, large k can fall below the base."
      extra={{ step: e?.step ?? -1, series: runs.length, start: start ? start.step : -1 }}
      legend={single ? [{ name: `step ${e?.step ?? '–'}`, cls: 'series-main' }, ...(start ? [{ name: `start (step ${start.step})`, cls: 'series-raw' }] : [])] : runLegend(runs, (r, i) => `${r.name} (step ${chosen[i]?.step ?? '–'})`)}
    >
      <div ref={ref} className="chart-area" {...tooltipOn}>
        {rows.length === 0 || width === 0 ? EMPTY : (
          <LineChart width={width} height={CHART_HEIGHT} data={rows} margin={MARGIN}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" scale="log" domain={[1, 'dataMax']} ticks={rows.map((p) => p.x)} tickFormatter={axisTick} interval={ALL_TICKS} height={30 + X_TITLE_ROOM} label={{ value: 'k (samples per problem)', position: 'insideBottom', offset: 2, className: 'axis-title' }} />
            <YAxis width={56} domain={[0, 1]} tickFormatter={percent} interval={ALL_TICKS} label={yTitle('pass@k')} />
            {tooltip && <Tooltip formatter={percentTip} labelFormatter={(k) => `k = ${k}`} />}
            {start && <Line className="series-raw" type="linear" dataKey={`y${runs.length}`} name={`start (step ${start.step})`} dot={false} isAnimationActive={false} strokeWidth={1.5} strokeDasharray="4 3" connectNulls />}
            {runs.map((r, i) => (
              <Line key={r.id} className={seriesClass(i, runs.length)} type="linear" dataKey={`y${i}`} name={single ? `step ${e?.step ?? '–'}` : `${r.name} (step ${chosen[i]?.step ?? '–'})`} dot={single ? { className: 'dot-main' } : false} isAnimationActive={false} strokeWidth={2} connectNulls />
            ))}
          </LineChart>
        )}
      </div>
      {single && evals.length > 1 && e && (
        <div className="chart-control">
          <label htmlFor={sliderId}>Evaluation at step {e.step}</label>
          <input
            id={sliderId} type="range" min={0} max={evals.length - 1} value={index} data-testid="passk-step"
            onChange={(ev) => {
              const i = Number(ev.target.value);
              setIndex(i === evals.length - 1 ? null : i);
            }}
          />
        </div>
      )}
    </ChartFrame>
  );
}

/** A run's pass@k by evaluation, placed on the axis at each evaluation's step or time. */
function passSeries(run: EvalRun, k: string, mode: XAxisMode) {
  const timeOf = new Map(run.evals.map((e, i) => [e.step, run.times[i]]));
  const pts = run.evals.map((e) => ({ x: e.step, y: e.passAtK[k] ?? NaN, raw: e.passAtK[k] ?? NaN })).filter((p) => Number.isFinite(p.y));
  return placeAt(pts, (step) => timeOf.get(step) ?? NaN, mode);
}

function PassOverStepsChart({ runs, seeds, marks, axis }: { runs: readonly EvalRun[]; seeds: boolean; marks: readonly number[]; axis: ChartAxis }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [tooltip, tooltipOn] = useTooltipOn();
  const single = runs.length === 1;
  const evals = runs[0].evals;
  const k = evals.length > 0 ? maxK(evals[evals.length - 1]) : '';
  const { lines, rows, band } = useMemo(() => {
    const lines = runs.map((r) => passSeries(r, '1', axis.mode));
    // a band needs an x common to the seeds: a step is, a time is not
    const band = seeds && axis.mode === 'step' ? meanBand(lines.map((l) => ({ xs: l.map((p) => p.x), ys: l.map((p) => p.y) }))) : [];
    const rows = overlayRows(single ? [...lines, passSeries(runs[0], k, axis.mode)] : lines, band);
    return { lines, rows, band };
  }, [runs, seeds, single, k, axis.mode]);
  const when = axis.mode === 'time' ? ` The x axis is each run's compute time at the evaluated step. ${WALL_TIME_NOTE}` : axis.mode === 'tokens' ? ' The x axis is each run\'s generated tokens up to the evaluated step: runs compared at equal cost.' : '';
  const note = single
    ? `Held-out accuracy of one sample (pass@1, solid) and of the best of ${k || 'n'} (dashed) at each evaluation. A widening or closing gap shows whether RL adds answers or only sharpens the ones the base already had.${when}`
    : `Held-out accuracy of one sample (pass@1) of each run at each of its evaluations.${when}`;
  return (
    <ChartFrame
      id="pass1" title={`${single ? `pass@1 and pass@${k || 'k'}` : 'pass@1'} over ${axis.mode === 'time' ? 'wall time' : axis.mode === 'tokens' ? 'generated tokens' : 'steps'}`} points={width > 0 ? lines[0].length : 0} note={note} extra={{ series: runs.length, marks: marks.length }}
      legend={single ? [{ name: 'pass@1', cls: 'series-main' }, { name: `pass@${k}`, cls: 'series-second' }] : [...runLegend(runs), ...(band.length > 0 ? [{ name: `mean of ${runs.length} seeds`, cls: 'series-mean' }] : [])]}
    >
      <div ref={ref} className="chart-area" {...tooltipOn}>
        {rows.length === 0 || width === 0 ? EMPTY : (
          <ComposedChart width={width} height={CHART_HEIGHT} data={rows} margin={axisMargin(axis, MARGIN)}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" {...xAxisProps(axis)} interval={ALL_TICKS} />
            <YAxis width={56} domain={[0, 1]} tickFormatter={percent} interval={ALL_TICKS} label={yTitle('accuracy')} />
            {tooltip && <Tooltip formatter={(v, _name, item) => tipValue(percentTip(v), item.dataKey, item.payload, axis.mode, single)} labelFormatter={(x, items) => tipLabel(x, items[0]?.payload, axis.mode, single)} />}
            {band.length > 0 && <Area className="series-band" type="linear" dataKey="band" name="seed range" isAnimationActive={false} connectNulls />}
            {single && <Line className="series-second" type="linear" dataKey="y1" name={`pass@${k}`} dot={{ className: 'dot-second' }} isAnimationActive={false} strokeWidth={2} strokeDasharray="5 4" />}
            {/* under the runs' own lines (they sit at zIndex 400), so a run on the mean stays visible */}
            {band.length > 0 && <Line className="series-mean" zIndex={350} type="linear" dataKey="mean" name={`mean of ${runs.length} seeds`} dot={false} isAnimationActive={false} strokeWidth={2.5} connectNulls />}
            {runs.map((r, i) => (
              // evaluations are few: every run's points are drawn (a run evaluated once is a dot)
              <Line key={r.id} className={seriesClass(i, runs.length)} type="linear" dataKey={`y${i}`} name={single ? 'pass@1' : r.name} dot={single ? { className: 'dot-main' } : lines[i].length < 30 && { className: `dot-${seriesClass(i, runs.length)}` }} isAnimationActive={false} strokeWidth={band.length > 0 ? 1.5 : 2} connectNulls />
            ))}
            {marks.map((m) => (
              <ReferenceLine key={m} x={m} className="halt-line" strokeDasharray="4 3" />
            ))}
          </ComposedChart>
        )}
      </div>
    </ChartFrame>
  );
}

function HistogramChart({ runs }: { runs: readonly EvalRun[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [tooltip, tooltipOn] = useTooltipOn();
  const chosen = useChosen(runs);
  const e = chosen[0];
  const single = runs.length === 1;
  const n = Math.max(0, ...chosen.map((c) => c?.histogram.length ?? 0));
  const points = Array.from({ length: n }, (_, i) => ({ bin: `${(i * 100) / n}–${((i + 1) * 100) / n}%`, ...Object.fromEntries(chosen.map((c, j) => [`c${j}`, c?.histogram[i] ?? 0])) }));
  return (
    <ChartFrame id="histogram" title={single && e ? `Problems by accuracy, step ${e.step}` : 'Problems by accuracy'} points={width > 0 ? points.length : 0} extra={{ series: runs.length }}
      legend={single ? [{ name: 'problems', cls: 'series-bar' }] : runs.map((r, j) => ({ name: r.name, cls: `bar-c${j % 6}` }))}
      note="How many held-out problems the policy solves in each accuracy band (share of its samples that are right). RLVR tends to empty the middle: problems become always or never solved.">
      <div ref={ref} className="chart-area" {...tooltipOn}>
        {points.length === 0 || width === 0 ? EMPTY : (
          <BarChart width={width} height={CHART_HEIGHT} data={points} margin={MARGIN}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="bin" interval={1} tickFormatter={(b: string) => b.split('–')[0] + '%'} height={30 + X_TITLE_ROOM} label={{ value: 'share of its samples right', position: 'insideBottom', offset: 2, className: 'axis-title' }} />
            <YAxis width={48} allowDecimals={false} interval={ALL_TICKS} label={yTitle('problems')} />
            {tooltip && <Tooltip formatter={(v) => (typeof v === 'number' ? formatValue(v) : String(v))} />}
            {runs.map((r, j) => (
              <Bar key={r.id} className={single ? 'series-bar' : `bar-c${j % 6}`} dataKey={`c${j}`} name={single ? 'problems' : r.name} isAnimationActive={false} />
            ))}
          </BarChart>
        )}
      </div>
    </ChartFrame>
  );
}

// each draws new evaluations in its own turn (stagger.ts)
const PassK = staggered(PassKChart, () => ({ id: 'passk', title: 'pass@k', note: '' }));
const PassOverSteps = staggered(PassOverStepsChart, () => ({ id: 'pass1', title: 'pass@1 over steps', note: '' }));
const Histogram = staggered(HistogramChart, () => ({ id: 'histogram', title: 'Problems by accuracy', note: '' }));

// an evaluation's time is fixed once its step is recorded: compared by value, not by the clock
const sameRuns = (a: readonly EvalRun[], b: readonly EvalRun[]) =>
  a.length === b.length && a.every((r, i) => r.id === b[i].id && r.name === b[i].name && r.evals === b[i].evals && r.times.join() === b[i].times.join());

interface EvalChartsProps {
  runs: readonly EvalRun[];
  seeds: boolean;
  /** where runs stopped on their own, in the axis's unit */
  marks: readonly number[];
  axis: ChartAxis;
}

/** Memoised on the evaluations: step and status updates redraw none of these. */
export const EvalCharts = memo(
  function EvalCharts({ runs, seeds, marks, axis }: EvalChartsProps) {
    return (
      <div className="chart-grid-layout">
        <PassK runs={runs} />
        <PassOverSteps runs={runs} seeds={seeds} marks={marks} axis={axis} />
        <Histogram runs={runs} />
      </div>
    );
  },
  (a, b) => a.seeds === b.seeds && a.axis.mode === b.axis.mode && a.axis.max === b.axis.max && a.marks.join() === b.marks.join() && sameRuns(a.runs, b.runs),
);
