// Demo slice: one memorise-a-phrase run at a time. Step batches from the worker go through a
// FrameQueue, so the chart updates at most once per animation frame; batches of an older run
// are dropped.
import type { StateCreator } from 'zustand/vanilla';
import type { DemoBatch, DemoOptions, LabClient } from '../lab/protocol';
import { errorText } from '../util/errors';
import { FrameQueue, type FrameScheduler } from './frameQueue';
import { appendBatches, type LossPoint } from './charts/points';
import type { LabState } from './store';

export type DemoStatus = 'idle' | 'running' | 'stopping' | 'done' | 'stopped' | 'failed';

export interface DemoSlice {
  demo: {
    status: DemoStatus;
    options: DemoOptions;
    runId: number;
    points: LossPoint[];
    tokensPerS: number | null;
    error: string | null;
  };
  setDemoOptions(p: Partial<DemoOptions>): void;
  startDemo(): Promise<void>;
  stopDemo(): Promise<void>;
}

export const DEFAULT_DEMO_OPTIONS: DemoOptions = { phrase: 'hello,rlvr;7+5=12;12*3=36;#36', steps: 200, seed: 1 };

export const createDemoSlice =
  (client: LabClient, schedule: FrameScheduler): StateCreator<LabState, [], [], DemoSlice> =>
  (set, get) => {
    const patch = (p: Partial<DemoSlice['demo']>) => set((s) => ({ demo: { ...s.demo, ...p } }));
    const queue = new FrameQueue<DemoBatch>(schedule, (batches) => {
      const { runId, points } = get().demo;
      const current = batches.filter((b) => b.runId === runId);
      if (current.length === 0) return;
      const last = current[current.length - 1];
      patch({ points: appendBatches(points, current), tokensPerS: last.tokensPerS[last.tokensPerS.length - 1] ?? null });
    });

    return {
      demo: { status: 'idle', options: DEFAULT_DEMO_OPTIONS, runId: 0, points: [], tokensPerS: null, error: null },

      setDemoOptions(p) {
        patch({ options: { ...get().demo.options, ...p } });
      },

      async startDemo() {
        const { status, options } = get().demo;
        if (status === 'running' || status === 'stopping') return;
        const runId = get().demo.runId + 1;
        patch({ status: 'running', runId, points: [], tokensPerS: null, error: null });
        try {
          const outcome = await client.startDemo(runId, options, (b) => queue.push(b));
          if (get().demo.runId === runId) patch({ status: outcome });
        } catch (e) {
          if (get().demo.runId === runId) patch({ status: 'failed', error: errorText(e) });
        }
      },

      async stopDemo() {
        if (get().demo.status !== 'running') return;
        patch({ status: 'stopping' });
        await client.stopDemo();
      },
    };
  };
