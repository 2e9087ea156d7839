// Why a run stopped computing on its own: a step the optimiser rejected (non-finite gradients),
// a step metric that is not finite, or the loss of the GPU device. The worker pauses the run on
// the step's boundary, so nothing after the bad step runs until the user decides.
import type { RunHalt } from './protocol';

/** The halt a step's metrics call for, or null when the step is sound. */
export function stepHalt(step: number, metrics: Readonly<Record<string, number>>): RunHalt | null {
  const rejected = metrics.rejected_steps;
  if (rejected > 0) {
    return {
      step, kind: 'rejected',
      message: `Step ${step}: the optimiser rejected ${rejected === 1 ? 'its update' : `${rejected} updates`} (non-finite gradients), so the weights were left unchanged. The run is paused; resume to carry on, or stop it.`,
    };
  }
  const bad = Object.entries(metrics).filter(([, v]) => !Number.isFinite(v));
  if (bad.length === 0) return null;
  return {
    step, kind: 'nonfinite',
    message: `Step ${step}: ${bad.map(([k, v]) => `${k} = ${v}`).join(', ')} is not finite. The run is paused; resume to carry on, or stop it.`,
  };
}

/** The halt of a run whose GPU device was lost after `step` completed steps. */
export function deviceLostHalt(step: number, reason: string, message: string): RunHalt {
  return {
    step, kind: 'device-lost',
    message: `The GPU device was lost (${reason}${message ? `: ${message}` : ''}) after step ${step}. Steps 1–${step} are kept; this device cannot continue the run. Reload the page to get a new device.`,
  };
}
