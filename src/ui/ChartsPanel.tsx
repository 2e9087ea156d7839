// Live charts: training metrics by step (smoothing and log scale apply to these) and the
// held-out evaluations, of the selected run or, with two or more runs ticked, of all of them
// overlaid and labelled by their difference from the first.
import { useId, useMemo } from 'react';
import { shownRuns, type ShownRun } from '../state/compare';
import type { RunView } from '../state/runsSlice';
import { MAX_SMOOTHING } from '../state/viewSlice';
import { knobChanges, knobsOfConfig } from '../state/knobs';
import { formatValue } from './format';
import { EvalCharts } from './charts/EvalCharts';
import { MetricChart } from './charts/MetricChart';
import { seriesClass } from './charts/overlay';
import { TRAINING_CHARTS } from './charts/specs';
import { useLab } from './LabStore';
import { Panel } from './Panel';

function ChartControls() {
  const smoothId = useId();
  const logId = useId();
  const view = useLab((s) => s.view);
  const setSmoothing = useLab((s) => s.setSmoothing);
  const setLog = useLab((s) => s.setLogScale);
  return (
    <div className="chart-controls">
      <label htmlFor={smoothId}>Smoothing {view.smoothing.toFixed(2)}</label>
      <input id={smoothId} type="range" min={0} max={MAX_SMOOTHING} step={0.01} value={view.smoothing} data-testid="chart-smoothing" onChange={(e) => setSmoothing(Number(e.target.value))} />
      <label className="check">
        <input id={logId} type="checkbox" checked={view.logScale} data-testid="chart-log" onChange={(e) => setLog(e.target.checked)} />
        Log scale
      </label>
    </div>
  );
}

export interface Shown {
  runs: ShownRun<RunView>[];
  seeds: boolean;
}

/** The runs the charts draw (see shownRuns); stable while the runs slice is unchanged. */
export function useShownRuns(): Shown {
  const runs = useLab((s) => s.runs);
  return useMemo(() => shownRuns(runs.order, runs.byId, runs.compared, runs.selected), [runs.order, runs.byId, runs.compared, runs.selected]);
}

/** Steps where a shown run stopped on its own. */
export function haltSteps(shown: Shown): number[] {
  return [...new Set(shown.runs.flatMap((r) => (r.run.status.halts ?? []).map((h) => h.step)))].sort((a, b) => a - b);
}

/** A labelled step where a shown run's knobs changed (from its stored metrics). */
export interface ChangeMark {
  step: number;
  label: string;
}

/** Steps where a shown run's knobs changed; with several runs, each label names its run. */
export function changeMarks(shown: Shown): ChangeMark[] {
  const several = shown.runs.length > 1;
  const marks = shown.runs.flatMap((r) =>
    knobChanges(r.run.data.step, r.run.data.series, knobsOfConfig(r.run.config), formatValue).map((c) => ({ step: c.step, label: several ? `#${r.run.index}: ${c.label}` : c.label })),
  );
  return marks.sort((a, b) => a.step - b.step);
}

/** Which colour is which run, when several are drawn. */
export function CompareLegend({ shown }: { shown: Shown }) {
  if (shown.runs.length < 2) return null;
  return (
    <div className="compare-legend" data-testid="compare-legend">
      <ul>
        {shown.runs.map((r, i) => (
          <li key={r.run.id} data-testid="compare-label">
            <span className={`swatch ${seriesClass(i, shown.runs.length)}`} aria-hidden="true" />
            {r.name}
          </li>
        ))}
      </ul>
      {shown.seeds && <p className="detail">These runs differ only by seed: the thick line is their mean, the shaded band spans the lowest to the highest seed at each step.</p>}
    </div>
  );
}

function intro(shown: Shown, what: string): string {
  if (shown.runs.length > 1) return `${shown.runs.length} runs compared: ${what}.`;
  return `${shown.runs[0].run.label}: ${what}.`;
}

export function TrainingCharts() {
  const shown = useShownRuns();
  if (shown.runs.length === 0) return null;
  const marks = haltSteps(shown);
  const changes = changeMarks(shown);
  const totalSteps = Math.max(...shown.runs.map((r) => r.run.status.totalSteps));
  const specs = TRAINING_CHARTS.filter((c) => !c.optional || shown.runs.some((r) => c.key in r.run.data.series));
  return (
    <Panel title="Training" className="panel-wide charts" intro={intro(shown, 'what each step of the loop measured')}>
      <ChartControls />
      <CompareLegend shown={shown} />
      <div className="chart-grid-layout">
        {specs.map((spec) => (
          <MetricChart
            key={spec.id} spec={spec} seeds={shown.seeds} marks={marks} changes={changes} totalSteps={totalSteps}
            series={shown.runs.map((r) => ({ id: r.run.id, name: r.name, steps: r.run.data.step, values: r.run.data.series[spec.key] }))}
          />
        ))}
      </div>
    </Panel>
  );
}

export function EvaluationCharts() {
  const shown = useShownRuns();
  if (shown.runs.length === 0) return null;
  const c = shown.runs[0].run.config;
  const totalSteps = Math.max(...shown.runs.map((r) => r.run.status.totalSteps));
  const what = shown.runs.length > 1 ? 'their held-out evaluations, each at its latest step' : `the held-out set ${c.evalSet}: ${c.evalProblems} problems, ${c.evalN} samples each`;
  return (
    <Panel title="Evaluation" className="panel-wide charts" intro={intro(shown, what)}>
      <CompareLegend shown={shown} />
      <EvalCharts runs={shown.runs.map((r) => ({ id: r.run.id, name: r.name, evals: r.run.data.evals }))} seeds={shown.seeds} marks={haltSteps(shown)} totalSteps={totalSteps} />
    </Panel>
  );
}
