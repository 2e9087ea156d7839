// Why a run stopped computing on its own: a step the optimiser rejected (non-finite gradients),
// a step metric that is not finite, the loss of the GPU device, or a checkpoint that could not be
// saved. The worker pauses the run on the step's boundary, so nothing after it runs until the
// user decides.
import type { RunHalt } from '../protocol';

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
    message: `The GPU device was lost (${reason}${message ? `: ${message}` : ''}) after step ${step}. Steps 1–${step} are kept; this device cannot continue the run. Resume it to continue from its last checkpoint on a new device.`,
  };
}

const kept = (saved: number | null) =>
  saved === null ? 'The run has no earlier checkpoint.' : `The checkpoint of step ${saved} is intact.`;

/** The checkpoint of `step` did not fit in the browser's storage; `saved` is the last one kept. */
export function storageFullHalt(step: number, saved: number | null): RunHalt {
  return {
    step, kind: 'storage-full',
    message: `Step ${step}: the checkpoint could not be saved because the browser's storage is full. ${kept(saved)} The run is paused: delete the checkpoints of finished runs you no longer need (or export them first), then resume to save it again.`,
  };
}

/** Saving the checkpoint of `step` failed for another reason (named in `message`). */
export function checkpointFailedHalt(step: number, saved: number | null, message: string): RunHalt {
  return {
    step, kind: 'checkpoint-failed',
    message: `Step ${step}: the checkpoint could not be saved (${message}). ${kept(saved)} The run is paused; resume to try saving it again, or stop the run.`,
  };
}
