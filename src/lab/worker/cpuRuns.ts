// CPU mode's runs, free of Comlink like the hosts: the lab's RunManager (pause, single step,
// knobs and stop at step boundaries) driving the registry's loops on the float64 engine
// (src/engines/cpu/engine.ts) with the tiny policy only. runHost.ts serves it to the page.
import { createCpuEngine } from '../../engines/cpu/engine';
import { CPU_MODE } from '../protocol/cpuMode';
import { RunManager, type BasePolicy, type RunDeps, type RunDevice } from './runs';

/** The CPU as a run device: it cannot be lost. */
export const CPU_DEVICE: RunDevice = Object.freeze({ isLost: false });

/** Loads base policies for CPU mode: the one it is sized for, any other refused with what to do. */
export function cpuPolicyLoader(load: (name: string) => Promise<BasePolicy>): (name: string) => Promise<BasePolicy> {
  return async (name) => {
    if (name !== CPU_MODE.policy) {
      throw new Error(`CPU mode trains only the "${CPU_MODE.policy}" policy; "${name}" needs WebGPU. Pick ${CPU_MODE.policy} as the base policy.`);
    }
    return load(name);
  };
}

/**
 * The run manager of CPU mode. With a checkpoint store its runs resume after a reload like GPU
 * runs; checkpoints hold float32 parameters, so a resumed CPU run (float64 inside) continues
 * from the rounded values rather than bit-identically.
 */
export function createCpuRuns(deps: Omit<RunDeps<RunDevice>, 'createEngine' | 'checkLoop'>): RunManager<RunDevice> {
  return new RunManager<RunDevice>({
    ...deps,
    createEngine: async (_cpu, init, settings) => createCpuEngine(init, settings),
    checkLoop: (def) => {
      if (!def.spec.cpuMode) throw new Error(`CPU mode does not run the ${def.spec.name} loop (it needs WebGPU's speed); pick a loop CPU mode offers`);
    },
    loadPolicy: cpuPolicyLoader(deps.loadPolicy),
  });
}
