// The grid's form: the base set-up is the launcher's (shown, not repeated), up to two knobs with
// their values, the seeds, an optional control arm and the concurrency. Before anything starts it
// shows how many runs the grid makes and about how long they take (the step time measured on this
// adapter), or the first problem, naming the arm and the field. Then the queue: each run's state,
// pause and resume, progress and ETA.
import { useMemo } from 'react';
import { expandGrid, knobChoices, MAX_KNOBS, type GridControl, type GridKnob } from '../../explore/grid';
import { defaultConcurrency, estimateSeconds, gridProgress, measuredStepSeconds } from '../../explore/queue';
import { armColour } from '../../explore/draw';
import { CONTROL_LOOP, LOOPS } from '../../loops/registry';
import { configDiff, defaultConfig, setupNames } from '../../state/launcher';
import { selectExclusiveJob, selectRunsReady, type LabState } from '../../state/store';
import { lookOf } from '../../state/gridDriver';
import { formatDuration } from '../format';
import { useLab } from '../LabStore';

function catalogOf(c: LabState['catalog'], uploads: LabState['uploads']['list']) {
  return c.status === 'ready' ? { names: [...c.catalog.policies, ...uploads].map((p) => p.name), defaultPolicy: c.catalog.defaultPolicy } : null;
}

function KnobRow({ i, knob, choices, set, remove }: { i: number; knob: GridKnob; choices: string[]; set: (k: GridKnob) => void; remove: () => void }) {
  return (
    <div className="explorer-knob" data-testid={`explorer-knob-${i}`}>
      <div className="field">
        <label htmlFor={`explorer-knob-key-${i}`}>Knob {i + 1}</label>
        <select id={`explorer-knob-key-${i}`} data-testid={`explorer-knob-key-${i}`} value={knob.key} onChange={(e) => set({ ...knob, key: e.target.value })}>
          {!choices.includes(knob.key) && <option value={knob.key}>{knob.key} (not a field of this loop)</option>}
          {choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-grow">
        <label htmlFor={`explorer-knob-values-${i}`}>Values (comma-separated)</label>
        <input id={`explorer-knob-values-${i}`} data-testid={`explorer-knob-values-${i}`} value={knob.values} placeholder="1e-4, 3e-5" onChange={(e) => set({ ...knob, values: e.target.value })} />
      </div>
      <button type="button" className="secondary" onClick={remove} aria-label={`Remove knob ${i + 1}`}>
        Remove
      </button>
    </div>
  );
}

function ControlRow({ control, arms, set }: { control: GridControl; arms: string[]; set: (c: GridControl | null) => void }) {
  const setups = setupNames({ loop: control.loop });
  return (
    <div className="explorer-knob" data-testid="explorer-control-arm">
      <div className="field">
        <label htmlFor="explorer-control-loop">Control loop</label>
        <select id="explorer-control-loop" value={control.loop} onChange={(e) => set({ ...control, loop: e.target.value, setup: setupNames({ loop: e.target.value }).includes(control.setup) ? control.setup : 'paper' })}>
          {LOOPS.map((l) => (
            <option key={l.spec.name} value={l.spec.name}>
              {l.spec.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="explorer-control-setup">its set-up</label>
        <select id="explorer-control-setup" value={control.setup} onChange={(e) => set({ ...control, setup: e.target.value })}>
          {setups.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="explorer-control-match">matched in tokens to</label>
        <select id="explorer-control-match" value={control.matchArm} onChange={(e) => set({ ...control, matchArm: Number(e.target.value) })}>
          {arms.map((a, i) => (
            <option key={a} value={i}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="explorer-control-steps">steps at most</label>
        <input id="explorer-control-steps" type="number" min={1} value={control.steps} onChange={(e) => set({ ...control, steps: Math.max(1, Math.round(Number(e.target.value) || 1)) })} />
      </div>
      <button type="button" className="secondary" onClick={() => set(null)}>
        Remove
      </button>
    </div>
  );
}

export function GridFormPanel() {
  const form = useLab((s) => s.explorer.form);
  const launcher = useLab((s) => s.launcher.state);
  const resolved = useLab((s) => s.launcher.resolved);
  const catalogState = useLab((s) => s.catalog);
  const uploads = useLab((s) => s.uploads.list);
  const runs = useLab((s) => s.runs);
  const refusal = useLab((s) => s.explorer.refusal);
  const ready = useLab((s) => selectRunsReady(s) && !selectExclusiveJob(s));
  const adapter = useLab((s) => (s.device.adapter.status === 'ready' ? s.device.adapter.adapter : null));
  const cpu = useLab((s) => s.cpuMode.status === 'on');
  const setForm = useLab((s) => s.setGridForm);
  const start = useLab((s) => s.startGrid);
  const expanded = useMemo(() => expandGrid(form, launcher, catalogOf(catalogState, uploads)), [form, launcher, catalogState, uploads]);
  const concurrency = form.concurrency ?? defaultConcurrency(adapter, cpu);
  const list = runs.order.map((id) => runs.byId[id]);
  const step = resolved.ok ? measuredStepSeconds(list, resolved.loop, resolved.policy) : null;
  const eta = expanded.ok ? estimateSeconds(expanded.runs, step?.seconds ?? null, concurrency) : null;
  const choices = knobChoices(launcher);
  const armsLabels = expanded.ok ? expanded.arms.filter((a) => !a.control).map((a) => a.label) : ['arm 1'];
  const setKnob = (i: number, k: GridKnob) => setForm({ knobs: form.knobs.map((x, j) => (j === i ? k : x)) });
  const problem = refusal ?? (expanded.ok ? null : expanded);
  return (
    <form className="explorer-form" aria-label="The grid" onSubmit={(e) => (e.preventDefault(), void start())}>
      <p className="detail" data-testid="explorer-base">
        Base set-up: the launcher&apos;s ({launcher.loop} · {launcher.setup} · {resolved.ok ? resolved.policy : 'policy loading'}
        {resolved.ok ? `; ${configDiff(resolved.config, defaultConfig(resolved.loop)) || 'the loop\'s defaults'}` : ''}). Change it there; the knobs below vary it.
      </p>
      {form.knobs.map((k, i) => (
        <KnobRow key={i} i={i} knob={k} choices={choices} set={(x) => setKnob(i, x)} remove={() => setForm({ knobs: form.knobs.filter((_, j) => j !== i) })} />
      ))}
      <div className="explorer-knob">
        {form.knobs.length < MAX_KNOBS && (
          <button type="button" className="secondary" data-testid="explorer-add-knob" onClick={() => setForm({ knobs: [...form.knobs, { key: choices.find((c) => !form.knobs.some((k) => k.key === c) && c === 'lr') ?? choices[0], values: '' }] })}>
            Add a knob
          </button>
        )}
        {!form.control && (
          <button type="button" className="secondary" data-testid="explorer-add-control" onClick={() => setForm({ control: { loop: CONTROL_LOOP, setup: 'paper', matchArm: 0, steps: 200 } })}>
            Add a control arm
          </button>
        )}
      </div>
      {form.control && <ControlRow control={form.control} arms={armsLabels} set={(c) => setForm({ control: c })} />}
      <div className="explorer-knob">
        <div className="field field-grow">
          <label htmlFor="explorer-seeds">Seeds</label>
          <input id="explorer-seeds" data-testid="explorer-seeds" value={form.seeds} onChange={(e) => setForm({ seeds: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="explorer-concurrency">Runs at once</label>
          <input id="explorer-concurrency" data-testid="explorer-concurrency" type="number" min={1} max={16} value={concurrency} onChange={(e) => setForm({ concurrency: Math.min(16, Math.max(1, Math.round(Number(e.target.value) || 1))) })} />
        </div>
      </div>
      <p className="explorer-summary" data-testid="explorer-runs-count" data-runs={expanded.ok ? expanded.runs.length : 0} data-arms={expanded.ok ? expanded.arms.length : 0}>
        {expanded.ok
          ? `${expanded.arms.length} arm${expanded.arms.length === 1 ? '' : 's'} × ${new Set(expanded.runs.map((r) => r.seed)).size} seed${new Set(expanded.runs.map((r) => r.seed)).size === 1 ? '' : 's'} = ${expanded.runs.length} runs, ${concurrency} at a time; `
          : 'No grid yet: '}
        <span data-testid="explorer-estimate">
          {expanded.ok ? (eta !== null ? `about ${formatDuration(eta)} of training steps (${step?.from}; evaluations add to it)` : 'no step of this set-up has been timed on this adapter yet: the time shows once the first run has stepped') : ''}
        </span>
      </p>
      {problem && (
        <p className="cfg-error" role="alert" data-testid="explorer-refusal" data-arm={problem.arm ?? ''} data-field={problem.field ?? ''}>
          {problem.message}
        </p>
      )}
      <button type="submit" data-testid="explorer-start" disabled={!expanded.ok || !ready} title={ready ? 'Queue every run of the grid' : 'Runs start once a GPU (or CPU mode) is ready'}>
        Start the grid
      </button>
    </form>
  );
}

const STATE_TEXT: Record<string, string> = { queued: 'queued', running: 'running', done: 'done', halted: 'halted', failed: 'failed', stopped: 'stopped' };

export function GridQueue() {
  const grid = useLab((s) => s.explorer.grid);
  const runs = useLab((s) => s.runs);
  const pause = useLab((s) => s.pauseGrid);
  const resume = useLab((s) => s.resumeGrid);
  const clear = useLab((s) => s.clearGrid);
  const select = useLab((s) => s.selectRun);
  const setConcurrency = useLab((s) => s.setGridConcurrency);
  if (!grid) return null;
  const look = (id: string) => lookOf(runs.byId[id]);
  const gridRuns = Object.values(grid.entries).flatMap((e) => (e.runId && runs.byId[e.runId] ? [runs.byId[e.runId]] : []));
  const first = grid.runs[0];
  const step = first ? measuredStepSeconds(gridRuns.length ? gridRuns : runs.order.map((id) => runs.byId[id]), first.loop, first.policy) : null;
  const p = gridProgress(grid, look, step?.seconds ?? null);
  const finished = p.ended === p.runs;
  return (
    <div className="explorer-queue" data-testid="explorer-progress" data-runs={p.runs} data-ended={p.ended} data-running={p.running} data-paused={grid.paused}>
      <p>
        <strong>{grid.title}</strong>: {p.ended} of {p.runs} runs ended{p.failed ? ` (${p.failed} failed)` : ''}, {p.running} running; {p.stepsDone} of {p.steps} steps
        {!finished && (p.etaS !== null ? `; about ${formatDuration(p.etaS)} left` : '; time left shows after the first step')}
        {grid.paused ? ' · paused' : ''}
      </p>
      <div className="explorer-queue-controls">
        {!finished && (grid.paused ? (
          <button type="button" data-testid="explorer-resume" onClick={resume}>Resume the grid</button>
        ) : (
          <button type="button" className="secondary" data-testid="explorer-pause" onClick={pause}>Pause the grid</button>
        ))}
        <label>
          Runs at once <input type="number" min={1} max={16} value={grid.concurrency} onChange={(e) => setConcurrency(Math.round(Number(e.target.value)))} />
        </label>
        <button type="button" className="secondary" data-testid="explorer-clear" onClick={() => void clear()} title="Forget this grid; its runs stay in the run list">
          Forget the grid
        </button>
      </div>
      <ul className="explorer-entries">
        {grid.runs.map((r) => {
          const e = grid.entries[r.key];
          const arm = grid.arms.find((a) => a.id === r.armId);
          const run = e.runId ? runs.byId[e.runId] : undefined;
          return (
            <li key={r.key} data-testid="explorer-entry" data-key={r.key} data-state={e.state} data-run-id={e.runId ?? ''} title={e.note}>
              <span className="swatch" style={{ background: armColour(grid.arms.indexOf(arm!)) }} aria-hidden="true" />
              <button type="button" className="link" disabled={!run} onClick={() => e.runId && select(e.runId)}>
                {arm?.label} · seed {r.seed}
              </button>{' '}
              <span className={`badge badge-${e.state === 'done' ? 'ok' : e.state === 'failed' || e.state === 'halted' ? 'fail' : 'idle'}`}>
                {STATE_TEXT[e.state]}
                {e.state === 'running' && run ? ` ${run.status.step}/${run.status.totalSteps}` : ''}
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
