// Device loss and uncaptured GPU errors, reported by the worker on its own. After a loss the
// worker can ask for a new device; runs it halted then resume from their last checkpoints.
import { useLab } from './LabStore';

export function EngineAlerts() {
  const lost = useLab((s) => s.engine.deviceLost);
  const errors = useLab((s) => s.engine.gpuErrors);
  const reconnect = useLab((s) => s.engine.reconnect);
  const reconnectEngine = useLab((s) => s.reconnectEngine);
  if (!lost && errors.length === 0) return null;
  return (
    <div className="alerts">
      {lost && (
        <div className="notice notice-error" role="alert" data-testid="device-lost">
          <h3>The GPU device was lost ({lost.reason})</h3>
          <p>
            {lost.message || 'No further detail was given.'} The engine cannot continue on this device. Reconnect to get a new one; runs
            the loss halted then resume from their last checkpoints (select one and press Resume).
          </p>
          <div className="actions">
            <button type="button" data-testid="device-reconnect" disabled={reconnect.status === 'connecting'} onClick={() => void reconnectEngine()}>
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
      )}
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
