// The self-test panel's independent check: the current policy run by onnxruntime-web beside the
// lab's kernels (src/selftest/ortcheck.ts). The verdict is the first thing said; the largest
// logit difference and the tolerance it is held to follow.
import type { OrtCheckResult } from '../lab/protocol';
import { selectBusy, selectEngineReady } from '../state/store';
import { selectCurrentPolicy } from '../state/selfTestSlice';
import { formatError, formatMs } from './format';
import { useLab } from './LabStore';

function verdict(r: OrtCheckResult): string {
  const tol = `|Δ| ≤ ${r.tolerance.atol} + ${r.tolerance.rtol}·|logit|`;
  if (r.ok) return `Agrees: every logit within ${tol} and every greedy token the same${r.nearTies ? ` (or a near tie, ${r.nearTies})` : ''}.`;
  const parts: string[] = [];
  if (!r.logitsOk) parts.push(`logits differ beyond ${tol}`);
  if (!r.tokensOk) parts.push(`${r.tokensCompared - r.tokensAgree - r.nearTies} greedy tokens differ`);
  return `Disagrees: ${parts.join(' and ')}. The lab's kernels compute something else on this GPU.`;
}

function Result({ r }: { r: OrtCheckResult }) {
  return (
    <div data-testid="ortcheck-result" data-ok={r.ok} data-backend={r.backend} data-max-abs={r.maxAbs}>
      <p className={`notice ${r.ok ? '' : 'notice-error'}`} data-testid="ortcheck-verdict">
        <span className={`badge ${r.ok ? 'badge-ok' : 'badge-fail'}`}>{r.ok ? 'pass' : 'fail'}</span> {verdict(r)}
      </p>
      <table className="results">
        <tbody>
          <tr><th scope="row">Policy, sequences</th><td>{r.policy}: {r.rows} held-out prompts of {r.promptLen} tokens, {r.newTokens} greedy tokens each</td></tr>
          <tr><th scope="row">onnxruntime-web backend</th><td>{r.backend}{r.fallback && ` (WebGPU did not run: ${r.fallback})`}</td></tr>
          <tr><th scope="row">Largest logit difference</th><td className="num" data-testid="ortcheck-max-abs" title={r.message}>{formatError(r.maxAbs)} (relative {formatError(r.maxRel)})</td></tr>
          <tr><th scope="row">Greedy tokens equal</th><td className="num">{r.tokensAgree} of {r.tokensCompared}{r.nearTies ? `, ${r.nearTies} near ties` : ''}</td></tr>
          <tr><th scope="row">Time</th><td className="num">{formatMs(r.ms)}</td></tr>
        </tbody>
      </table>
    </div>
  );
}

export function OrtCheck() {
  const oc = useLab((s) => s.ortCheck);
  const policy = useLab(selectCurrentPolicy);
  const canRun = useLab((s) => selectEngineReady(s) && !selectBusy(s) && selectCurrentPolicy(s) !== null);
  const run = useLab((s) => s.runOrtCheck);
  return (
    <section className="ortcheck" aria-label="Independent check with onnxruntime-web">
      <h3>Independent check: onnxruntime-web</h3>
      <p className="intro">
        Exports the launcher's base policy{policy ? ` (${policy})` : ''} to ONNX and runs it with onnxruntime-web (its WebGPU backend where it starts, else wasm), a
        runtime the lab did not write, on the same greedy sequences as the lab's kernels; compares every logit and each greedy token. Loads onnxruntime-web (a few MB) only when run.
      </p>
      <div className="actions">
        <button type="button" data-testid="ortcheck-run" onClick={() => void run()} disabled={!canRun}>
          {oc.status === 'running' ? 'Checking…' : 'Check with onnxruntime-web'}
        </button>
        <span className="status" data-testid="ortcheck-status" data-status={oc.status} aria-live="polite">
          {oc.status === 'running' ? `Running ${oc.policy} on onnxruntime-web and on the lab's kernels…` : oc.status === 'idle' ? 'Not run yet.' : ''}
        </span>
      </div>
      {oc.error && (
        <p className="notice notice-error" role="alert" data-testid="ortcheck-error">
          {oc.error}
        </p>
      )}
      {oc.result && <Result r={oc.result} />}
    </section>
  );
}
