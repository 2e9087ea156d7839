// CPU mode at the top of the page. Without a GPU engine the page says why and offers CPU mode;
// once on, a banner that stays in view says what every run now computes on.
import { CPU_MODE } from '../lab/protocol/cpuMode';
import { selectCpuModeOffered } from '../state/cpuModeSlice';
import type { AdapterState } from '../state/deviceSlice';
import { useLab } from './LabStore';
import { HEADLINES } from './WebGpuHelp';

function why(adapter: AdapterState): string {
  if (adapter.status === 'unavailable') return HEADLINES[adapter.reason];
  if (adapter.status === 'failed') return 'The GPU engine could not start';
  return 'No GPU engine';
}

function Offer() {
  const adapter = useLab((s) => s.device.adapter);
  const { status, error } = useLab((s) => s.cpuMode);
  const enter = useLab((s) => s.enterCpuMode);
  return (
    <div className="notice notice-warn cpu-offer" data-testid="cpu-mode-offer">
      <h3>{why(adapter)}</h3>
      <p>
        The lab trains on your GPU through WebGPU; what to check is under “Your GPU and the engine” below. You can still train here: CPU
        mode runs GRPO on the <code>{CPU_MODE.policy}</code> policy with the lab's float64 reference engine, each run in a worker of its own. Same
        loop, metrics and charts; many times slower than a GPU.
      </p>
      <div className="actions">
        <button type="button" data-testid="cpu-mode" disabled={status === 'starting'} onClick={() => void enter()}>
          {status === 'starting' ? 'Starting CPU mode…' : 'Use CPU mode'}
        </button>
      </div>
      {status === 'failed' && error && (
        <p className="cfg-error" role="alert" data-testid="cpu-mode-error">
          CPU mode could not start: {error}
        </p>
      )}
    </div>
  );
}

function Banner() {
  const adapter = useLab((s) => s.device.adapter);
  return (
    <div className="cpu-banner" role="status" data-testid="cpu-mode-banner">
      <strong>{CPU_MODE.label}</strong>
      <span>
        {why(adapter)}: runs train the {CPU_MODE.policy} policy on the CPU, exactly but slowly. The kernel self-test and the demo need
        WebGPU.
      </span>
    </div>
  );
}

export function CpuMode() {
  const on = useLab((s) => s.cpuMode.status === 'on');
  const offered = useLab(selectCpuModeOffered);
  if (on) return <Banner />;
  return offered ? <Offer /> : null;
}
