// The page's one LabClient, with CPU mode: every command goes to the GPU engine until the user
// switches to CPU mode; from then on each new run starts in a CPU worker of its own (closed when
// the run ends). Commands for a run go to the worker that runs it, whichever mode is current.
import type { LabClient, RunClient } from './protocol';
import type { CpuRunClient } from './cpuClient';
import { RunWorkerPool } from './runWorkers';
import { routeRunCommands } from './runCommands';

/** How the store turns CPU mode on (see state/engineSlice.ts). */
export interface CpuModeSwitch {
  /** Starts CPU mode's worker; resolves once it answers, rejects with why it could not start. */
  start(): Promise<void>;
}

export function withCpuMode(gpu: LabClient, createCpu: () => CpuRunClient): { client: LabClient; cpuMode: CpuModeSwitch } {
  let on = false;
  let starting: Promise<void> | null = null;
  // the worker that showed CPU mode works, kept for the first CPU run
  let spare: CpuRunClient | null = null;
  const cpu = new RunWorkerPool<CpuRunClient>(
    () => {
      const c = spare ?? createCpu();
      spare = null;
      return c;
    },
    (c) => c.ready(),
  );
  const cpuRuns: RunClient = { startRun: (spec, onBatch) => cpu.startRun(spec, onBatch), ...cpu.commands };
  const owners = new Map<string, RunClient>();
  const owner = (runId: string): RunClient => owners.get(runId) ?? (on ? cpuRuns : gpu);
  const client: LabClient = {
    // everything but runs (adapter, self-test, demo, checkpoints) stays with the GPU engine
    ...gpu,
    async startRun(spec, onBatch) {
      const to = on ? cpuRuns : gpu;
      owners.set(spec.runId, to);
      try {
        return await to.startRun(spec, onBatch);
      } finally {
        owners.delete(spec.runId);
      }
    },
    ...routeRunCommands(owner),
    async deleteCheckpoints(runIds) {
      cpu.refuseActive(runIds);
      return gpu.deleteCheckpoints(runIds);
    },
  };
  const cpuMode: CpuModeSwitch = {
    start() {
      starting ??= (async () => {
        const c = createCpu();
        try {
          await c.ready();
          spare = c;
          on = true;
        } catch (e) {
          c.terminate();
          starting = null;
          throw e;
        }
      })();
      return starting;
    },
  };
  return { client, cpuMode };
}
