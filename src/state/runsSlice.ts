// Runs slice: every run of this page and of earlier visits (from the archive). Batches from the
// worker go through a FrameQueue, so however many runs stream at once the store changes at most
// once per animation frame; each applied batch is also appended to the archive.
import type { StateCreator } from 'zustand/vanilla';
import type { LabClient, LiveKnobs, RunBatch, RunHalt, RunSpec, RunState, RunStatus } from '../lab/protocol';
import type { RunArchive, RunRecord } from './persist/archive';
import type { BaseLoopConfig } from '../loops/base_config';
import type { RunChunk } from './runData';
import { errorText } from '../util/errors';
import { FrameQueue, type FrameScheduler } from './frameQueue';
import { checkKnobs, currentKnobs } from './knobs';
import { loopLabel, runDiff, type Resolved } from './launcher';
import { loopNamed } from '../loops/registry';
import { appendChunk, chunkOfData, EMPTY_RUN_DATA, plainChunk, type RunData } from './runData';
import { canRestore, INTERRUPTED, isInterrupted, withPriorHalts } from './resume';
import type { RunOwnership } from './ownership';
import type { RunChannel, RunMessage } from './runChannel';
import type { LabState } from './store';

export interface RunView extends RunRecord {
  /** started on this page: the worker holds it and commands reach it */
  live: boolean;
  /** computing in another tab of this browser when this page loaded: shown as it was then, read-only */
  elsewhere?: boolean;
  data: RunData;
  /** halts from before the run last resumed from a checkpoint (the worker reports only its own) */
  priorHalts?: RunHalt[];
}

export interface RunsSlice {
  runs: {
    order: string[];
    byId: Record<string, RunView>;
    selected: string | null;
    /** runs ticked for comparison, in the order they were ticked; two or more overlay on every chart */
    compared: string[];
    /** the last start or command that failed, with why */
    message: string | null;
    archive: 'off' | 'loading' | 'ready' | 'failed';
    archiveError: string | null;
  };
  startRun(): Promise<void>;
  /**
   * Starts a run of a resolved set-up as startRun does (the explorer's grid runs): its id is
   * known at once (the view is listed before this returns), `done` settles when it ends.
   */
  startRunOf(r: { loop: string; policy: string; config: BaseLoopConfig }, opts?: { id?: string; note?: string; select?: boolean; adapterStart?: boolean }): { id: string; done: Promise<void> };
  /** Starts several set-ups side by side (a lesson's runs), ticked for comparison in place of any earlier ticks. */
  startRuns(setups: readonly Resolved[]): Promise<void>;
  /** Resumes every run cut off by a reload (page closed) from its checkpoint, all at once; returns how many. */
  resumeInterrupted(): number;
  pauseRun(id: string): Promise<void>;
  resumeRun(id: string): Promise<void>;
  /**
   * Starts an interrupted run (page closed) or one halted by a lost GPU again, under the same id,
   * from its latest checkpoint: what was recorded after the checkpoint's step is dropped.
   */
  resumeFromCheckpoint(id: string): Promise<void>;
  stepRun(id: string): Promise<void>;
  stopRun(id: string): Promise<void>;
  /**
   * Checks knob values against the run's current ones with the loop's validator, then queues them
   * for its next step; returns the validator's message (also shown as the runs message) or null.
   */
  /** Queues the change; the step that will take it, or the reason it was refused. */
  setRunKnobs(id: string, change: Partial<LiveKnobs>): Promise<{ ok: true; step: number } | { ok: false; message: string }>;
  selectRun(id: string): void;
  /** Ticks or unticks a run for comparison. */
  toggleCompare(id: string): void;
  deleteRun(id: string): Promise<void>;
  loadArchive(): Promise<void>;
}

export interface RunServices {
  archive: RunArchive | null;
  /** which tab computes which run (none: every unfinished run in the archive is taken as cut off) */
  ownership?: RunOwnership | null;
  /** the other tabs: this tab's runs go out on it, theirs come in (none: another tab's run shows as it was) */
  channel?: RunChannel | null;
  newRunId: () => string;
  now: () => number;
}

type ResolvedRun = Extract<Resolved, { ok: true }>;

const COMPUTING: readonly RunState[] = ['starting', 'running', 'pausing', 'stopping'];
const FINISHED: readonly RunState[] = ['done', 'stopped', 'failed'];

export const isComputing = (s: RunState): boolean => COMPUTING.includes(s);
export const isFinished = (s: RunState): boolean => FINISHED.includes(s);

function recordOf(v: RunView): RunRecord {
  const { id, index, label, diff, loop, policy, config, createdAt, status } = v;
  return { id, index, label, diff, loop, policy, config, createdAt, status };
}


export const createRunsSlice =
  (client: LabClient, schedule: FrameScheduler, services: RunServices): StateCreator<LabState, [], [], RunsSlice> =>
  (set, get) => {
    const patch = (p: Partial<RunsSlice['runs']>) => set((s) => ({ runs: { ...s.runs, ...p } }));
    const patchRun = (id: string, f: (v: RunView) => RunView) =>
      set((s) => (s.runs.byId[id] ? { runs: { ...s.runs, byId: { ...s.runs.byId, [id]: f(s.runs.byId[id]) } } } : {}));
    // a failed archive write is shown, never thrown: callers that need not wait mark it `void`
    const persist = (p: Promise<void> | undefined) =>
      p?.catch((e: unknown) => patch({ archive: 'failed', archiveError: errorText(e) }));

    // how many chunks the archive holds of each run this tab computes: a chunk's number for the other tabs
    const chunkSeq = new Map<string, number>();
    // A finished status is shown only once the archive holds it and every chunk before it: a page
    // reloaded on seeing a run done must find it done, with all its data, not interrupted. The
    // record and the chunks are separate stores, whose transactions may land in any order, so each
    // run's writes are tracked together. Until they land the run shows its last status.
    const written = new Map<string, Promise<unknown>>();
    const track = (id: string, w: Promise<void> | undefined) => {
      if (w) written.set(id, Promise.all([written.get(id), w]).then(() => undefined));
    };
    const showWhenStored = (id: string, held: RunStatus, status: RunStatus) =>
      void written.get(id)?.then(() => patchRun(id, (v) => (v.status === held ? { ...v, status } : v)));

    const queue = new FrameQueue<RunBatch>(schedule, (batches) => {
      const byId = { ...get().runs.byId };
      // the status each run's record is stored with (its newest), where the view still holds the last shown one
      const statusOf = new Map<string, RunStatus>();
      for (const b of batches) {
        const run = byId[b.runId];
        if (!run) continue;
        const chunk = plainChunk(b);
        const status = withPriorHalts(run.priorHalts, b.status);
        statusOf.set(b.runId, status);
        byId[b.runId] = { ...run, data: appendChunk(run.data, chunk), status: services.archive && isFinished(status.state) && !isFinished(run.status.state) ? run.status : status };
        track(b.runId, persist(services.archive?.appendChunk(b.runId, chunk)));
        const seq = chunkSeq.get(b.runId) ?? 0;
        chunkSeq.set(b.runId, seq + 1);
        services.channel?.post({ type: 'chunk', runId: b.runId, seq, chunk, status });
      }
      patch({ byId });
      for (const [id, status] of statusOf) {
        const view = byId[id];
        track(id, persist(services.archive?.putRun(recordOf({ ...view, status }))));
        if (view.status !== status) showWhenStored(id, view.status, status);
      }
    });

    /** Runs a spec in the worker until it ends, then records its final status. */
    const launch = async (spec: RunSpec, status: RunStatus) => {
      const id = spec.runId;
      let final: RunStatus;
      // this tab's while it computes: another tab opened meanwhile shows it as running here
      const release = services.ownership?.claim(id);
      try {
        final = await client.startRun(spec, (b) => queue.push(b));
      } catch (e) {
        final = { ...(get().runs.byId[id]?.status ?? status), state: 'failed', error: errorText(e) };
      }
      try {
        queue.flush();
        const view = get().runs.byId[id];
        const done = view && { ...view, status: withPriorHalts(view.priorHalts, final) };
        // stored, then shown and told, then let go: a page reloaded on seeing the run finished, and a
        // tab that sees the lock free, find the final status stored
        if (done) track(id, persist(services.archive?.putRun(recordOf(done))));
        await written.get(id);
        written.delete(id);
        patchRun(id, (v) => ({ ...v, status: withPriorHalts(v.priorHalts, final) }));
        if (done) services.channel?.post({ type: 'status', runId: id, status: done.status });
      } finally {
        release?.();
      }
    };

    const command = async (id: string, f: (id: string) => Promise<void>) => {
      try {
        await f(id);
      } catch (e) {
        patch({ message: errorText(e) });
      }
    };

    /**
     * A new run's view and spec: numbered `index`, labelled by its difference from the last run of
     * the same loop among `earlier` (or the loop's defaults); the launcher's adapter files apply
     * (`adapterStart`) only to a loop that trains adapter sets (the launcher offers them only there).
     */
    const newRun = (r: { loop: string; policy: string; config: BaseLoopConfig }, id: string, index: number, earlier: readonly RunView[], adapterStart: boolean, note?: string): { view: RunView; spec: RunSpec } => {
      const s = get();
      const loop = r.loop;
      const prev = earlier.filter((v) => v.loop === loop).pop();
      const status: RunStatus = { state: 'starting', step: 0, totalSteps: r.config.steps, stepsPerS: null, etaS: null, error: null };
      const adapterFiles = adapterStart && loopNamed(loop).spec.shape(r.config).adapters?.length ? s.adapterStart : [];
      const view: RunView = {
        id, index, label: `#${index} ${loopLabel(loop)} · ${r.policy}${s.cpuMode.status === 'on' ? ' · CPU' : ''}${adapterFiles.length ? ` · from ${adapterFiles.map((f) => f.name).join(' + ')}` : ''}${note ? ` · ${note}` : ''}`, diff: runDiff(r.config, prev ?? null, loop),
        loop, policy: r.policy, config: r.config, createdAt: services.now(), status, live: true, data: EMPTY_RUN_DATA,
      };
      const spec: RunSpec = { runId: id, loop: r.loop, policy: r.policy, config: r.config, ...(adapterFiles.length ? { adapterFiles: adapterFiles.map(({ file, bytes }) => ({ file, bytes })) } : {}) };
      return { view, spec };
    };

    /** Adds a view per set-up (numbered in order), then trains them side by side; `compare` ticks them all. */
    const startAll = async (setups: readonly ResolvedRun[], compare: boolean) => {
      const s = get();
      const views: RunView[] = [];
      const specs: RunSpec[] = [];
      let index = s.runs.order.reduce((m, k) => Math.max(m, s.runs.byId[k].index), 0);
      for (const r of setups) {
        index += 1;
        const { view, spec } = newRun(r, services.newRunId(), index, [...s.runs.order.map((k) => s.runs.byId[k]), ...views], true);
        views.push(view);
        specs.push(spec);
      }
      const ids = views.map((v) => v.id);
      set((st) => ({
        runs: {
          ...st.runs, order: [...st.runs.order, ...ids], byId: { ...st.runs.byId, ...Object.fromEntries(views.map((v) => [v.id, v])) },
          selected: ids[0] ?? st.runs.selected, message: null, compared: compare ? ids : st.runs.compared,
        },
      }));
      for (const v of views) {
        chunkSeq.set(v.id, 0);
        void persist(services.archive?.putRun(recordOf(v)));
      }
      await Promise.all(specs.map((spec, i) => launch(spec, views[i].status)));
    };

    // ---- another tab's runs, followed live (runChannel.ts) ----
    /** how many of each followed run's chunks this tab holds (read from the archive, or heard) */
    const seen = new Map<string, number>();
    /** An archived run as this tab lists it: another tab's while that tab holds it, cut off if it was computing. */
    const viewOfArchived = (record: RunRecord, chunks: readonly RunChunk[], heldElsewhere: boolean): RunView => {
      const data = chunks.reduce(appendChunk, EMPTY_RUN_DATA);
      // another tab computes it: shown read-only, followed through the channel
      if (heldElsewhere && !isFinished(record.status.state)) return { ...record, live: false, elsewhere: true, data };
      const { phase: _phase, ...kept } = record.status;
      const status = isFinished(record.status.state) ? kept : { ...kept, state: 'stopped' as const, stepsPerS: null, etaS: null, error: INTERRUPTED };
      return { ...record, status, live: false, data };
    };
    /**
     * Reads a followed run again from the archive (a missed chunk, or its owner gone); `ended`: its
     * final status has come, and the read fills in what a read still under way would have.
     */
    const reread = async (id: string, heldElsewhere: boolean, ended = false) => {
      const saved = (await services.archive?.loadRuns().catch(() => []))?.find((r) => r.record.id === id);
      const run = get().runs.byId[id];
      if (!saved || !run || (!run.elsewhere && !ended)) return;
      const view = viewOfArchived(saved.record, saved.chunks, heldElsewhere);
      seen.set(id, saved.chunks.length);
      if (view.status.error === INTERRUPTED) void persist(services.archive?.putRun(recordOf(view)));
      patchRun(id, () => view);
    };
    /** Follows another tab's run until that tab lets it go: then the stored record says how it ended. */
    const follow = (id: string, chunks: number) => {
      seen.set(id, chunks);
      void services.ownership?.whenFree?.(id).then(() => reread(id, false));
    };
    const hear = (m: RunMessage) => {
      const run = get().runs.byId[m.runId];
      if (!run?.elsewhere) return;
      if (m.type === 'status') {
        const done = isFinished(m.status.state);
        patchRun(m.runId, (v) => ({ ...v, status: m.status, elsewhere: done ? undefined : true }));
        // a read for a missed chunk may still be under way, and it stops at the end: the owner stored
        // every chunk and the record before telling, so the archive now holds the whole run
        if (done) void reread(m.runId, false, true);
        return;
      }
      const have = seen.get(m.runId) ?? 0;
      if (m.seq < have) return;
      // a chunk missed (posted before this tab listened, after its archive read): read the run again
      if (m.seq > have) return void reread(m.runId, true);
      seen.set(m.runId, have + 1);
      // the last batch may carry the end already
      patchRun(m.runId, (v) => ({ ...v, data: appendChunk(v.data, m.chunk), status: m.status, elsewhere: isFinished(m.status.state) ? undefined : true }));
    };
    services.channel?.listen(hear);

    return {
      runs: { order: [], byId: {}, selected: null, compared: [], message: null, archive: services.archive ? 'loading' : 'off', archiveError: null },

      async startRun() {
        const r = get().launcher.resolved;
        if (!r.ok) return patch({ message: r.message });
        await startAll([r], false);
      },

      startRunOf(r, opts = {}) {
        const s = get();
        const id = opts.id ?? services.newRunId();
        const runs = s.runs.order.map((k) => s.runs.byId[k]);
        const index = runs.reduce((m, v) => Math.max(m, v.index), 0) + 1;
        const { view, spec } = newRun(r, id, index, runs, opts.adapterStart ?? false, opts.note);
        const select = opts.select ?? true;
        set((st) => ({ runs: { ...st.runs, order: [...st.runs.order, id], byId: { ...st.runs.byId, [id]: view }, selected: select || st.runs.selected === null ? id : st.runs.selected, message: null } }));
        chunkSeq.set(id, 0);
        void persist(services.archive?.putRun(recordOf(view)));
        const done = launch(spec, view.status);
        return { id, done };
      },

      async startRuns(setups) {
        const bad = setups.find((r) => !r.ok);
        if (bad && !bad.ok) return patch({ message: bad.message });
        // the charts show exactly these runs: ticked together (one alone is shown alone)
        await startAll(setups as ResolvedRun[], true);
      },

      async resumeFromCheckpoint(id) {
        const run = get().runs.byId[id];
        if (!run || !canRestore(run)) return patch({ message: `run ${run?.label ?? id} cannot be resumed from a checkpoint (${run ? run.status.state : 'unknown run'})` });
        let from: number | null;
        try {
          // the worker's store is the truth: the archive may have missed the last save before a reload
          from = (await client.listCheckpoints()).find((c) => c.runId === id)?.step ?? null;
        } catch (e) {
          return patch({ message: `run ${run.label}: its checkpoint could not be read (${errorText(e)})` });
        }
        const priorHalts = run.status.halts ?? [];
        const status: RunStatus = { state: 'starting', step: from ?? 0, totalSteps: run.status.totalSteps, stepsPerS: null, etaS: null, error: null };
        // The worker first sends the steps and evaluations the checkpoint recorded (what this page
        // archived may end before the checkpoint); samples up to it stay. Without a checkpoint
        // the run starts again from its base policy.
        const data: RunData = from === null ? EMPTY_RUN_DATA : { ...EMPTY_RUN_DATA, samples: run.data.samples.filter((e) => e.step <= from) };
        const view: RunView = { ...run, live: true, priorHalts, data, status: withPriorHalts(priorHalts, status) };
        patchRun(id, () => view);
        patch({ selected: id, message: null });
        get().dismissRunLoss(id);
        const kept = data.step.length + data.evals.length + data.samples.length + data.records.length > 0 ? [chunkOfData(data)] : [];
        chunkSeq.set(id, kept.length);
        await persist(services.archive?.rewriteRun(recordOf(view), kept));
        await launch({ runId: id, loop: run.loop, policy: run.policy, config: run.config, resume: from !== null }, status);
      },

      resumeInterrupted() {
        const { order, byId } = get().runs;
        const ids = order.filter((id) => isInterrupted(byId[id]));
        // each resume runs until its run ends: start them side by side, not one after another
        for (const id of ids) void get().resumeFromCheckpoint(id);
        return ids.length;
      },

      pauseRun: (id) => command(id, (x) => client.pauseRun(x)),
      resumeRun: (id) => command(id, (x) => client.resumeRun(x)),
      stepRun: (id) => command(id, (x) => client.stepRun(x)),
      stopRun: (id) => command(id, (x) => client.stopRun(x)),

      async setRunKnobs(id, change) {
        const run = get().runs.byId[id];
        if (!run) return { ok: false, message: `no run with id ${id}` };
        const invalid = checkKnobs(run.loop, run.config, currentKnobs(run.config, run.data), change);
        if (invalid) {
          patch({ message: invalid });
          return { ok: false, message: invalid };
        }
        try {
          // the worker knows whether a step is in progress: it says which step takes the change
          const step = await client.setRunKnobs(id, change);
          patch({ message: null });
          return { ok: true, step };
        } catch (e) {
          patch({ message: errorText(e) });
          return { ok: false, message: errorText(e) };
        }
      },

      selectRun(id) {
        if (get().runs.byId[id]) patch({ selected: id });
      },

      toggleCompare(id) {
        const { byId, compared } = get().runs;
        if (!byId[id]) return;
        // in ticking order: the first ticked is the base the others are labelled against
        patch({ compared: compared.includes(id) ? compared.filter((k) => k !== id) : [...compared, id] });
      },

      async deleteRun(id) {
        const run = get().runs.byId[id];
        if (!run || !isFinished(run.status.state)) return;
        set((s) => {
          const byId = { ...s.runs.byId };
          delete byId[id];
          const order = s.runs.order.filter((k) => k !== id);
          return { runs: { ...s.runs, byId, order, compared: s.runs.compared.filter((k) => k !== id), selected: s.runs.selected === id ? (order[order.length - 1] ?? null) : s.runs.selected } };
        });
        get().dismissRunLoss(id);
        await persist(services.archive?.deleteRun(id));
        // its checkpoint goes too; a failure leaves it for the storage-full prune list
        await client.deleteCheckpoints([id]).catch((e: unknown) => patch({ message: `the checkpoint of the deleted run could not be removed: ${errorText(e)}` }));
      },

      async loadArchive() {
        const archive = services.archive;
        if (!archive) return;
        try {
          const [saved, elsewhere] = await Promise.all([archive.loadRuns(), services.ownership?.heldElsewhere() ?? new Set<string>()]);
          const views: RunView[] = saved.map(({ record, chunks }) => viewOfArchived(record, chunks, elsewhere.has(record.id)));
          for (const [i, v] of views.entries()) if (v.elsewhere) follow(v.id, saved[i].chunks.length);
          for (const v of views) if (v.status.error === INTERRUPTED) void persist(archive.putRun(recordOf(v)));
          set((s) => {
            const known = new Set(s.runs.order);
            const add = views.filter((v) => !known.has(v.id));
            const byId = { ...Object.fromEntries(add.map((v) => [v.id, v])), ...s.runs.byId };
            const order = [...add.map((v) => v.id), ...s.runs.order];
            return { runs: { ...s.runs, byId, order, selected: s.runs.selected ?? order[order.length - 1] ?? null, archive: 'ready' } };
          });
        } catch (e) {
          patch({ archive: 'failed', archiveError: errorText(e) });
        }
      },
    };
  };
