// The page's handle on one of CPU mode's workers (src/lab/cpu.worker.ts; one per run once the user
// picks CPU mode). Only the worker API's type is imported. A worker that fails to load, crashes or
// is closed rejects every pending and later call with the reason instead of leaving them hanging
// (src/lab/workerCall.ts).
import type { CpuEngineApi } from './cpu.worker';
import type { RunClient } from './protocol';
import { runCalls, wrapWorker } from './workerCall';

export interface CpuRunClient extends RunClient {
  /** Resolves once the worker runs (its code loaded); rejects with why it could not start. */
  ready(): Promise<void>;
  terminate(): void;
}

export function createCpuRunClient(): CpuRunClient {
  const worker = wrapWorker<CpuEngineApi>(new Worker(new URL('./cpu.worker.ts', import.meta.url), { type: 'module', name: 'rlvr-lab-cpu' }), 'CPU engine worker');
  return {
    ready: async () => {
      await worker.call(worker.remote.hello());
    },
    ...runCalls(worker),
    terminate: worker.terminate,
  };
}
