// CPU mode slice: without WebGPU the page can still train, on the float64 reference engine in a
// worker of its own (tiny policy only). The user turns it on; from then on new runs go there.
import type { StateCreator } from 'zustand/vanilla';
import { CPU_MODE } from '../lab/protocol/cpuMode';
import type { CpuModeSwitch } from '../lab/page/lab';
import { errorText } from '../util/errors';
import type { LabState } from './store';

export type CpuModeStatus = 'off' | 'starting' | 'on' | 'failed';

export interface CpuModeSlice {
  cpuMode: {
    status: CpuModeStatus;
    /** why CPU mode could not start (status 'failed') */
    error: string | null;
  };
  /** Starts CPU mode's worker and picks the tiny policy; only offered while there is no GPU engine. */
  enterCpuMode(): Promise<void>;
}

/** True when the GPU engine is out (no WebGPU, no adapter, the device or its worker failed): CPU mode is offered. */
export function selectCpuModeOffered(s: LabState): boolean {
  const a = s.device.adapter.status;
  return a === 'unavailable' || a === 'failed';
}

export const createCpuModeSlice =
  (cpuMode: CpuModeSwitch | null): StateCreator<LabState, [], [], CpuModeSlice> =>
  (set, get) => {
    const patch = (p: Partial<CpuModeSlice['cpuMode']>) => set((s) => ({ cpuMode: { ...s.cpuMode, ...p } }));
    return {
      cpuMode: { status: 'off', error: null },

      async enterCpuMode() {
        const s = get();
        if (s.cpuMode.status === 'on' || s.cpuMode.status === 'starting') return;
        if (!selectCpuModeOffered(s)) {
          return patch({ status: 'failed', error: 'the GPU engine is available (or still being looked for): CPU mode is for browsers without WebGPU' });
        }
        if (!cpuMode) return patch({ status: 'failed', error: 'this page was built without CPU mode' });
        patch({ status: 'starting', error: null });
        try {
          await cpuMode.start();
        } catch (e) {
          return patch({ status: 'failed', error: errorText(e) });
        }
        patch({ status: 'on' });
        get().setPolicy(CPU_MODE.policy);
      },
    };
  };
