// Engine slice: the adapter found by the worker and what the device reports on its own.
import type { StateCreator } from 'zustand/vanilla';
import type { AdapterSummary } from '../gpu/device';
import type { EngineEvent, LabClient, NoGpuReason } from '../lab/protocol';
import type { LabState } from './store';

export type AdapterState =
  | { status: 'idle' }
  | { status: 'detecting' }
  | { status: 'ready'; adapter: AdapterSummary; deviceLimits: Record<string, number> }
  | { status: 'unavailable'; reason: NoGpuReason; message: string }
  | { status: 'failed'; message: string };

/** How many uncaptured GPU errors are kept for display. */
const MAX_GPU_ERRORS = 5;

export interface EngineSlice {
  engine: {
    adapter: AdapterState;
    deviceLost: { reason: string; message: string } | null;
    /** a reconnect after a device loss: in progress, or why it failed */
    reconnect: { status: 'idle' | 'connecting' } | { status: 'failed'; message: string };
    gpuErrors: string[];
  };
  initEngine(): Promise<void>;
  /** After a device loss: asks the worker for a new adapter and device. */
  reconnectEngine(): Promise<void>;
  debugLoseDevice(): Promise<void>;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export const createEngineSlice =
  (client: LabClient): StateCreator<LabState, [], [], EngineSlice> =>
  (set, get) => {
    const patch = (p: Partial<EngineSlice['engine']>) => set((s) => ({ engine: { ...s.engine, ...p } }));
    const onEvent = (e: EngineEvent) => {
      if (e.type === 'device-lost') patch({ deviceLost: { reason: e.reason, message: e.message } });
      else patch({ gpuErrors: [...get().engine.gpuErrors, e.message].slice(-MAX_GPU_ERRORS) });
    };
    return {
      engine: { adapter: { status: 'idle' }, deviceLost: null, reconnect: { status: 'idle' }, gpuErrors: [] },

      async initEngine() {
        if (get().engine.adapter.status !== 'idle') return;
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

      async reconnectEngine() {
        if (get().engine.reconnect.status === 'connecting') return;
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
        await client.debugLoseDevice();
      },
    };
  };
