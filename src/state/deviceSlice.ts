// Device slice: the adapter found by the main worker and what the GPU devices report on
// their own: the main worker's device (adapter panel, self-test, demo), and each run's, whose
// worker is the run's alone (lab/page/lab.ts): its loss halts that run only, and the run's
// status says so; the page lists such losses until the run resumes or is deleted.
import type { StateCreator } from 'zustand/vanilla';
import type { AdapterSummary } from '../gpu/device';
import type { DeviceEvent, LabClient, NoGpuReason } from '../lab/protocol';
import type { LabState } from './store';
import { isFinished } from './runsSlice';
import { errorText } from '../util/errors';

export type AdapterState =
  | { status: 'idle' }
  | { status: 'detecting' }
  | { status: 'ready'; adapter: AdapterSummary; deviceLimits: Record<string, number> }
  | { status: 'unavailable'; reason: NoGpuReason; message: string }
  | { status: 'failed'; message: string };

/** How many uncaptured GPU errors are kept for display. */
const MAX_GPU_ERRORS = 5;

export interface DeviceLoss {
  reason: string;
  message: string;
}

export interface DeviceSlice {
  device: {
    adapter: AdapterState;
    /** the main worker's device was lost (runs have devices of their own) */
    deviceLost: DeviceLoss | null;
    /** runs whose own worker's device was lost, by run id */
    lostRuns: Record<string, DeviceLoss>;
    /** a reconnect after a device loss: in progress, or why it failed */
    reconnect: { status: 'idle' | 'connecting' } | { status: 'failed'; message: string };
    gpuErrors: string[];
  };
  initDevice(): Promise<void>;
  /** After a device loss: asks the worker for a new adapter and device. */
  reconnectDevice(): Promise<void>;
  /** Loses the device of the selected run's worker while it is active, else the main worker's. */
  debugLoseDevice(): Promise<void>;
  /** Takes a run off the list of runs whose device was lost (it resumed, or was deleted). */
  dismissRunLoss(runId: string): void;
}

export const createDeviceSlice =
  (client: LabClient): StateCreator<LabState, [], [], DeviceSlice> =>
  (set, get) => {
    const patch = (p: Partial<DeviceSlice['device']>) => set((s) => ({ device: { ...s.device, ...p } }));
    const onEvent = (e: DeviceEvent) => {
      if (e.type === 'device-lost') {
        const loss = { reason: e.reason, message: e.message };
        if (e.runId === undefined) patch({ deviceLost: loss });
        else patch({ lostRuns: { ...get().device.lostRuns, [e.runId]: loss } });
        return;
      }
      const from = e.runId === undefined ? '' : `run ${get().runs.byId[e.runId]?.label ?? e.runId}: `;
      patch({ gpuErrors: [...get().device.gpuErrors, from + e.message].slice(-MAX_GPU_ERRORS) });
    };
    return {
      device: { adapter: { status: 'idle' }, deviceLost: null, lostRuns: {}, reconnect: { status: 'idle' }, gpuErrors: [] },

      async initDevice() {
        if (get().device.adapter.status !== 'idle') return;
        patch({ adapter: { status: 'detecting' } });
        try {
          const r = await client.init(onEvent);
          patch({
            adapter: r.ok
              ? { status: 'ready', adapter: r.adapter, deviceLimits: r.deviceLimits }
              : { status: 'unavailable', reason: r.reason, message: r.message },
          });
        } catch (e) {
          patch({ adapter: { status: 'failed', message: errorText(e) } });
        }
      },

      async reconnectDevice() {
        if (get().device.reconnect.status === 'connecting') return;
        patch({ reconnect: { status: 'connecting' } });
        try {
          const r = await client.reconnect();
          if (r.ok) patch({ adapter: { status: 'ready', adapter: r.adapter, deviceLimits: r.deviceLimits }, deviceLost: null, reconnect: { status: 'idle' }, gpuErrors: [] });
          else patch({ reconnect: { status: 'failed', message: r.message } });
        } catch (e) {
          patch({ reconnect: { status: 'failed', message: errorText(e) } });
        }
      },

      async debugLoseDevice() {
        const s = get();
        const run = s.runs.selected ? s.runs.byId[s.runs.selected] : undefined;
        await client.debugLoseDevice(run?.live && !isFinished(run.status.state) ? run.id : undefined);
      },

      dismissRunLoss(runId) {
        const { [runId]: gone, ...rest } = get().device.lostRuns;
        if (gone) patch({ lostRuns: rest });
      },
    };
  };
