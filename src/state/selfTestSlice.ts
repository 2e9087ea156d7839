// Self-test slice: rows stream in one by one as the worker finishes each check.
import type { StateCreator } from 'zustand/vanilla';
import type { LabClient, SelfTestRow, SelfTestSummary } from '../lab/protocol';
import { errorText } from './engineSlice';
import type { LabState } from './store';

export interface SelfTestSlice {
  selfTest: {
    status: 'idle' | 'running' | 'done' | 'failed';
    names: string[];
    rows: SelfTestRow[];
    summary: SelfTestSummary | null;
    error: string | null;
  };
  runSelfTests(): Promise<void>;
}

export const createSelfTestSlice =
  (client: LabClient): StateCreator<LabState, [], [], SelfTestSlice> =>
  (set, get) => {
    const patch = (p: Partial<SelfTestSlice['selfTest']>) => set((s) => ({ selfTest: { ...s.selfTest, ...p } }));
    return {
      selfTest: { status: 'idle', names: [], rows: [], summary: null, error: null },

      async runSelfTests() {
        if (get().selfTest.status === 'running') return;
        patch({ status: 'running', rows: [], summary: null, error: null });
        try {
          patch({ names: await client.selfTestNames() });
          const summary = await client.runSelfTests((row) => patch({ rows: [...get().selfTest.rows, row] }));
          patch({ status: 'done', summary });
        } catch (e) {
          patch({ status: 'failed', error: errorText(e) });
        }
      },
    };
  };
