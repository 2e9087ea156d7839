// The grid's queue, free of React: which of its runs start now, which resume after a reload, and
// what became of each, read from the runs themselves (the run list is the truth; the grid keeps
// only which run is whose). `reconcile` is pure: the explorer slice calls it whenever runs change
// and carries out the actions it returns, so a fake run list tests every rule here.
import type { RunHalt, RunState } from '../lab/protocol';
import type { ArmPlan, RunPlan } from './grid';

/**
 * queued: waits for a free slot (a control run: for its matched run too); running: its run
 * computes, is paused, or waits to resume after a reload; done; halted: it stopped itself (a
 * rejected or non-finite step), its steps so far count; failed: it errored, its GPU was lost, or
 * its run was deleted; stopped: stopped by hand. The last four are marked and the grid goes on.
 */
export type EntryState = 'queued' | 'running' | 'done' | 'halted' | 'failed' | 'stopped';

export interface GridEntry {
  key: string;
  state: EntryState;
  /** the run in the run list (null until started) */
  runId: string | null;
  /** why it failed, halted or stopped */
  note?: string;
}

export interface GridState {
  id: string;
  createdAt: number;
  title: string;
  arms: ArmPlan[];
  runs: RunPlan[];
  entries: Record<string, GridEntry>;
  /** no new run starts, and the running ones are paused */
  paused: boolean;
  concurrency: number;
  /** the sweep file it was started from (a gallery entry run live), if any */
  from?: string;
}

/** What the queue needs to know of a run in the run list. */
export interface RunLook {
  state: RunState;
  /** cut off by a reload: resume it from its checkpoint */
  interrupted: boolean;
  step: number;
  totalSteps: number;
  error: string | null;
  halts: readonly RunHalt[];
  /** generated tokens so far (a control run is given the matched run's) */
  tokens: number;
}

export type QueueAction =
  | { kind: 'start'; key: string; plan: RunPlan }
  | { kind: 'resume'; key: string; runId: string }
  | { kind: 'pause'; runId: string }
  | { kind: 'unpause'; runId: string }
  /** a run that halted itself (it waits paused for the user): stopped, so the grid goes on */
  | { kind: 'stop'; runId: string };

const ENDED: readonly EntryState[] = ['done', 'halted', 'failed', 'stopped'];
export const isEnded = (s: EntryState): boolean => ENDED.includes(s);

/** Halts that end a run by itself but keep what it computed (a lost GPU is a failure: it can resume). */
const SELF_STOPS: readonly RunHalt['kind'][] = ['rejected', 'nonfinite'];

/** The entry's state read from its run. */
function fromRun(e: GridEntry, r: RunLook): GridEntry {
  const last = r.halts[r.halts.length - 1];
  // a halt pauses the run at the step it concerns, waiting for the user: the grid marks it and goes on
  if (r.state === 'paused' && last && last.kind !== 'device-lost' && last.step >= r.step) return { ...e, state: 'halted', note: last.message };
  if (r.state === 'done') return last && SELF_STOPS.includes(last.kind) ? { ...e, state: 'halted', note: last.message } : { ...e, state: 'done', note: undefined };
  if (r.state === 'failed') return { ...e, state: 'failed', note: r.error ?? last?.message ?? 'failed' };
  if (r.state === 'stopped' && !r.interrupted) {
    // stopped at a halt (non-finite, rejected): the run stopped itself
    if (last && SELF_STOPS.includes(last.kind) && last.step >= r.step) return { ...e, state: 'halted', note: last.message };
    return { ...e, state: 'stopped', note: r.error ?? `stopped at step ${r.step}` };
  }
  return { ...e, state: 'running', note: undefined };
}

export function newEntries(runs: readonly RunPlan[]): Record<string, GridEntry> {
  return Object.fromEntries(runs.map((r) => [r.key, { key: r.key, state: 'queued' as const, runId: null }]));
}

export interface ReconcileOptions {
  /** runs can start (a GPU device or CPU mode, no exclusive job) */
  ready: boolean;
  /** the run list holds every run of earlier visits (the archive has loaded) */
  listed: boolean;
}

/**
 * The grid after reading its runs, and what to do now: resume its runs a reload cut off, start
 * queued runs while fewer than `concurrency` compute (none while paused), a control run only once
 * its matched run has ended with its tokens. A finished run is never started again.
 */
export function reconcile(g: GridState, look: (runId: string) => RunLook | undefined, opts: ReconcileOptions): { grid: GridState; actions: QueueAction[] } {
  const entries: Record<string, GridEntry> = { ...g.entries };
  const actions: QueueAction[] = [];
  let changed = false;
  const put = (e: GridEntry) => {
    const old = entries[e.key];
    if (old.state !== e.state || old.runId !== e.runId || old.note !== e.note) (entries[e.key] = e), (changed = true);
  };
  for (const plan of g.runs) {
    const e = entries[plan.key];
    if (!e || e.runId === null || isEnded(e.state)) continue;
    const r = look(e.runId);
    if (!r) {
      // its run never reached the list (the page closed as it started): start it again
      if (opts.listed) put({ key: e.key, state: 'queued', runId: null });
      continue;
    }
    const next = fromRun(e, r);
    put(next);
    if (next.state === 'halted' && r.state === 'paused') actions.push({ kind: 'stop', runId: e.runId });
    if (next.state !== 'running') continue;
    if (r.interrupted && opts.ready && !g.paused) actions.push({ kind: 'resume', key: e.key, runId: e.runId });
    else if (g.paused && r.state === 'running') actions.push({ kind: 'pause', runId: e.runId });
    else if (!g.paused && r.state === 'paused') actions.push({ kind: 'unpause', runId: e.runId });
  }
  // a run the user deleted after it finished: marked, the grid goes on
  for (const e of Object.values(entries)) {
    if (opts.listed && e.runId !== null && isEnded(e.state) && e.state !== 'failed' && !look(e.runId)) put({ ...e, state: 'failed', note: 'its run was deleted from the run list' });
  }
  if (!g.paused && opts.ready && opts.listed) {
    let active = Object.values(entries).filter((e) => e.state === 'running').length;
    for (const plan of g.runs) {
      if (active >= g.concurrency) break;
      const e = entries[plan.key];
      if (e.state !== 'queued') continue;
      if (plan.matchKey) {
        const m = entries[plan.matchKey];
        if (!m || !isEnded(m.state)) continue;
        const tokens = m.runId ? look(m.runId)?.tokens ?? 0 : 0;
        if (m.state === 'failed' || m.state === 'stopped' || !(tokens > 0)) {
          put({ ...e, state: 'failed', note: `its matched run ${plan.matchKey} ${m.state === 'done' || m.state === 'halted' ? 'generated no tokens' : `is ${m.state}`}: no token budget to match` });
          continue;
        }
        actions.push({ kind: 'start', key: plan.key, plan: { ...plan, config: { ...plan.config, tokenBudget: Math.round(tokens) } } });
      } else actions.push({ kind: 'start', key: plan.key, plan });
      active++;
    }
  }
  return { grid: changed ? { ...g, entries } : g, actions };
}

export interface GridProgress {
  runs: number;
  ended: number;
  running: number;
  failed: number;
  /** RL steps planned, and computed so far */
  steps: number;
  stepsDone: number;
  /** seconds left at `secondsPerStep` with the grid's concurrency; null without a measured step time */
  etaS: number | null;
}

/**
 * Progress of the grid and its time left: the steps still to compute at the measured time per
 * step, spread over the runs that can compute at once (never more than the runs left).
 */
export function gridProgress(g: GridState, look: (runId: string) => RunLook | undefined, secondsPerStep: number | null): GridProgress {
  let steps = 0, stepsDone = 0, ended = 0, running = 0, failed = 0, left = 0;
  for (const plan of g.runs) {
    const e = g.entries[plan.key];
    const r = e.runId ? look(e.runId) : undefined;
    const total = r?.totalSteps ?? plan.config.steps;
    const done = isEnded(e.state) ? total : Math.min(total, r?.step ?? 0);
    steps += total;
    stepsDone += done;
    if (isEnded(e.state)) ended++;
    else left++;
    if (e.state === 'running') running++;
    if (e.state === 'failed') failed++;
  }
  const lanes = Math.max(1, Math.min(g.concurrency, left));
  const etaS = secondsPerStep !== null && Number.isFinite(secondsPerStep) ? ((steps - stepsDone) * secondsPerStep) / lanes : null;
  return { runs: g.runs.length, ended, running, failed, steps, stepsDone, etaS };
}

/** The time a planned grid takes at `secondsPerStep` (null: not measured on this adapter yet). */
export function estimateSeconds(runs: readonly RunPlan[], secondsPerStep: number | null, concurrency: number): number | null {
  if (secondsPerStep === null || !Number.isFinite(secondsPerStep)) return null;
  const steps = runs.reduce((a, r) => a + r.config.steps, 0);
  return (steps * secondsPerStep) / Math.max(1, Math.min(concurrency, runs.length));
}

/** Runs at once by default: one on a CPU adapter (SwiftShader shares the CPU), two on a GPU. */
export function defaultConcurrency(adapter: { name: string; vendor: string; architecture: string; description: string } | null, cpuMode: boolean): number {
  if (cpuMode || !adapter) return 1;
  const text = `${adapter.name} ${adapter.vendor} ${adapter.architecture} ${adapter.description}`.toLowerCase();
  return /swiftshader|llvmpipe|lavapipe|basic render/.test(text) ? 1 : 2;
}

/** What the step-time measurement needs of a run in the run list. */
export interface TimedRun {
  loop: string;
  policy: string;
  data: { seconds: readonly number[] };
}

/**
 * Seconds one step takes on this adapter, measured: the median step time of the latest steps of
 * earlier runs of the same loop and policy (else of any loop on that policy); null when this page
 * has not timed such a step yet. The median: a step that paused for a checkpoint or shared the GPU
 * with another run does not pull it.
 */
export function measuredStepSeconds(runs: readonly TimedRun[], loop: string, policy: string, latest = 200): { seconds: number; from: string } | null {
  const pick = (rs: readonly TimedRun[]) => rs.flatMap((r) => r.data.seconds.slice(-latest)).filter((x) => Number.isFinite(x) && x > 0).slice(-latest);
  for (const [rs, from] of [[runs.filter((r) => r.loop === loop && r.policy === policy), `${loop} steps on ${policy}`], [runs.filter((r) => r.policy === policy), `steps of any loop on ${policy}`]] as const) {
    const xs = pick(rs).sort((a, b) => a - b);
    if (xs.length) return { seconds: xs[Math.floor(xs.length / 2)], from: `the median of ${xs.length} ${from} timed on this adapter` };
  }
  return null;
}
