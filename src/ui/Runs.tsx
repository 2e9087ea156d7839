// The runs of this page and of earlier visits: a list to pick from (each labelled by its
// difference from the run before, with a box to tick it for comparison), and the selected run's
// status, why it stopped on its own if it did, and its commands. Commands are exact: pause
// waits for the step in progress to finish, a single step runs one RL step. The buttons run the
// same registered commands as the keyboard shortcuts.
import type { RunState } from '../lab/protocol';
import { command, type CommandId } from '../state/commands';
import { isComputing, isFinished, type RunView } from '../state/runsSlice';
import { canRestore, deviceLosses, haltedByDeviceLoss, isInterrupted, MAX_DEVICE_LOSSES } from '../state/resume';
import { restorableRun } from '../state/commands';
import { CheckpointExport, CheckpointPrune, LossLimitNotice } from './Checkpoints';
import { RunImport } from './RunImport';
import { RunKnobs } from './RunKnobs';
import { downloadRun } from './download';
import { formatDuration } from './format';
import { endsText, runSummary } from '../state/summary';
import { phaseLine, showsEta } from '../state/statusLine';
import { useLab, useLabStore } from './LabStore';
import { selectRunsReady } from '../state/store';
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

/** The state in words; a run the device loss ended or a reload interrupted says so rather than just "Failed" or "Stopped". */
function stateText(run: RunView): string {
  if (run.elsewhere) return 'Running in another tab';
  if (isInterrupted(run)) return 'Interrupted';
  return haltedByDeviceLoss(run) ? 'Halted: GPU lost' : STATE_TEXT[run.status.state];
}

function stateBadge(state: RunState): string {
  if (state === 'failed') return 'badge badge-fail';
  if (state === 'done') return 'badge badge-ok';
  return `badge badge-${isComputing(state) ? 'busy' : 'idle'}`;
}

function RunItem({ run, selected }: { run: RunView; selected: boolean }) {
  const select = useLab((s) => s.selectRun);
  const remove = useLab((s) => s.deleteRun);
  const compared = useLab((s) => s.runs.compared.includes(run.id));
  const toggle = useLab((s) => s.toggleCompare);
  const { state, step, totalSteps } = run.status;
  return (
    <li data-testid="run-item" data-run-id={run.id} data-state={state} data-interrupted={isInterrupted(run) || undefined} className={selected ? 'run-item selected' : 'run-item'}>
      <label className="run-compare" title="Tick two or more runs to overlay them on the charts">
        <input type="checkbox" data-testid="run-compare" checked={compared} onChange={() => toggle(run.id)} />
        <span className="visually-hidden">Compare {run.label}</span>
      </label>
      <button type="button" className="run-pick" aria-pressed={selected} onClick={() => select(run.id)}>
        <span className="run-label">{run.label}</span>
        <span className={stateBadge(state)}>{stateText(run)}</span>
        <span className="run-step">
          step {step} / {totalSteps}
        </span>
        <span className="run-diff">{run.diff === '' ? 'same set-up as the last run of its loop' : run.diff}</span>
      </button>
      <div className="run-actions">
        <button type="button" className="link" data-testid="run-export-csv" onClick={() => downloadRun(run, 'csv')}>
          CSV
        </button>
        <button type="button" className="link" data-testid="run-export-json" onClick={() => downloadRun(run, 'json')}>
          JSON
        </button>
        <CheckpointExport run={run} />
        <button type="button" className="link" disabled={!isFinished(state)} onClick={() => void remove(run.id)}>
          delete
        </button>
      </div>
    </li>
  );
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const num3 = (x: number) => x.toFixed(3);

/** What a finished run did: its compute, reward and entropy at both ends, held-out pass@k first → last. */
function SummaryLine({ run }: { run: RunView }) {
  const s = runSummary(run.data);
  const parts = [`${s.steps} step${s.steps === 1 ? '' : 's'} in ${formatDuration(s.seconds)} of compute`];
  if (s.reward) parts.push(s.reward.window === 0 ? `reward ${num3(s.reward.to)} (one step)` : `reward ${num3(s.reward.from)} → ${num3(s.reward.to)} (${endsText(s.reward)})`);
  if (s.entropy) parts.push(s.entropy.window === 0 ? `entropy while solving ${num3(s.entropy.to)}` : `entropy while solving ${num3(s.entropy.from)} → ${num3(s.entropy.to)}`);
  if (s.pass1) parts.push(`held-out pass@1 ${pct(s.pass1.from)} → ${pct(s.pass1.to)} (step ${s.pass1.fromStep} → ${s.pass1.toStep})`);
  if (s.passMax) parts.push(`pass@${s.passMax.k} ${pct(s.passMax.from)} → ${pct(s.passMax.to)}`);
  return (
    <p className="detail run-summary" data-testid="run-summary">
      Summary: {parts.join('; ')}.
    </p>
  );
}

function RunStatusLine({ run }: { run: RunView }) {
  const { state, step, totalSteps, stepsPerS, etaS, error } = run.status;
  return (
    <div className="run-status" data-testid="run-status" data-state={state} data-step={step} aria-live="polite">
      <strong>{run.label}</strong> · {stateText(run)} · step {step} of {totalSteps}
      {stepsPerS !== null && ` · ${stepsPerS < 1 ? stepsPerS.toFixed(2) : stepsPerS.toFixed(1)} steps/s`}
      {showsEta(state, etaS) && ` · about ${formatDuration(etaS!)} left`}
      {!run.live && !run.elsewhere && !isFinished(state) && ' · from an earlier visit'}
      {/* one line of its own, always there while the run computes: the buttons below do not move as phases come and go */}
      {run.live && !isFinished(state) && (
        <div className="run-phase" data-testid="run-phase">
          {phaseLine(run.status)}
        </div>
      )}
      {run.elsewhere && (
        <p className="detail" data-testid="run-elsewhere">
          Another tab of this browser trains this run: control it there. This page follows it live; if that tab closes first, the run is shown as cut off here and can be resumed from its checkpoint.
        </p>
      )}
      {state === 'done' && <SummaryLine run={run} />}
      <HaltNotice run={run} />
      <RestoreHint run={run} />
      {error && error !== lastHalt(run)?.message && (
        <div className="notice notice-error" role="alert" data-testid="run-error">
          <code>{error}</code>
        </div>
      )}
    </div>
  );
}

const lastHalt = (run: RunView) => run.status.halts?.[run.status.halts.length - 1];

/** Why the run stopped on its own (the latest time), and how many times it did. */
function HaltNotice({ run }: { run: RunView }) {
  const halts = run.status.halts ?? [];
  const h = lastHalt(run);
  if (!h) return null;
  // once the run has finished, the halt's advice (resume, reconnect, free space) is history
  if (run.status.state === 'done') {
    return (
      <p className="detail" data-testid="run-halt-history">
        It stopped on its own {halts.length === 1 ? 'once' : `${halts.length} times`}, at step{halts.length === 1 ? '' : 's'} {halts.map((x) => x.step).join(', ')} (marked on the charts), and was resumed to the end.
      </p>
    );
  }
  return (
    <div className="notice notice-warn" role="alert" data-testid="run-halt" data-kind={h.kind} data-step={h.step}>
      {h.message}
      {halts.length > 1 && <p className="detail">It stopped on its own {halts.length} times, at steps {halts.map((x) => x.step).join(', ')} (marked on the charts).</p>}
      {h.kind === 'storage-full' && !isFinished(run.status.state) && <CheckpointPrune run={run} />}
      {h.kind === 'device-lost' && deviceLosses(run) >= MAX_DEVICE_LOSSES && <LossLimitNotice run={run} />}
    </div>
  );
}

/** How an interrupted run or one whose GPU was lost carries on. */
function RestoreHint({ run }: { run: RunView }) {
  const ready = useLab(selectRunsReady);
  if (!canRestore(run)) return null;
  const from = run.status.checkpointStep === undefined ? 'from its last checkpoint' : `from its last checkpoint (step ${run.status.checkpointStep})`;
  return (
    <p className="detail" data-testid="run-restore-hint">
      {ready ? `Resume continues it ${from}.` : `Reconnect the GPU above, then resume it ${from}.`}
    </p>
  );
}

/** A button that runs a registered command, enabled exactly when the command is. */
function CommandButton({ id, testId, children }: { id: CommandId; testId: string; children: string }) {
  const c = command(id);
  const enabled = useLab((s) => c.enabled(s));
  const store = useLabStore();
  const shortcut = id === 'pause' || id === 'resume' ? 'Space' : c.keyLabel;
  return (
    <button type="button" className="secondary" data-testid={testId} disabled={!enabled} title={shortcut ? `${c.title} (${shortcut})` : c.title} onClick={() => c.run(store.getState())}>
      {children}
      {shortcut && <kbd className="key-hint">{shortcut}</kbd>}
    </button>
  );
}

function RunControls() {
  const openHelp = useLab((s) => s.setHelpOpen);
  const restore = useLab((s) => restorableRun(s) !== null);
  return (
    <div className="actions run-controls">
      <CommandButton id="pause" testId="run-pause">Pause</CommandButton>
      <CommandButton id="resume" testId="run-resume">{restore ? 'Resume from checkpoint' : 'Resume'}</CommandButton>
      <CommandButton id="step" testId="run-step">Single step</CommandButton>
      <CommandButton id="stop" testId="run-stop">Stop</CommandButton>
      <button type="button" className="link" data-testid="shortcuts-open" onClick={() => openHelp(true)}>
        Shortcuts <kbd>?</kbd>
      </button>
    </div>
  );
}

/** After a reload: the runs it cut off, and one button that resumes them all from their checkpoints. */
function ResumeAll({ list }: { list: RunView[] }) {
  const ready = useLab(selectRunsReady);
  const resumeAll = useLab((s) => s.resumeInterrupted);
  const cut = list.filter(isInterrupted);
  if (cut.length === 0) return null;
  return (
    <div className="notice" data-testid="runs-interrupted">
      <p>
        {cut.length === 1 ? `Run ${cut[0].label} was` : `${cut.length} runs (${cut.map((r) => `#${r.index}`).join(', ')}) were`} cut off when this page was last closed or reloaded.
        {ready ? ' Each continues from its last checkpoint.' : ' Reconnect the GPU above to continue them.'}
      </p>
      <button type="button" className="secondary" data-testid="runs-resume-all" disabled={!ready} onClick={() => resumeAll()}>
        {cut.length === 1 ? 'Resume it' : `Resume all ${cut.length}`}
      </button>
    </div>
  );
}

export function RunsPanel() {
  const runs = useLab((s) => s.runs);
  const list = runs.order.map((id) => runs.byId[id]);
  const selected = runs.selected ? runs.byId[runs.selected] : null;
  const checkpointMessage = useLab((s) => s.checkpoints.message);
  const importHidden = useLab((s) => s.lesson.hide.includes('import'));
  return (
    <Panel title="Runs" className="runs">
      {selected ? (
        <>
          <RunStatusLine run={selected} />
          <RunControls />
          <RunKnobs run={selected} />
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
      {checkpointMessage && (
        <p className="cfg-error" role="alert" data-testid="checkpoints-message">
          {checkpointMessage}
        </p>
      )}
      <ResumeAll list={list} />
      {list.length > 1 && <p className="detail">Tick two or more runs to overlay them on every chart.</p>}
      <ol className="run-list" data-testid="run-list" aria-label="Runs, oldest first">
        {list.map((r) => (
          <RunItem key={r.id} run={r} selected={r.id === runs.selected} />
        ))}
      </ol>
      {!importHidden && <RunImport />}
      {runs.archive === 'failed' && <p className="detail">Runs are not being saved: {runs.archiveError}</p>}
      {runs.archive === 'off' && <p className="detail">This browser has no IndexedDB: runs last until the page closes.</p>}
    </Panel>
  );
}
