// The commands that address a running run by its id, declared once: every layer between the page
// and a run's RunManager (the worker's API, the page's wrappers of a worker, the pool of per-run
// workers, CPU mode's switch) forwards them with `routeRunCommands`, naming only where a run's
// commands go. startRun, which opens a run and streams its batches, is forwarded by hand.
import type { LiveKnobs } from '../loops/driver';

export interface RunCommands {
  /** Pause takes effect at the next step boundary (after the step's samples and evaluation). */
  pauseRun(runId: string): Promise<void>;
  resumeRun(runId: string): Promise<void>;
  /** On a paused run: exactly one more RL step, then paused again. */
  stepRun(runId: string): Promise<void>;
  stopRun(runId: string): Promise<void>;
  /**
   * Queues knob values for the run's next step (they merge with values queued before and not yet
   * taken); resolves with the step that will take them.
   */
  setRunKnobs(runId: string, knobs: Partial<LiveKnobs>): Promise<number>;
}

export type RunCommandName = keyof RunCommands;

export const RUN_COMMANDS: readonly RunCommandName[] = ['pauseRun', 'resumeRun', 'stepRun', 'stopRun', 'setRunKnobs'];

/** What answers a run's commands: a client, a run manager, or a worker's remote (values or promises). */
export type RunCommandTarget = { [K in RunCommandName]: (...args: Parameters<RunCommands[K]>) => unknown };

/**
 * The run commands, each sent to `route(runId)` (which may wait, e.g. for the run's worker to
 * open); `guard` runs first for the commands it names (a refusal throws from there).
 */
export function routeRunCommands(route: (runId: string) => RunCommandTarget | Promise<RunCommandTarget>, guard: Partial<Record<RunCommandName, () => void>> = {}): RunCommands {
  const forward = (name: RunCommandName) => async (runId: string, ...rest: unknown[]): Promise<unknown> => {
    guard[name]?.();
    const target = await route(runId);
    return (target[name] as (runId: string, ...rest: unknown[]) => unknown)(runId, ...rest);
  };
  return Object.fromEntries(RUN_COMMANDS.map((name) => [name, forward(name)])) as unknown as RunCommands;
}
