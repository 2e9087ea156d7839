// Analyses of a finished run computed on demand in the main worker: SPICE's cross-play matrix
// (its loop's), from the snapshots kept with the run's checkpoints. One per run at a time; the
// progress and the result (or the reason it failed) stay with the run id until the page reloads.
import type { StateCreator } from 'zustand/vanilla';
import type { LabClient } from '../lab/protocol';
import type { CrossPlayOptions, CrossPlayResult } from '../loops/spec';
import { errorText } from '../util/errors';
import type { LabState } from './store';

export interface CrossPlayState {
  status: 'running' | 'done' | 'failed';
  done: number;
  total: number;
  result: CrossPlayResult | null;
  error: string | null;
}

export interface AnalysisSlice {
  crossPlay: Readonly<Record<string, CrossPlayState>>;
  computeCrossPlay(runId: string, opts: CrossPlayOptions): Promise<void>;
}

export const createAnalysisSlice =
  (client: LabClient): StateCreator<LabState, [], [], AnalysisSlice> =>
  (set, get) => {
    const patch = (runId: string, p: Partial<CrossPlayState>) =>
      set((s) => ({ crossPlay: { ...s.crossPlay, [runId]: { ...(s.crossPlay[runId] ?? { status: 'running', done: 0, total: 0, result: null, error: null }), ...p } } }));
    return {
      crossPlay: {},
      async computeCrossPlay(runId, opts) {
        if (get().crossPlay[runId]?.status === 'running') return;
        patch(runId, { status: 'running', done: 0, total: 0, result: null, error: null });
        try {
          const result = await client.crossPlay(runId, opts, (done, total) => patch(runId, { done, total }));
          patch(runId, { status: 'done', result });
        } catch (e) {
          patch(runId, { status: 'failed', error: errorText(e) });
        }
      },
    };
  };
