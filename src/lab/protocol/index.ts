// Types that cross the worker boundary, split by who answers them: the main worker (main.ts) and
// a run worker (run.ts). Both sides import them; nothing here runs code.
import type { MainApi } from './main';
import type { RunApi } from './run';

export * from './main';
export * from './run';

/**
 * What the page needs from the engine, the store's one contract: the main worker's API and the
 * run API (src/lab/page/lab.ts sends runs to workers of their own).
 */
export interface LabClient extends MainApi, RunApi {
  /** Debug command: destroys a GPU device: that of the run's own worker, or without a run that of the main worker. */
  debugLoseDevice(runId?: string): Promise<void>;
}
