// View slice: how the charts show a run (smoothing, log scale, step or wall time on the x axis,
// which evaluation the pass@k curve shows). Not part of a run's set-up, so not in the URL.
import type { StateCreator } from 'zustand/vanilla';
import type { LabState } from './store';
import { X_AXIS_MODES, type XAxisMode } from './charts/wallTime';

export interface ViewSlice {
  view: {
    /** EMA weight in [0, 0.99] */
    smoothing: number;
    logScale: boolean;
    /** the x axis of the charts by step: steps, or each run's cumulative compute time (wallTime.ts) */
    xAxis: XAxisMode;
    /** index into the selected run's evaluations; null follows the latest */
    evalIndex: number | null;
    /** the keyboard shortcuts overlay */
    helpOpen: boolean;
    /** compared runs whose lines are hidden (a click on their legend entry); they keep their colours */
    hiddenRuns: readonly string[];
  };
  setSmoothing(w: number): void;
  setLogScale(on: boolean): void;
  setXAxis(mode: XAxisMode): void;
  setEvalIndex(i: number | null): void;
  setHelpOpen(open: boolean): void;
  /** Hides a compared run's lines on every chart, or shows them again. */
  toggleRunHidden(runId: string): void;
}

export const MAX_SMOOTHING = 0.99;

export const createViewSlice: StateCreator<LabState, [], [], ViewSlice> = (set, get) => {
  const patch = (p: Partial<ViewSlice['view']>) => set({ view: { ...get().view, ...p } });
  return {
    view: { smoothing: 0, logScale: false, xAxis: 'step', evalIndex: null, helpOpen: false, hiddenRuns: [] },
    setSmoothing(w) {
      if (!(w >= 0 && w <= MAX_SMOOTHING)) throw new RangeError(`smoothing must be in [0, ${MAX_SMOOTHING}], got ${w}`);
      patch({ smoothing: w });
    },
    setLogScale(on) {
      patch({ logScale: on });
    },
    setXAxis(mode) {
      if (!X_AXIS_MODES.includes(mode)) throw new RangeError(`x axis must be one of ${X_AXIS_MODES.join(', ')}, got ${String(mode)}`);
      patch({ xAxis: mode });
    },
    setEvalIndex(i) {
      patch({ evalIndex: i });
    },
    setHelpOpen(open) {
      patch({ helpOpen: open });
    },
    toggleRunHidden(runId) {
      const h = get().view.hiddenRuns;
      patch({ hiddenRuns: h.includes(runId) ? h.filter((id) => id !== runId) : [...h, runId] });
    },
  };
};
