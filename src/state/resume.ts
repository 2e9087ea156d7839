// Which runs can start again from their latest checkpoint: one interrupted by a reload (the page
// closed while it computed) and one halted by a lost GPU, up to three losses; after that the run
// is left for export. The worker reports only the halts of its own start, so the page keeps the
// earlier ones and shows them together.
import type { RunHalt, RunStatus } from '../lab/protocol';

export const INTERRUPTED = 'interrupted: the page was closed or reloaded while this run was computing';

/** Device losses after which a run is not offered again: the GPU is not holding up. */
export const MAX_DEVICE_LOSSES = 3;

type HasStatus = { status: RunStatus };

export function isInterrupted(run: HasStatus): boolean {
  return run.status.state === 'stopped' && run.status.error === INTERRUPTED;
}

export function deviceLosses(run: HasStatus): number {
  return (run.status.halts ?? []).filter((h) => h.kind === 'device-lost').length;
}

/** The run ended because the GPU was lost (its last halt says so). */
export function haltedByDeviceLoss(run: HasStatus): boolean {
  const h = run.status.halts?.[run.status.halts.length - 1];
  return run.status.state === 'failed' && h?.kind === 'device-lost';
}

/** True when the run may resume from its checkpoint (the engine must also be ready). */
export function canRestore(run: HasStatus): boolean {
  return isInterrupted(run) || (haltedByDeviceLoss(run) && deviceLosses(run) < MAX_DEVICE_LOSSES);
}

/** The worker's status with the halts from before the run's last resume in front. */
export function withPriorHalts(prior: readonly RunHalt[] | undefined, s: RunStatus): RunStatus {
  if (!prior?.length) return s;
  return { ...s, halts: [...prior, ...(s.halts ?? [])] };
}
