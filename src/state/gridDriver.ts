// The grid's queue at work: whenever the runs or the grid change, reconcile (src/explore/queue.ts)
// reads what became of the grid's runs and says what to do; this carries it out through the run
// list's own actions (startRunOf, resumeFromCheckpoint, pauseRun, resumeRun, stopRun), so every
// run of a grid is an ordinary run. A run's id is saved with the grid before the run starts: a
// reload then finds it in the run list (resumed, never recomputed) or, if it never got there,
// starts it again.
import type { StoreApi } from 'zustand/vanilla';
import { reconcile, type GridState, type RunLook } from '../explore/queue';
import { isInterrupted } from './resume';
import type { RunView } from './runsSlice';
import { selectExclusiveJob, selectRunsReady, type LabState } from './store';
import { TOKENS_METRIC } from './charts/wallTime';

const tokenSums = new WeakMap<readonly number[], number>();

/** Generated tokens of a run so far (cached per version of its series). */
function tokensOf(run: RunView): number {
  const t = run.data.series[TOKENS_METRIC];
  if (!t) return 0;
  const hit = tokenSums.get(t);
  if (hit !== undefined) return hit;
  const sum = t.reduce((a, x) => (Number.isFinite(x) ? a + x : a), 0);
  tokenSums.set(t, sum);
  return sum;
}

export function lookOf(run: RunView | undefined): RunLook | undefined {
  if (!run) return undefined;
  const s = run.status;
  return {
    state: s.state, interrupted: isInterrupted(run), step: s.step, totalSteps: s.totalSteps, error: s.error, halts: s.halts ?? [],
    get tokens() {
      return tokensOf(run);
    },
  };
}

/** The note a grid run's label carries ("grid arm2 · seed 3"). */
const noteOf = (g: GridState, key: string) => {
  const plan = g.runs.find((r) => r.key === key);
  const arm = g.arms.find((a) => a.id === plan?.armId);
  return `grid ${arm?.label ?? plan?.armId} · seed ${plan?.seed}`;
};

export function startGridDriver(api: StoreApi<LabState>, io: { save: (g: GridState) => Promise<void>; newRunId: () => string }): () => void {
  // runs whose start, resume or command is on its way: not asked again until their status moves
  const starting = new Set<string>();
  // a command is asked once per state of its run: a pause is not sent again every frame until it lands
  const inflight = new Map<string, { kind: string; state: string }>();
  let busy = false;
  // every version of the grid is saved (a pause, a new concurrency, an entry's run), the last one once
  let saved: GridState | null = null;

  const tick = () => {
    if (busy) return;
    busy = true;
    try {
      const s = api.getState();
      const g = s.explorer?.grid;
      if (!g || !s.explorer.loaded) return;
      const byId = s.runs.byId;
      const look = (id: string): RunLook | undefined => {
        const run = byId[id];
        if (!run && starting.has(id)) return { state: 'starting', interrupted: false, step: 0, totalSteps: 0, error: null, halts: [], tokens: 0 };
        return lookOf(run);
      };
      const ready = selectRunsReady(s) && !selectExclusiveJob(s);
      const listed = s.runs.archive === 'ready' || s.runs.archive === 'off' || s.runs.archive === 'failed';
      const { grid, actions } = reconcile(g, look, { ready, listed });
      let next = grid;
      const starts: { id: string; plan: (typeof actions)[number] & { kind: 'start' } }[] = [];
      for (const a of actions) {
        if (a.kind === 'start') {
          const id = io.newRunId();
          starting.add(id);
          next = { ...next, entries: { ...next.entries, [a.key]: { key: a.key, state: 'running', runId: id } } };
          starts.push({ id, plan: a });
          continue;
        }
        const run = byId[a.runId];
        const asked = inflight.get(a.runId);
        if (!run || (asked?.kind === a.kind && asked.state === run.status.state)) continue;
        inflight.set(run.id, { kind: a.kind, state: run.status.state });
        if (a.kind === 'resume') void s.resumeFromCheckpoint(a.runId);
        else if (a.kind === 'pause') void s.pauseRun(a.runId);
        else if (a.kind === 'unpause') void s.resumeRun(a.runId);
        else void s.stopRun(a.runId);
      }
      if (next !== g) api.setState((st) => ({ explorer: { ...st.explorer, grid: next } }));
      const written = next !== saved ? io.save(next) : Promise.resolve();
      saved = next;
      for (const { id, plan } of starts) {
        // saved first, so a reload knows whose run it is
        void written.finally(() => {
          const now = api.getState();
          if (now.explorer.grid?.id === next.id && now.explorer.grid.entries[plan.key]?.runId === id) {
            now.startRunOf({ loop: plan.plan.loop, policy: plan.plan.policy, config: plan.plan.config }, { id, note: noteOf(next, plan.key), select: false });
          }
          starting.delete(id);
        });
      }
    } finally {
      busy = false;
    }
  };

  return api.subscribe((s, prev) => {
    if (s.runs === prev.runs && s.explorer?.grid === prev.explorer?.grid && s.explorer?.loaded === prev.explorer?.loaded && s.device === prev.device && s.cpuMode === prev.cpuMode && s.selfTest === prev.selfTest && s.demo === prev.demo) return;
    tick();
  });
}
