// The knobs people most want to turn mid-run (learning rate, temperature, KL β, entropy
// coefficient, clip ε), shown read-only for the selected run: the GRPO loop fixes its config
// when it starts and offers no hook to change it between steps, so the page does not pretend
// it can. A change means a new run (the launcher keeps these values, and the run list labels it).
import { formatValue } from './format';
import type { RunView } from '../state/runsSlice';
import { isFinished } from '../state/runsSlice';

const KNOBS: readonly { label: string; value: (r: RunView) => number }[] = [
  { label: 'learning rate', value: (r) => r.config.lr },
  { label: 'temperature', value: (r) => r.config.rl.temperature },
  { label: 'KL β', value: (r) => r.config.rl.beta },
  { label: 'entropy coef.', value: (r) => r.config.rl.entCoef },
  { label: 'clip ε low', value: (r) => r.config.rl.clipLow },
  { label: 'clip ε high', value: (r) => r.config.rl.clipHigh },
];

export function RunKnobs({ run }: { run: RunView }) {
  const during = !isFinished(run.status.state);
  return (
    <details className="run-knobs" data-testid="run-knobs">
      <summary>Knobs of this run{during ? ' (fixed while it runs)' : ''}</summary>
      <dl>
        {KNOBS.map((k) => (
          <div key={k.label}>
            <dt>{k.label}</dt>
            <dd>
              <code>{formatValue(k.value(run))}</code>
            </dd>
          </div>
        ))}
      </dl>
      <p className="detail">
        The loop reads these once, when the run starts, and has no way yet to take new values between steps. To try other values,
        change them in the set-up and start a new run; tick both runs to compare them.
      </p>
    </details>
  );
}
