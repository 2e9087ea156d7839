// Live charts: training metrics by step or by wall time (smoothing and log scale apply to these)
// and the held-out evaluations, of the selected run or, with two or more runs ticked, of all of
// them overlaid and labelled by their difference from the first.
import { useId, useMemo } from 'react';
import { shownRuns, visibleRuns, type ShownRun } from '../state/compare';
import type { RunView } from '../state/runsSlice';
import { MAX_SMOOTHING } from '../state/viewSlice';
import { knobChanges, knobsOfConfig } from '../state/knobs';
import { clockEnd, clockFor, evalTimes, placeMarks, type XAxisMode } from '../state/charts/wallTime';
import { formatValue } from './format';
import { EvalCharts } from './charts/EvalCharts';
import { ChartSubject, MetricChart, type ChangeLine, type RunBadge } from './charts/MetricChart';
import { seriesClass } from './charts/overlay';
import { metricChartsOf } from './charts/specs';
import { declaresViewsIn, drawViews } from './viewRegistry';
import { isLoopName, loopNamed } from '../loops/registry';
import type { LoopViews, MetricChartSpec } from '../loops/spec';
import { WALL_TIME_NOTE, type ChartAxis } from './charts/xaxis';
import { useLab } from './LabStore';
import { Panel } from './Panel';

function ChartControls({ shown }: { shown: Shown }) {
  const smoothId = useId();
  const logId = useId();
  const xId = useId();
  const view = useLab((s) => s.view);
  const setSmoothing = useLab((s) => s.setSmoothing);
  const setLog = useLab((s) => s.setLogScale);
  const setXAxis = useLab((s) => s.setXAxis);
  const untimed = shown.runs.map((r) => ({ r, n: clockFor(r.run.data, view.xAxis).untimed })).filter((u) => u.n > 0);
  return (
    <>
      <div className="chart-controls">
        <label htmlFor={smoothId}>Smoothing {view.smoothing.toFixed(2)}</label>
        <input id={smoothId} type="range" min={0} max={MAX_SMOOTHING} step={0.01} value={view.smoothing} data-testid="chart-smoothing" onChange={(e) => setSmoothing(Number(e.target.value))} />
        <label className="check">
          <input id={logId} type="checkbox" checked={view.logScale} data-testid="chart-log" onChange={(e) => setLog(e.target.checked)} />
          Log scale
        </label>
        <label htmlFor={xId}>x-axis</label>
        <select id={xId} value={view.xAxis} data-testid="chart-xaxis" title="Draw the charts by training step or by each run's compute time" onChange={(e) => setXAxis(e.target.value as XAxisMode)}>
          <option value="step">step</option>
          <option value="time">wall time</option>
          <option value="tokens">generated tokens</option>
        </select>
      </div>
      {view.xAxis === 'tokens' && (
        <p className="chart-xaxis-note" data-testid="chart-xaxis-note">
          {TOKENS_NOTE}
          {untimed.map(({ r, n }) => ` Run #${r.run.index}: ${n} step${n === 1 ? '' : 's'} without a token count ${n === 1 ? 'is' : 'are'} left out.`).join('')}
        </p>
      )}
      {view.xAxis === 'time' && (
        <p className="chart-xaxis-note" data-testid="chart-xaxis-note">
          {WALL_TIME_NOTE} Ticks read mm:ss (h:mm:ss past an hour); hover a point for its step.
          {untimed.map(({ r, n }) => ` Run #${r.run.index}: ${n} step${n === 1 ? '' : 's'} without a recorded time ${n === 1 ? 'is' : 'are'} left out.`).join('')}
        </p>
      )}
    </>
  );
}

const TOKENS_NOTE = 'Generated tokens: every response token each run sampled, summed over its steps (all roles, branches and variants included): the cost the papers\' loops are compared at. Runs side by side here are compared at equal cost; hover a point for its step.';

export interface Shown {
  runs: ShownRun<RunView>[];
  seeds: boolean;
}

/** The runs the charts draw (see shownRuns); stable while the runs slice is unchanged. */
export function useShownRuns(): Shown {
  const runs = useLab((s) => s.runs);
  return useMemo(() => shownRuns(runs.order, runs.byId, runs.compared, runs.selected, liveChangesOf), [runs.order, runs.byId, runs.compared, runs.selected]);
}

/** What was changed in a run while it trained, from its stored metrics ("lr → 5e-5 at step 12"), or null. */
function liveChangesOf(r: RunView): string | null {
  const changes = knobChanges(r.data.step, r.data.series, knobsOfConfig(r.config), formatValue);
  return changes.length === 0 ? null : changes.map((c) => `${c.label} at step ${c.step}`).join('; ');
}

/** Where shown runs stopped on their own, on the axis: each halt's step, or its run's time then. */
export function haltMarks(shown: Shown, mode: XAxisMode): number[] {
  const runs = shown.runs.map((r) => ({ clock: clockFor(r.run.data, mode), marks: (r.run.status.halts ?? []).map((h) => ({ step: h.step })) }));
  return [...new Set(placeMarks(runs, mode).map((m) => m.x))];
}

/** Where a shown run's knobs changed (from its stored metrics), on the axis; with several runs, each label names its run. */
export function changeMarks(shown: Shown, mode: XAxisMode): ChangeLine[] {
  const several = shown.runs.length > 1;
  const runs = shown.runs.map((r) => ({
    clock: clockFor(r.run.data, mode),
    marks: knobChanges(r.run.data.step, r.run.data.series, knobsOfConfig(r.run.config), formatValue).map((c) => ({ step: c.step, label: several ? `#${r.run.index}: ${c.label}` : c.label })),
  }));
  return placeMarks(runs, mode).map((m) => ({ step: m.step, x: m.x, label: m.label }));
}

/**
 * The axis of the charts: to the longest visible run's total steps, or to the latest time a
 * visible run reached; hiding a run in the legend rescales to the others.
 */
function useAxis(shown: Shown, given?: readonly number[]): ChartAxis {
  const mode = useLab((s) => s.view.xAxis);
  const hidden = useLab((s) => s.view.hiddenRuns);
  const runs = visibleRuns(shown, hidden);
  const times = given ?? runs.map((r) => clockEnd(clockFor(r.run.data, mode)));
  return mode === 'step' ? { mode, max: Math.max(...runs.map((r) => r.run.status.totalSteps)) } : { mode, max: Math.max(0, ...times) };
}

/** Which colour is which run, when several are drawn; a click on an entry hides that run's lines (and shows them again). */
export function CompareLegend({ shown }: { shown: Shown }) {
  const mode = useLab((s) => s.view.xAxis);
  const hidden = useLab((s) => s.view.hiddenRuns);
  const toggle = useLab((s) => s.toggleRunHidden);
  if (shown.runs.length < 2) return null;
  return (
    <div className="compare-legend" data-testid="compare-legend">
      <ul>
        {shown.runs.map((r, i) => (
          <li key={r.run.id} data-testid="compare-label" data-hidden={hidden.includes(r.run.id) || undefined}>
            <button type="button" className="legend-toggle" aria-pressed={!hidden.includes(r.run.id)} title={hidden.includes(r.run.id) ? 'Show this run\'s lines again' : 'Hide this run\'s lines on every chart'} onClick={() => toggle(r.run.id)}>
              <span className={`swatch ${seriesClass(i, shown.runs.length)}`} aria-hidden="true" />
              {r.name}
            </button>
          </li>
        ))}
      </ul>
      {shown.seeds && <p className="detail">{seedText(mode)}</p>}
    </div>
  );
}

function seedText(mode: XAxisMode): string {
  if (mode !== 'step') return 'These runs differ only by seed. On a wall-time or token axis each seed is drawn on its own clock, without their mean and band: the seeds reach a step at different times, so there is no common time to average at (switch the x-axis to step for them).';
  return "These runs differ only by seed: the dashed line is their mean (under the runs' own lines), the shaded band spans the lowest to the highest seed at each step.";
}

/** Why every shown run's set-up holds the chart's metric fixed (the first run's reason), or null. */
function fixedBy(spec: MetricChartSpec, shown: Shown): string | null {
  if (!spec.fixedBy) return null;
  const why = shown.runs.map((r) => spec.fixedBy!(r.run.config));
  return why.every((w) => w !== null) ? why[0] : null;
}

/** Whose charts are shown, for saved PNGs. */
function subjectOf(shown: Shown): string {
  if (shown.runs.length === 1) return shown.runs[0].run.label;
  return `${shown.runs.length} runs compared: ${shown.runs.map((r) => `#${r.run.index}`).join(', ')}`;
}

function intro(shown: Shown, what: string): string {
  if (shown.runs.length > 1) return `${shown.runs.length} runs compared: ${what}.`;
  return `${shown.runs[0].run.label}: ${what}.`;
}

export function TrainingCharts() {
  const shown = useShownRuns();
  const hidden = useLab((s) => s.view.hiddenRuns);
  const axis = useAxis(shown);
  if (shown.runs.length === 0) return null;
  const marks = haltMarks(shown, axis.mode);
  const changes = changeMarks(shown, axis.mode);
  // a chart of a metric no shown run reports is dropped once they have steps (TTSP reports no
  // groups without signal): before the first step each waits with its placeholder, an optional
  // one appears only when reported
  const started = shown.runs.some((r) => r.run.data.step.length > 0);
  const specs = metricChartsOf(shown.runs.map((r) => r.run.loop)).filter((c) => shown.runs.some((r) => c.key in r.run.data.series) || (!c.optional && !started));
  // a loop's own multi-metric charts draw one run each: one set per visible run, each naming its
  // run (with its legend swatch) while several are compared
  const several = shown.runs.length > 1;
  const ownViews = shown.runs
    .map((r, i) => ({ run: r.run, badge: several ? { label: r.run.label, cls: seriesClass(i, shown.runs.length) } : undefined, views: viewsOf(r.run.loop) }))
    .filter((v): v is { run: RunView; badge: RunBadge | undefined; views: LoopViews } => v.views !== null && !(several && hidden.includes(v.run.id)));
  return (
    <Panel title="Training" className="panel-wide charts" intro={intro(shown, 'what each step of the loop measured')}>
      <ChartControls shown={shown} />
      <CompareLegend shown={shown} />
      <ChartSubject.Provider value={subjectOf(shown)}>
      <div className="chart-grid-layout">
        {specs.map((spec) => (
          <MetricChart
            key={spec.id} spec={spec} seeds={shown.seeds} marks={marks} changes={changes} axis={axis} fixed={fixedBy(spec, shown)}
            series={shown.runs.map((r) => ({ id: r.run.id, name: r.name, steps: r.run.data.step, values: shown.runs.length > 1 && hidden.includes(r.run.id) ? undefined : r.run.data.series[spec.key], clock: clockFor(r.run.data, axis.mode) }))}
          />
        ))}
        {ownViews.flatMap(({ run, badge, views }) => drawViews(views, 'training', { run, badge, axis, marks }))}
      </div>
      </ChartSubject.Provider>
    </Panel>
  );
}

/** The views the loop of a run declares (null for a loop this page does not know). */
function viewsOf(loop: string): LoopViews | null {
  return isLoopName(loop) ? loopNamed(loop).spec.views : null;
}

/** The selected run's curriculum, in the browsers its loop declares (none for GRPO). */
export function CurriculumPanel() {
  const shown = useShownRuns();
  // the first shown run whose loop declares a curriculum view (a compared GRPO run listed first has none)
  const run = shown.runs.find((r) => declaresViewsIn(viewsOf(r.run.loop), ['curriculum-grid', 'curriculum']))?.run;
  if (!run) return null;
  const views = viewsOf(run.loop) as LoopViews;
  const grid = drawViews(views, 'curriculum-grid', { run });
  return (
    <Panel title="Curriculum" className="panel-wide curriculum" intro={`${run.label}: what the loop made of its steps.`}>
      {grid.length > 0 && (
        <ChartSubject.Provider value={run.label}>
          <div className="chart-grid-layout">{grid}</div>
        </ChartSubject.Provider>
      )}
      {drawViews(views, 'curriculum', { run })}
    </Panel>
  );
}

export function EvaluationCharts() {
  const shown = useShownRuns();
  const mode = useLab((s) => s.view.xAxis);
  const hidden = useLab((s) => s.view.hiddenRuns);
  const runs = shown.runs.map((r) => {
    const evals = shown.runs.length > 1 && hidden.includes(r.run.id) ? [] : r.run.data.evals;
    return { id: r.run.id, name: r.name, evals, times: evalTimes(evals, clockFor(r.run.data, mode)) };
  });
  const marks = haltMarks(shown, mode);
  // on a time axis, to the latest evaluation or halt: a training step alone leaves these charts as they are
  const axis = useAxis(shown, [...runs.flatMap((r) => r.times.filter(Number.isFinite)), ...(mode !== 'step' ? marks : [])]);
  if (shown.runs.length === 0) return null;
  const c = shown.runs[0].run.config;
  const what = shown.runs.length > 1 ? 'their held-out evaluations, each at its latest step' : `the held-out set ${c.evalSet}: ${c.evalProblems} problems, ${c.evalN} samples each`;
  return (
    <Panel title="Evaluation" className="panel-wide charts" intro={intro(shown, what)}>
      <CompareLegend shown={shown} />
      <ChartSubject.Provider value={subjectOf(shown)}>
        <EvalCharts runs={runs} seeds={shown.seeds} marks={marks} axis={axis} />
      </ChartSubject.Provider>
    </Panel>
  );
}
