// A headless run has nobody to press Resume: a run that halts itself (a rejected or non-finite
// step, a failed checkpoint save) says why on stderr and stops, keeping its last checkpoint.
import type { RunManager } from '../lab/runs';
import type { RunBatch } from '../lab/protocol';

/** The batches' callback for RunManager.start that stops the run at its first halt. */
export function stopOnHalt(runs: Pick<RunManager<never>, 'stopRun'>, runId: string): (b: RunBatch) => void {
  let told = 0;
  return (b) => {
    const halts = b.status.halts ?? [];
    for (const h of halts.slice(told)) process.stderr.write(`halted: ${h.message}\n`);
    if (halts.length > told && (b.status.state === 'paused' || b.status.state === 'pausing')) runs.stopRun(runId);
    told = halts.length;
  };
}
