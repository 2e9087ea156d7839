// The first training run a visitor sees: the tiny policy memorises a phrase, live.
import { useId, useState } from 'react';
import type { DemoStatus } from '../state/demoSlice';
import { selectBusy, selectEngineReady } from '../state/store';
import { formatLoss } from './format';
import { LossChart } from './LossChart';
import { useLab } from './LabStore';
import { Panel } from './Panel';

/** A whole-number field that keeps what the user types and commits only valid values. */
function IntField({ label, value, min, max, disabled, onCommit }: { label: string; value: number; min: number; max: number; disabled: boolean; onCommit: (v: number) => void }) {
  const id = useId();
  const [text, setText] = useState(String(value));
  const n = Number(text);
  const valid = text.trim() !== '' && Number.isInteger(n) && n >= min && n <= max;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        value={text}
        disabled={disabled}
        aria-invalid={!valid}
        onChange={(e) => {
          setText(e.target.value);
          const v = Number(e.target.value);
          if (e.target.value.trim() !== '' && Number.isInteger(v) && v >= min && v <= max) onCommit(v);
        }}
      />
    </div>
  );
}

const STATUS_TEXT: Record<DemoStatus, string> = {
  idle: 'Ready.',
  running: 'Training…',
  stopping: 'Stopping…',
  done: 'Finished.',
  stopped: 'Stopped.',
  failed: 'The demo failed.',
};

function DemoStats() {
  const demo = useLab((s) => s.demo);
  const ready = useLab(selectEngineReady);
  const last = demo.points[demo.points.length - 1];
  const text = demo.status === 'idle' && !ready ? 'Needs a working WebGPU device (see the adapter panel).' : STATUS_TEXT[demo.status];
  return (
    <p className="status" data-testid="demo-status" aria-live="polite">
      {text}
      {last && (
        <>
          {' '}
          Step {last.step} of {demo.options.steps} · loss {formatLoss(last.loss)}
          {demo.tokensPerS !== null && ` · ${Math.round(demo.tokensPerS).toLocaleString('en-US')} tokens/s`}
        </>
      )}
    </p>
  );
}

export function DemoPanel() {
  const phraseId = useId();
  const demo = useLab((s) => s.demo);
  const ready = useLab(selectEngineReady);
  const busy = useLab(selectBusy);
  const setOptions = useLab((s) => s.setDemoOptions);
  const start = useLab((s) => s.startDemo);
  const stop = useLab((s) => s.stopDemo);
  const running = demo.status === 'running' || demo.status === 'stopping';
  return (
    <Panel
      title="Demo: memorise a phrase"
      className="panel-wide"
      intro="Trains the tiny policy, on your GPU, to reproduce a short phrase. The loss should fall towards zero within a few dozen steps."
    >
      <form
        className="demo-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <div className="field field-grow">
          <label htmlFor={phraseId}>Phrase</label>
          <input id={phraseId} type="text" value={demo.options.phrase} maxLength={64} disabled={running} onChange={(e) => setOptions({ phrase: e.target.value })} />
        </div>
        <IntField label="Steps" value={demo.options.steps} min={1} max={100_000} disabled={running} onCommit={(steps) => setOptions({ steps })} />
        <IntField label="Seed" value={demo.options.seed} min={0} max={2 ** 31 - 1} disabled={running} onCommit={(seed) => setOptions({ seed })} />
        <div className="actions">
          <button type="submit" data-testid="demo-start" disabled={!ready || busy || demo.options.phrase.length === 0}>
            Start training
          </button>
          <button type="button" className="secondary" data-testid="demo-stop" disabled={demo.status !== 'running'} onClick={() => void stop()}>
            Stop
          </button>
        </div>
      </form>
      <DemoStats />
      {demo.error && (
        <div className="notice notice-error" role="alert" data-testid="demo-error">
          <h3>The engine reported an error</h3>
          <code>{demo.error}</code>
        </div>
      )}
      <LossChart points={demo.points} steps={demo.options.steps} />
    </Panel>
  );
}
