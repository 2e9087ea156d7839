// CPU mode's dedicated module worker: the run commands of the lab on the float64 reference
// engine, for browsers without WebGPU. Started by the page only when the user picks CPU mode;
// the page imports only the type `CpuEngineApi` from here.
import * as Comlink from 'comlink';
import { CPU_DEVICE, createCpuRuns } from './cpuEngine';
import { CPU_MODE } from './cpuMode';
import { cachedPolicyLoader } from './policies';
import { fileCheckpointStore } from './checkpoints';
import { opfsFs } from './opfs';
import { runBatchTransferables } from './runBatcher';
import type { LiveKnobs, RunBatch, RunSpec, RunStatus } from './protocol';

// the same origin-private checkpoint folders as the GPU engine: a run id names one run whichever engine ran it
const runs = createCpuRuns({ loadPolicy: cachedPolicyLoader(new URL(import.meta.env.BASE_URL, self.location.origin)), checkpoints: fileCheckpointStore(opfsFs()) });

// A proxied callback returns a promise; if the page side throws, say so here rather than
// leaving an unhandled rejection in the worker.
function notify<T>(cb: (v: T) => unknown, value: T): void {
  Promise.resolve(cb(value)).catch((e: unknown) => console.error('rlvr-lab CPU worker: page callback failed', e));
}

const api = {
  /** Answers once the worker's code has loaded: the page switches to CPU mode only then. */
  hello(): { engine: 'cpu'; policy: string } {
    return { engine: 'cpu', policy: CPU_MODE.policy };
  },
  startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus> {
    return runs.start(CPU_DEVICE, spec, (b) => notify(onBatch, Comlink.transfer(b, runBatchTransferables(b))));
  },
  pauseRun(runId: string): void {
    runs.pause(runId);
  },
  resumeRun(runId: string): void {
    runs.resume(runId);
  },
  stepRun(runId: string): void {
    runs.step(runId);
  },
  stopRun(runId: string): void {
    runs.stop(runId);
  },
  setRunKnobs(runId: string, knobs: Partial<LiveKnobs>): void {
    runs.setKnobs(runId, knobs);
  },
};

export type CpuEngineApi = typeof api;

Comlink.expose(api);
