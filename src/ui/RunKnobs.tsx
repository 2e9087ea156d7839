// The knobs people most want to turn mid-run (learning rate, temperature, KL β, entropy
// coefficient, clip ε), each with the paper's value beside it. While the selected run of this
// page is running or paused they can be changed: Apply checks them with the loop's validator and
// queues them; the loop takes them at the top of its next step, and the charts mark that step.
import { useState } from 'react';
import type { LiveKnobs } from '../lab/protocol';
import { currentKnobs, KNOB_SPECS, parseKnobs, checkKnobs, type KnobKey } from '../state/knobs';
import type { RunView } from '../state/runsSlice';
import { formatValue } from './format';
import { useLab } from './LabStore';

const EDITABLE = new Set(['running', 'pausing', 'paused']);

const textOf = (k: LiveKnobs): Record<KnobKey, string> =>
  Object.fromEntries(KNOB_SPECS.map((s) => [s.key, String(k[s.key])])) as Record<KnobKey, string>;

function KnobsForm({ run, current }: { run: RunView; current: LiveKnobs }) {
  const setKnobs = useLab((s) => s.setRunKnobs);
  // a lesson link's locked fields cannot be turned mid-run either
  const lock = useLab((s) => s.lesson.lock);
  const [text, setText] = useState(() => textOf(current));
  const [note, setNote] = useState<string | null>(null);
  const parsed = parseKnobs(text, current);
  const invalid = !parsed.ok ? parsed.message : checkKnobs(run.loop, run.config, current, parsed.change);
  const changed = parsed.ok && Object.keys(parsed.change).length > 0;
  const apply = async () => {
    if (!parsed.ok || !changed) return;
    const r = await setKnobs(run.id, parsed.change);
    setNote(r.ok ? `Queued: the loop takes ${Object.keys(parsed.change).join(', ')} at the top of step ${r.step}.` : r.message);
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void apply();
      }}
    >
      <dl>
        {KNOB_SPECS.map((k) => (
          <div key={k.key} data-testid={`knob-${k.key}`} title={k.help}>
            <dt>
              <label htmlFor={`knob-${run.id}-${k.key}`}>{k.label}</label>
            </dt>
            <dd>
              <input
                id={`knob-${run.id}-${k.key}`} type="text" inputMode="decimal" size={8} value={text[k.key]} disabled={lock.includes(k.key)}
                onChange={(e) => {
                  setText({ ...text, [k.key]: e.target.value });
                  setNote(null);
                }}
              />
              <span className="detail">now {formatValue(current[k.key])} · paper {k.paper}</span>
            </dd>
          </div>
        ))}
      </dl>
      {invalid && (
        <p className="cfg-error" role="alert" data-testid="knobs-error">
          {invalid}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="secondary" data-testid="knobs-apply" disabled={!changed || invalid !== null}>
          Apply
        </button>
        <button type="button" className="link" disabled={!changed} onClick={() => setText(textOf(current))}>
          Reset
        </button>
      </div>
      {note && (
        <p className="detail" data-testid="knobs-note" aria-live="polite">
          {note}
        </p>
      )}
    </form>
  );
}

function KnobsList({ current }: { current: LiveKnobs }) {
  return (
    <dl>
      {KNOB_SPECS.map((k) => (
        <div key={k.key} data-testid={`knob-${k.key}`} title={k.help}>
          <dt>{k.label}</dt>
          <dd>
            <code>{formatValue(current[k.key])}</code>
            <span className="detail">paper {k.paper}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function RunKnobs({ run }: { run: RunView }) {
  const hidden = useLab((s) => s.lesson.hide.includes('knobs'));
  const editable = run.live && EDITABLE.has(run.status.state);
  if (hidden) return null;
  const current = currentKnobs(run.config, run.data);
  return (
    <details className="run-knobs" data-testid="run-knobs" data-editable={editable}>
      <summary>Knobs of this run{editable ? ' (change them between steps)' : ''}</summary>
      {editable ? <KnobsForm key={run.id} run={run} current={current} /> : <KnobsList current={current} />}
      <p className="detail">
        {editable
          ? 'Applied values take effect from the next step (a paused run: the step after it resumes or single-steps); the training charts mark that step. A KL β above 0 holds the policy near the one the run started from (its frozen reference).'
          : 'The values the run trained with last. Only a running or paused run of this page takes new values; changes were marked on the training charts.'}
      </p>
    </details>
  );
}
