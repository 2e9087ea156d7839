// Live charts of the selected run: training metrics by step (smoothing and log scale apply to
// these) and the held-out evaluations.
import { useId } from 'react';
import { MAX_SMOOTHING } from '../state/viewSlice';
import type { RunView } from '../state/runsSlice';
import { EvalCharts } from './charts/EvalCharts';
import { MetricChart } from './charts/MetricChart';
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

function useSelectedRun(): RunView | null {
  return useLab((s) => (s.runs.selected ? s.runs.byId[s.runs.selected] : null));
}

export function TrainingCharts() {
  const run = useSelectedRun();
  if (!run) return null;
  const specs = TRAINING_CHARTS.filter((c) => !c.optional || c.key in run.data.series);
  return (
    <Panel title="Training" className="panel-wide charts" intro={`${run.label}: what each step of the loop measured.`}>
      <ChartControls />
      <div className="chart-grid-layout">
        {specs.map((spec) => (
          <MetricChart key={spec.id} spec={spec} steps={run.data.step} values={run.data.series[spec.key]} totalSteps={run.status.totalSteps} />
        ))}
      </div>
    </Panel>
  );
}

export function EvaluationCharts() {
  const run = useSelectedRun();
  if (!run) return null;
  return (
    <Panel title="Evaluation" className="panel-wide charts" intro={`${run.label} on the held-out set ${run.config.evalSet}: ${run.config.evalProblems} problems, ${run.config.evalN} samples each.`}>
      <EvalCharts evals={run.data.evals} totalSteps={run.status.totalSteps} />
    </Panel>
  );
}
