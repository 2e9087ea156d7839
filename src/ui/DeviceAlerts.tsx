// Device loss and uncaptured GPU errors, reported by the engine's workers on their own. The page's
// main worker (adapter, self-test, demo) can ask for a new device after a loss. Each run trains
// in a worker and on a device of its own: a run whose device was lost is listed here until it
// resumes from its last checkpoint (on a new device, in a new worker) or is deleted.
import { useLab } from './LabStore';

function MainDeviceLost() {
  const lost = useLab((s) => s.device.deviceLost);
  const reconnect = useLab((s) => s.device.reconnect);
  const reconnectDevice = useLab((s) => s.reconnectDevice);
  if (!lost) return null;
  return (
    <div className="notice notice-error" role="alert" data-testid="device-lost">
      <h3>The GPU device was lost ({lost.reason})</h3>
      <p>
        {lost.message || 'No further detail was given.'} The page's engine (adapter details, self-test, demo) cannot continue on this
        device, and no new run starts until it has a new one: reconnect to get it. Runs train on devices of their own; one whose
        device was lost too says so below and resumes from its last checkpoint (select it and press Resume).
      </p>
      <div className="actions">
        <button type="button" data-testid="device-reconnect" disabled={reconnect.status === 'connecting'} onClick={() => void reconnectDevice()}>
          {reconnect.status === 'connecting' ? 'Reconnecting…' : 'Reconnect GPU'}
        </button>
        <button type="button" className="secondary" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
      {reconnect.status === 'failed' && (
        <p className="cfg-error" data-testid="device-reconnect-error">
          No new device: {reconnect.message}
        </p>
      )}
    </div>
  );
}

/** Runs whose own worker's device was lost: the loss halted them alone. */
function RunDevicesLost() {
  const lostRuns = useLab((s) => s.device.lostRuns);
  const runs = useLab((s) => s.runs.byId);
  const lost = Object.entries(lostRuns).flatMap(([id, loss]) => (runs[id] ? [{ id, label: runs[id].label, ...loss }] : []));
  const select = useLab((s) => s.selectRun);
  const dismiss = useLab((s) => s.dismissRunLoss);
  if (lost.length === 0) return null;
  return (
    <div className="notice notice-error" role="alert" data-testid="run-device-lost">
      <h3>{lost.length === 1 ? `The GPU device of run ${lost[0].label} was lost` : `The GPU devices of ${lost.length} runs were lost`}</h3>
      <p>
        Each run trains in a worker with a GPU device of its own, so the loss halted only {lost.length === 1 ? 'this run' : 'these runs'}: the other
        runs and the rest of the page carry on. Steps up to the loss are kept; resume continues from the last checkpoint on a new device.
      </p>
      <ul>
        {lost.map((r) => (
          <li key={r.id} data-testid="run-device-lost-item" data-run-id={r.id}>
            <strong>{r.label}</strong>: {r.reason}
            {r.message && ` (${r.message})`}{' '}
            <button type="button" className="link" onClick={() => select(r.id)}>
              show run
            </button>{' '}
            <button type="button" className="link" aria-label={`Dismiss the device loss of ${r.label}`} onClick={() => dismiss(r.id)}>
              dismiss
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function DeviceAlerts() {
  const lost = useLab((s) => s.device.deviceLost !== null);
  const runsLost = useLab((s) => Object.keys(s.device.lostRuns).length > 0);
  const errors = useLab((s) => s.device.gpuErrors);
  if (!lost && !runsLost && errors.length === 0) return null;
  return (
    <div className="alerts">
      <MainDeviceLost />
      <RunDevicesLost />
      {errors.length > 0 && (
        <div className="notice notice-warn" role="alert" data-testid="gpu-errors">
          <h3>The GPU reported {errors.length === 1 ? 'an error' : 'errors'}</h3>
          <ul>
            {errors.map((m, i) => (
              <li key={i}>
                <code>{m}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
