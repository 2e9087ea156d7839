// CPU mode's runs, free of Comlink like engine.ts: the lab's RunManager (pause, single step,
// knobs and stop at step boundaries) driving the GRPO loop of the float64 reference engine
// (src/cpu/grpo.ts) with the tiny policy only. cpu.worker.ts exposes it to the page.
import { runGrpoCpu } from '../cpu/grpo';
import { validateGrpoConfig } from '../loops/grpo';
import { CPU_MODE } from './cpuMode';
import { grpoTail } from './loops';
import type { LoopName } from './protocol';
import { RunManager, type BasePolicy, type LoopFactory, type RunDeps, type RunDevice } from './runs';

/** The CPU as a run device: it cannot be lost. */
export const CPU_DEVICE: RunDevice = Object.freeze({ isLost: false });

/** The loops CPU mode runs: the GPU loops' configs, validators and step boundaries, on the CPU engine. */
export const CPU_LOOP_FACTORIES: Readonly<Record<LoopName, LoopFactory<RunDevice>>> = {
  grpo: (raw) => {
    const config = validateGrpoConfig(raw, 'grpo');
    return {
      steps: config.steps,
      start: (_cpu, cfg, init, signal, controls, resume) => runGrpoCpu(cfg, init, config, signal, controls, resume),
      tail: (step) => grpoTail(config, step),
    };
  },
};

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
export function createCpuRuns(deps: Omit<RunDeps<RunDevice>, 'loops'>): RunManager<RunDevice> {
  return new RunManager<RunDevice>({ ...deps, loops: CPU_LOOP_FACTORIES, loadPolicy: cpuPolicyLoader(deps.loadPolicy) });
}
