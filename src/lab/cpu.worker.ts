// CPU mode's dedicated module worker: the run commands of the lab on the float64 reference
// engine, for browsers without WebGPU. Started by the page only when the user picks CPU mode;
// the page imports only the type `CpuEngineApi` from here.
import * as Comlink from 'comlink';
import { CPU_DEVICE, createCpuRuns } from './cpuRuns';
import { CPU_MODE } from './cpuMode';
import { cachedPolicyLoader } from './policies';
import { fileCheckpointStore } from './checkpoints';
import { opfsFs } from './opfs';
import { pageNotifier, runApi } from './runApi';
import { routeRunCommands } from './runCommands';

// the same origin-private checkpoint folders as the GPU engine: a run id names one run whichever engine ran it
const runs = createCpuRuns({ loadPolicy: cachedPolicyLoader(new URL(import.meta.env.BASE_URL, self.location.origin)), checkpoints: fileCheckpointStore(opfsFs()) });

const api = {
  /** Answers once the worker's code has loaded: the page switches to CPU mode only then. */
  hello(): { engine: 'cpu'; policy: string } {
    return { engine: 'cpu', policy: CPU_MODE.policy };
  },
  ...runApi(
    // the run manager answers the run commands itself; runs start on the CPU
    { startRun: (spec, onBatch) => runs.start(CPU_DEVICE, spec, onBatch), ...routeRunCommands(() => runs) },
    pageNotifier('rlvr-lab CPU worker'),
  ),
};

export type CpuEngineApi = typeof api;

Comlink.expose(api);
