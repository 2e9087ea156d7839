// The page's one LabClient, with CPU mode: every command goes to the GPU engine worker until the
// user switches to CPU mode; from then on new runs start in CPU mode's worker. Commands for a run
// go to the worker that runs it, whichever mode is current.
import type { LabClient, RunClient } from './protocol';
import type { CpuRunClient } from './cpuClient';

/** How the store turns CPU mode on (see state/engineSlice.ts). */
export interface CpuModeSwitch {
  /** Starts CPU mode's worker; resolves once it answers, rejects with why it could not start. */
  start(): Promise<void>;
}

export function withCpuMode(gpu: LabClient, createCpu: () => CpuRunClient): { client: LabClient; cpuMode: CpuModeSwitch } {
  let cpu: CpuRunClient | null = null;
  let starting: Promise<void> | null = null;
  const owners = new Map<string, RunClient>();
  const owner = (runId: string): RunClient => owners.get(runId) ?? cpu ?? gpu;
  const client: LabClient = {
    // everything but runs (adapter, self-test, demo, checkpoints) stays with the GPU engine
    ...gpu,
    async startRun(spec, onBatch) {
      const to = cpu ?? gpu;
      owners.set(spec.runId, to);
      try {
        return await to.startRun(spec, onBatch);
      } finally {
        owners.delete(spec.runId);
      }
    },
    pauseRun: (runId) => owner(runId).pauseRun(runId),
    resumeRun: (runId) => owner(runId).resumeRun(runId),
    stepRun: (runId) => owner(runId).stepRun(runId),
    stopRun: (runId) => owner(runId).stopRun(runId),
    setRunKnobs: (runId, knobs) => owner(runId).setRunKnobs(runId, knobs),
  };
  const cpuMode: CpuModeSwitch = {
    start() {
      starting ??= (async () => {
        const c = createCpu();
        try {
          await c.ready();
          cpu = c;
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
