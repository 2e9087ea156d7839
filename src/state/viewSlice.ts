// View slice: how the charts show a run (smoothing, log scale, which evaluation the pass@k
// curve shows). Not part of a run's set-up, so not in the URL.
import type { StateCreator } from 'zustand/vanilla';
import type { LabState } from './store';

export interface ViewSlice {
  view: {
    /** EMA weight in [0, 0.99] */
    smoothing: number;
    logScale: boolean;
    /** index into the selected run's evaluations; null follows the latest */
    evalIndex: number | null;
    /** the keyboard shortcuts overlay */
    helpOpen: boolean;
  };
  setSmoothing(w: number): void;
  setLogScale(on: boolean): void;
  setEvalIndex(i: number | null): void;
  setHelpOpen(open: boolean): void;
}

export const MAX_SMOOTHING = 0.99;

export const createViewSlice: StateCreator<LabState, [], [], ViewSlice> = (set, get) => {
  const patch = (p: Partial<ViewSlice['view']>) => set({ view: { ...get().view, ...p } });
  return {
    view: { smoothing: 0, logScale: false, evalIndex: null, helpOpen: false },
    setSmoothing(w) {
      if (!(w >= 0 && w <= MAX_SMOOTHING)) throw new RangeError(`smoothing must be in [0, ${MAX_SMOOTHING}], got ${w}`);
      patch({ smoothing: w });
    },
    setLogScale(on) {
      patch({ logScale: on });
    },
    setEvalIndex(i) {
      patch({ evalIndex: i });
    },
    setHelpOpen(open) {
      patch({ helpOpen: open });
    },
  };
};
