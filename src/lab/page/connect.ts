// The page's connections to its workers, typed by the protocol alone: no worker code is imported,
// so the engine stays in the worker bundles. A worker that fails to load, crashes or is closed
// rejects every pending and later call with the reason (src/lab/bridge.ts).
import { connect, type Connected } from '../bridge';
import type { MainApi } from '../protocol/main';
import { RUN_WORKER_NAME, type CpuRunWorkerApi, type GpuRunWorkerApi } from '../protocol/run';

const gpuWorker = (name: string) => new Worker(new URL('../worker/gpu.worker.ts', import.meta.url), { type: 'module', name });

/** The page's main worker: adapter panel, self-test, demo, uploaded policies, checkpoints. */
export function connectMainWorker(): Connected<MainApi> {
  return connect<MainApi>(gpuWorker('rlvr-lab-main'), 'main worker');
}

/** A GPU run's own worker, with a device of its own. */
export function connectGpuRunWorker(): Connected<GpuRunWorkerApi> {
  return connect<GpuRunWorkerApi>(gpuWorker(RUN_WORKER_NAME), 'run worker');
}

/** A CPU mode run's worker, on the float64 engine. */
export function connectCpuRunWorker(): Connected<CpuRunWorkerApi> {
  return connect<CpuRunWorkerApi>(new Worker(new URL('../worker/cpu.worker.ts', import.meta.url), { type: 'module', name: 'rlvr-lab-cpu' }), 'CPU mode worker');
}
