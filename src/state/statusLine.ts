// The run status line's words, free of React: what a computing run is doing now (never blank
// while it computes, never the step the line already names) and whether an ETA means anything
// (not while paused: nothing is counting down).
import type { RunState, RunStatus } from '../lab/protocol';

/** What a computing run is doing now, in words; `done` is the step the status line names. */
export function phaseText(p: NonNullable<RunStatus['phase']>, done: number): string {
  if (p.kind === 'evaluating') {
    const progress = p.progress ? `: ${p.progress.done} of ${p.progress.total} samples` : '';
    return `${p.step === 0 ? 'evaluating the start' : `evaluating after step ${p.step}`} (${p.detail})${progress}`;
  }
  if (p.kind === 'saving') return `saving step ${p.step}`;
  // the line already says "step N of T": name the step only when it is the next one
  return p.step > done ? `step ${p.step}: sampling and updating` : 'sampling and updating';
}

/** The phase line of a run this page computes: its phase, or what happens before the first one. */
export function phaseLine(status: Pick<RunStatus, 'state' | 'step' | 'phase'>): string {
  if (status.phase) return phaseText(status.phase, status.step);
  if (status.state === 'starting') return 'starting: loading the base policy and preparing the GPU kernels';
  if (status.state === 'paused') return 'paused between steps';
  return 'between steps';
}

/** An ETA is shown while the run counts down: not once finished, nor while paused. */
export function showsEta(state: RunState, etaS: number | null): boolean {
  return etaS !== null && (state === 'running' || state === 'starting' || state === 'pausing' || state === 'stopping');
}
