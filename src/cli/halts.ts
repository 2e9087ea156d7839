// A headless run has nobody to press Resume: a run that halts itself (a rejected or non-finite
// step, a failed checkpoint save) says why on stderr and stops, keeping its last checkpoint.
import type { RunManager } from '../lab/worker/runs';
import type { RunBatch, RunStatus } from '../lab/protocol';

/** A headless run that halted itself: its checkpoint is kept; the command exits with code 3. */
export class RunHaltedError extends Error {
  override name = 'RunHaltedError';
}

/** The first halt of a run's final status, as one line, or null when it did not halt. */
export function haltOf(status: RunStatus): string | null {
  const h = status.halts?.[0];
  return h ? `the run halted at step ${h.step}: ${h.message}` : null;
}

/**
 * The batches' callback for RunManager.start that stops the run at its first halt. It says
 * nothing itself: the command's last line (haltOf) says why, once.
 */
export function stopOnHalt(runs: Pick<RunManager<never>, 'stopRun'>, runId: string): (b: RunBatch) => void {
  let seen = 0;
  return (b) => {
    const halts = b.status.halts ?? [];
    if (halts.length > seen && (b.status.state === 'paused' || b.status.state === 'pausing')) runs.stopRun(runId);
    seen = halts.length;
  };
}
