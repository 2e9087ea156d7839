// Device loss and uncaptured GPU errors, reported by the worker on its own.
import { useLab } from './LabStore';

export function EngineAlerts() {
  const lost = useLab((s) => s.engine.deviceLost);
  const errors = useLab((s) => s.engine.gpuErrors);
  if (!lost && errors.length === 0) return null;
  return (
    <div className="alerts">
      {lost && (
        <div className="notice notice-error" role="alert" data-testid="device-lost">
          <h3>The GPU device was lost ({lost.reason})</h3>
          <p>
            {lost.message || 'No further detail was given.'} The engine cannot continue on this device; reload the page to start a new
            one.
          </p>
          <button type="button" onClick={() => window.location.reload()}>
            Reload the page
          </button>
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
