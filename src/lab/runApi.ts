// The run commands of a worker's API, shared by the engine's worker (src/lab/engine.worker.ts,
// on the Engine) and CPU mode's (src/lab/cpu.worker.ts, on its RunManager). Worker side only: the
// page imports just the type `RunApi` (src/lab/workerCall.ts).
import * as Comlink from 'comlink';
import { runBatchTransferables } from './runBatcher';
import type { RunBatch, RunSpec, RunStatus } from './protocol';
import { routeRunCommands, type RunCommandTarget } from './runCommands';

/** What answers the run commands inside a worker: the run manager (or the Engine over it). */
export interface RunCommandsInWorker extends RunCommandTarget {
  startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus>;
}

/** Calls a page callback (a Comlink proxy). */
export type Notify = <T>(cb: (v: T) => unknown, value: T) => void;

/**
 * A proxied callback returns a promise; if the page side throws, `notify` says so in the worker's
 * console (prefixed with `label`) rather than leaving an unhandled rejection in the worker.
 */
export function pageNotifier(label: string): Notify {
  return (cb, value) => {
    Promise.resolve(cb(value)).catch((e: unknown) => console.error(`${label}: page callback failed`, e));
  };
}

/** The run part of a worker's API: run batches stream to the page with their buffers transferred. */
export function runApi(target: RunCommandsInWorker, notify: Notify) {
  return {
    startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus> {
      return target.startRun(spec, (b) => notify(onBatch, Comlink.transfer(b, runBatchTransferables(b))));
    },
    ...routeRunCommands(() => target),
  };
}

export type RunApi = ReturnType<typeof runApi>;
