// The page's handle on one of CPU mode's workers (src/lab/cpu.worker.ts; one per run once the user
// picks CPU mode). Only the worker API's type is imported. A worker that fails to load, crashes or
// is closed rejects every pending and later call with the reason instead of leaving them hanging.
import * as Comlink from 'comlink';
import type { CpuEngineApi } from './cpu.worker';
import type { RunClient } from './protocol';

export interface CpuRunClient extends RunClient {
  /** Resolves once the worker runs (its code loaded); rejects with why it could not start. */
  ready(): Promise<void>;
  terminate(): void;
}

export function createCpuRunClient(): CpuRunClient {
  const worker = new Worker(new URL('./cpu.worker.ts', import.meta.url), { type: 'module', name: 'rlvr-lab-cpu' });
  const remote = Comlink.wrap<CpuEngineApi>(worker);
  let closed: (e: Error) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    closed = reject;
    worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      reject(new Error(`the CPU engine worker failed: ${ev.message || 'it could not be loaded'}`));
    });
  });
  crashed.catch(() => undefined);
  const call = <T>(p: Promise<T>): Promise<T> => Promise.race([p, crashed]);
  return {
    ready: async () => {
      await call(remote.hello());
    },
    startRun: (spec, onBatch) => call(remote.startRun(spec, Comlink.proxy(onBatch))),
    pauseRun: (runId) => call(remote.pauseRun(runId)),
    resumeRun: (runId) => call(remote.resumeRun(runId)),
    stepRun: (runId) => call(remote.stepRun(runId)),
    stopRun: (runId) => call(remote.stopRun(runId)),
    setRunKnobs: (runId, knobs) => call(remote.setRunKnobs(runId, knobs)),
    terminate: () => {
      closed(new Error('the CPU engine worker was closed'));
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
