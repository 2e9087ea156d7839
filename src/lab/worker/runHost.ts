// A run worker's host: the run API (protocol/run.ts) over one RunManager on one device. GPU run
// workers (gpu.worker.ts opened for a run) hold a device of their own, so its loss halts their
// run alone; CPU mode's workers (cpu.worker.ts) run on the float64 engine. Free of Comlink.
import type { Gpu } from '../../gpu/runtime';
import { routeRunCommands, type Served } from '../bridge';
import type { AdapterReport, DeviceEvent } from '../protocol/main';
import type { CpuRunWorkerApi, GpuRunWorkerApi, RunApi } from '../protocol/run';
import { CPU_MODE } from '../protocol/cpuMode';
import { RunManager, type RunDeps, type RunDevice } from './runs';
import { CPU_DEVICE, createCpuRuns } from './cpuRuns';
import { DeviceSlot, type GpuProvider } from './device';

/** The run API of `runs`, each run started on `device()`; the commands are the run manager's own. */
export function runApiOf<D extends RunDevice>(runs: RunManager<D>, device: () => D): Served<RunApi> {
  return {
    startRun: (spec, onBatch) => runs.start(device(), spec, onBatch),
    ...routeRunCommands(() => runs),
  };
}

export interface GpuRunHostDeps {
  gpu: GpuProvider;
  runs: RunDeps<Gpu>;
  /** checks an uploaded policy and offers it to the run (throws with the problem) */
  registerPolicy(name: string, safetensors: Uint8Array, configJson: string): void;
}

/** A GPU run worker: its own device (lost: its runs end, see runs.ts deviceLost) and the run API on it. */
export function gpuRunHost(deps: GpuRunHostDeps): Served<GpuRunWorkerApi> {
  const runs = new RunManager<Gpu>(deps.runs);
  const device = new DeviceSlot(deps.gpu, (reason, message) => runs.deviceLost(reason, message));
  return {
    init: (onEvent: (e: DeviceEvent) => void): Promise<AdapterReport> => device.init(onEvent),
    registerPolicy: deps.registerPolicy,
    debugLoseDevice: () => device.lose(),
    ...runApiOf(runs, () => device.require()),
  };
}

/** A CPU mode run worker: the run API on the float64 engine with CPU mode's policy. */
export function cpuRunHost(deps: Parameters<typeof createCpuRuns>[0]): Served<CpuRunWorkerApi> {
  return {
    hello: () => ({ engine: 'cpu', policy: CPU_MODE.policy }),
    ...runApiOf(createCpuRuns(deps), () => CPU_DEVICE),
  };
}
