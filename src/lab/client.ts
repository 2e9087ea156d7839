// The page's handle on an engine worker (the page's main one, or a run's own: lab/runWorkers.ts).
// Only the *type* of the worker API is imported, so the engine's code stays in the worker bundle.
// A worker that fails to load, crashes or is closed rejects every pending and later call with the
// reason instead of leaving them hanging.
import * as Comlink from 'comlink';
import type { EngineApi } from './engine.worker';
import type { AdapterReport, LabClient } from './protocol';

export interface WorkerLabClient extends LabClient {
  terminate(): void;
}

export function createLabClient(): WorkerLabClient {
  const worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'rlvr-lab-engine' });
  const remote = Comlink.wrap<EngineApi>(worker);
  let closed: (e: Error) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    closed = reject;
    worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      reject(new Error(`the engine worker failed: ${ev.message || 'it could not be loaded'}`));
    });
  });
  // the crash promise only matters through `call`; keep it from being reported as unhandled
  crashed.catch(() => undefined);
  const call = <T>(p: Promise<T>): Promise<T> => Promise.race([p, crashed]);

  return {
    init: (onEvent) => call<AdapterReport>(remote.init(Comlink.proxy(onEvent))),
    selfTestNames: () => call(remote.selfTestNames()),
    runSelfTests: (onResult) => call(remote.runSelfTests(Comlink.proxy(onResult))),
    startDemo: (runId, opts, onBatch) => call(remote.startDemo(runId, opts, Comlink.proxy(onBatch))),
    stopDemo: () => call(remote.stopDemo()),
    startRun: (spec, onBatch) => call(remote.startRun(spec, Comlink.proxy(onBatch))),
    pauseRun: (runId) => call(remote.pauseRun(runId)),
    resumeRun: (runId) => call(remote.resumeRun(runId)),
    stepRun: (runId) => call(remote.stepRun(runId)),
    stopRun: (runId) => call(remote.stopRun(runId)),
    setRunKnobs: (runId, knobs) => call(remote.setRunKnobs(runId, knobs)),
    registerPolicy: (name, safetensors, configJson) => call(remote.registerPolicy(name, safetensors, configJson)),
    debugLoseDevice: () => call(remote.debugLoseDevice()),
    reconnect: () => call<AdapterReport>(remote.reconnect()),
    listCheckpoints: () => call(remote.listCheckpoints()),
    deleteCheckpoints: (runIds) => call(remote.deleteCheckpoints(runIds)),
    exportCheckpoint: (runId, format) => call(remote.exportCheckpoint(runId, format)),
    terminate: () => {
      closed(new Error('the engine worker was closed'));
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
