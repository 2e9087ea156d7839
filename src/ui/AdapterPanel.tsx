// Which GPU the main worker found, with the features and limits the kernels depend on.
import type { AdapterSummary } from '../gpu/device';
import { formatLimit } from './format';
import { useLab } from './LabStore';
import { Panel } from './Panel';
import { WebGpuHelp } from './WebGpuHelp';

function isSoftware(a: AdapterSummary): boolean {
  return /swiftshader|llvmpipe|lavapipe|software|basic render/i.test(`${a.architecture} ${a.description} ${a.name}`);
}

/** Optional features the engine asks for when the adapter has them (see src/gpu/device.ts). */
const OPTIONAL_FEATURES: Record<string, string> = {
  'timestamp-query': 'GPU timing of kernels',
  subgroups: 'subgroup operations',
  'shader-f16': 'half-precision arithmetic',
};

// Some browsers leave `device` and `description` empty and report only the vendor.
function displayName(a: AdapterSummary): string {
  return a.name === a.vendor && a.architecture ? `${a.vendor} ${a.architecture}` : a.name;
}

function Features({ features }: { features: string[] }) {
  return (
    <>
      <h3>Optional features</h3>
      <ul className="chips" aria-label="Optional features the lab can use">
        {Object.entries(OPTIONAL_FEATURES).map(([f, what]) => {
          const has = features.includes(f);
          return (
            <li key={f} className={has ? 'chip-on' : 'chip-off'} title={what}>
              <span aria-label={has ? 'available' : 'not available'}>{has ? '✓' : '✗'}</span> {f}
            </li>
          );
        })}
      </ul>
      <details className="all-features">
        <summary>All {features.length} adapter features</summary>
        <ul className="chips">
          {features.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      </details>
    </>
  );
}

function AdapterDetails({ adapter, deviceLimits, lost }: { adapter: AdapterSummary; deviceLimits: Record<string, number>; lost: boolean }) {
  const limits = { ...adapter.limits, ...deviceLimits };
  return (
    <>
      {lost ? <p className="badge badge-fail">Device lost</p> : <p className="badge badge-ok">WebGPU ready</p>}
      <dl className="facts">
        <dt>Adapter</dt>
        <dd data-testid="adapter-name">{displayName(adapter)}</dd>
        <dt>Vendor</dt>
        <dd>{adapter.vendor || '—'}</dd>
        <dt>Architecture</dt>
        <dd>{adapter.architecture || '—'}</dd>
        {adapter.description && (
          <>
            <dt>Description</dt>
            <dd>{adapter.description}</dd>
          </>
        )}
      </dl>
      {isSoftware(adapter) && (
        <p className="notice notice-info">This is a software (CPU) adapter: every kernel runs correctly, but training is slow.</p>
      )}
      <Features features={adapter.features} />
      <h3>Key limits</h3>
      <table className="limits">
        <tbody>
          {Object.entries(limits).map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{formatLimit(k, v)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function AdapterPanel() {
  const adapter = useLab((s) => s.device.adapter);
  const lost = useLab((s) => s.device.deviceLost !== null);
  return (
    <Panel title="GPU adapter" intro="The engine runs in Web Workers: the page's own holds a WebGPU device for the whole session, and each training run gets a worker and a device of its own on this adapter.">
      <div data-testid="adapter-info" data-status={adapter.status} aria-live="polite">
        {(adapter.status === 'idle' || adapter.status === 'detecting') && <p className="muted">Looking for a WebGPU adapter…</p>}
        {adapter.status === 'ready' && <AdapterDetails adapter={adapter.adapter} deviceLimits={adapter.deviceLimits} lost={lost} />}
        {adapter.status === 'unavailable' && <WebGpuHelp reason={adapter.reason} message={adapter.message} />}
        {adapter.status === 'failed' && (
          <div className="notice notice-error" role="alert">
            <h3>The engine could not start</h3>
            <p>
              <code>{adapter.message}</code>
            </p>
          </div>
        )}
      </div>
    </Panel>
  );
}
