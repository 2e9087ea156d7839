// Runs the kernel checks in the worker; rows appear as each check finishes.
import type { SelfTestRow } from '../lab/protocol';
import { selectBusy, selectEngineReady, type LabState } from '../state/store';
import { formatError, formatMs } from './format';
import { useLab } from './LabStore';
import { Panel } from './Panel';
import { OrtCheck } from './OrtCheck';

function statusLine(st: LabState['selfTest']): string {
  const total = st.names.length;
  switch (st.status) {
    case 'idle':
      return 'Not run yet.';
    case 'running':
      return total ? `Running check ${Math.min(st.rows.length + 1, total)} of ${total}…` : 'Starting…';
    case 'failed':
      return 'The self-test could not run.';
    case 'done': {
      const failed = st.summary?.failed ?? 0;
      if (failed > 0) return `${failed} of ${total} ${total === 1 ? 'check' : 'checks'} failed.`;
      return total === 1 ? 'The check passed.' : `All ${total} checks passed.`;
    }
  }
}

function ResultRow({ row }: { row: SelfTestRow }) {
  return (
    <tr data-testid="selftest-result" data-ok={row.ok} className={row.ok ? 'pass' : 'fail'}>
      <th scope="row">
        {row.name}
        {!row.ok && <div className="fail-msg">{row.message}</div>}
      </th>
      <td>
        <span className={`badge ${row.ok ? 'badge-ok' : 'badge-fail'}`}>{row.ok ? 'pass' : 'fail'}</span>
      </td>
      <td className="num" title={row.message}>
        {formatError(row.maxAbs)}
      </td>
      <td className="num">{formatMs(row.ms)}</td>
    </tr>
  );
}

export function SelfTestPanel() {
  const st = useLab((s) => s.selfTest);
  const gpu = useLab(selectEngineReady);
  const canRun = useLab((s) => selectEngineReady(s) && !selectBusy(s));
  const run = useLab((s) => s.runSelfTests);
  return (
    <Panel
      title="Kernel self-test"
      intro="Each check runs one of the lab's WGSL kernels on seeded random data and compares it with a float64 CPU reference."
    >
      <div className="actions">
        <button type="button" data-testid="selftest-run" onClick={() => void run()} disabled={!canRun}>
          {st.status === 'running' ? 'Running…' : 'Run self-test'}
        </button>
        <span className="status" data-testid="selftest-status" aria-live="polite">
          {!gpu && st.status === 'idle' ? 'Needs a working WebGPU device (see the adapter panel): it checks the GPU kernels, which CPU mode does not use.' : statusLine(st)}
        </span>
      </div>
      {st.error && (
        <p className="notice notice-error" role="alert">
          {st.error}
        </p>
      )}
      {st.rows.length > 0 && (
        <table className="results">
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Result</th>
              <th scope="col" className="num">
                Max abs error
              </th>
              <th scope="col" className="num">
                Time
              </th>
            </tr>
          </thead>
          <tbody>
            {st.rows.map((row) => (
              <ResultRow key={row.index} row={row} />
            ))}
          </tbody>
        </table>
      )}
      <OrtCheck />
    </Panel>
  );
}
