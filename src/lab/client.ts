// The page's handle on an engine worker (the page's main one, or a run's own: lab/runWorkers.ts).
// Only the *type* of the worker API is imported, so the engine's code stays in the worker bundle.
// A worker that fails to load, crashes or is closed rejects every pending and later call with the
// reason instead of leaving them hanging (src/lab/workerCall.ts).
import * as Comlink from 'comlink';
import type { EngineApi } from './engine.worker';
import type { AdapterReport, LabClient } from './protocol';
import { runCalls, wrapWorker } from './workerCall';

export interface WorkerLabClient extends LabClient {
  terminate(): void;
}

export function createLabClient(): WorkerLabClient {
  const worker = wrapWorker<EngineApi>(new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'rlvr-lab-engine' }), 'engine worker');
  const { remote, call } = worker;

  return {
    init: (onEvent) => call<AdapterReport>(remote.init(Comlink.proxy(onEvent))),
    selfTestNames: () => call(remote.selfTestNames()),
    runSelfTests: (onResult) => call(remote.runSelfTests(Comlink.proxy(onResult))),
    runOrtCheck: (policy) => call(remote.runOrtCheck(policy)),
    startDemo: (runId, opts, onBatch) => call(remote.startDemo(runId, opts, Comlink.proxy(onBatch))),
    stopDemo: () => call(remote.stopDemo()),
    ...runCalls(worker),
    registerPolicy: (name, safetensors, configJson) => call(remote.registerPolicy(name, safetensors, configJson)),
    debugLoseDevice: () => call(remote.debugLoseDevice()),
    reconnect: () => call<AdapterReport>(remote.reconnect()),
    listCheckpoints: () => call(remote.listCheckpoints()),
    deleteCheckpoints: (runIds) => call(remote.deleteCheckpoints(runIds)),
    exportCheckpoint: (runId, format) => call(remote.exportCheckpoint(runId, format)),
    crossPlay: (runId, opts, onProgress) => call(remote.crossPlay(runId, opts, Comlink.proxy(onProgress))),
    terminate: worker.terminate,
  };
}
