// The runs of this page and of earlier visits: a list to pick from (each labelled by its
// difference from the run before), and the selected run's status and commands. Commands are
// exact: pause waits for the step in progress to finish, a single step runs one RL step.
import type { RunState } from '../lab/protocol';
import { isComputing, isFinished, type RunView } from '../state/runsSlice';
import { selectExclusiveJob } from '../state/store';
import { downloadRun } from './download';
import { formatDuration } from './format';
import { useLab } from './LabStore';
import { Panel } from './Panel';

const STATE_TEXT: Record<RunState, string> = {
  starting: 'Starting',
  running: 'Running',
  pausing: 'Pausing after this step',
  paused: 'Paused',
  stopping: 'Stopping after this step',
  done: 'Finished',
  stopped: 'Stopped',
  failed: 'Failed',
};

function stateBadge(state: RunState): string {
  if (state === 'failed') return 'badge badge-fail';
  if (state === 'done') return 'badge badge-ok';
  return `badge badge-${isComputing(state) ? 'busy' : 'idle'}`;
}

function RunItem({ run, selected }: { run: RunView; selected: boolean }) {
  const select = useLab((s) => s.selectRun);
  const remove = useLab((s) => s.deleteRun);
  const { state, step, totalSteps } = run.status;
  return (
    <li data-testid="run-item" data-run-id={run.id} data-state={state} className={selected ? 'run-item selected' : 'run-item'}>
      <button type="button" className="run-pick" aria-pressed={selected} onClick={() => select(run.id)}>
        <span className="run-label">{run.label}</span>
        <span className={stateBadge(state)}>{STATE_TEXT[state]}</span>
        <span className="run-step">
          step {step} / {totalSteps}
        </span>
        <span className="run-diff">{run.diff === '' ? 'same set-up as the run before' : run.diff}</span>
      </button>
      <div className="run-actions">
        <button type="button" className="link" data-testid="run-export-csv" onClick={() => downloadRun(run, 'csv')}>
          CSV
        </button>
        <button type="button" className="link" data-testid="run-export-json" onClick={() => downloadRun(run, 'json')}>
          JSON
        </button>
        <button type="button" className="link" disabled={!isFinished(state)} onClick={() => void remove(run.id)}>
          delete
        </button>
      </div>
    </li>
  );
}

function RunStatusLine({ run }: { run: RunView }) {
  const { state, step, totalSteps, stepsPerS, etaS, error } = run.status;
  return (
    <div className="run-status" data-testid="run-status" data-state={state} data-step={step} aria-live="polite">
      <strong>{run.label}</strong> · {STATE_TEXT[state]} · step {step} of {totalSteps}
      {stepsPerS !== null && ` · ${stepsPerS < 1 ? stepsPerS.toFixed(2) : stepsPerS.toFixed(1)} steps/s`}
      {etaS !== null && !isFinished(state) && ` · about ${formatDuration(etaS)} left`}
      {!run.live && !isFinished(state) && ' · from an earlier visit'}
      {error && (
        <div className="notice notice-error" role="alert" data-testid="run-error">
          <code>{error}</code>
        </div>
      )}
    </div>
  );
}

function RunControls({ run }: { run: RunView }) {
  const pause = useLab((s) => s.pauseRun);
  const resume = useLab((s) => s.resumeRun);
  const step = useLab((s) => s.stepRun);
  const stop = useLab((s) => s.stopRun);
  const exclusive = useLab(selectExclusiveJob);
  const s = run.status.state;
  const live = run.live;
  return (
    <div className="actions run-controls">
      <button type="button" className="secondary" data-testid="run-pause" disabled={!live || (s !== 'running' && s !== 'starting')} onClick={() => void pause(run.id)}>
        Pause
      </button>
      <button type="button" className="secondary" data-testid="run-resume" disabled={!live || exclusive || (s !== 'paused' && s !== 'pausing')} onClick={() => void resume(run.id)}>
        Resume
      </button>
      <button type="button" className="secondary" data-testid="run-step" disabled={!live || exclusive || s !== 'paused'} onClick={() => void step(run.id)}>
        Single step
      </button>
      <button type="button" className="secondary" data-testid="run-stop" disabled={!live || !['starting', 'running', 'pausing', 'paused'].includes(s)} onClick={() => void stop(run.id)}>
        Stop
      </button>
    </div>
  );
}

export function RunsPanel() {
  const runs = useLab((s) => s.runs);
  const list = runs.order.map((id) => runs.byId[id]);
  const selected = runs.selected ? runs.byId[runs.selected] : null;
  return (
    <Panel title="Runs" className="runs">
      {selected ? (
        <>
          <RunStatusLine run={selected} />
          <RunControls run={selected} />
        </>
      ) : (
        <p className="muted" data-testid="run-status" data-state="none">
          No run yet: set one up and press Start run.
        </p>
      )}
      {runs.message && (
        <p className="cfg-error" role="alert" data-testid="runs-message">
          {runs.message}
        </p>
      )}
      <ol className="run-list" data-testid="run-list" aria-label="Runs, oldest first">
        {list.map((r) => (
          <RunItem key={r.id} run={r} selected={r.id === runs.selected} />
        ))}
      </ol>
      {runs.archive === 'failed' && <p className="detail">Runs are not being saved: {runs.archiveError}</p>}
      {runs.archive === 'off' && <p className="detail">This browser has no IndexedDB: runs last until the page closes.</p>}
    </Panel>
  );
}
