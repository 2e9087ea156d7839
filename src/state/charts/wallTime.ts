// Wall time on the charts' x axis: a run's compute seconds summed over its recorded training
// steps (every step event carries the seconds that step took). Time spent paused, evaluating or
// saving a checkpoint is in no step's seconds, so the clock leaves it out: it measures what the
// steps cost, comparable between runs whatever their pauses. Each run keeps its own clock; things
// that happen at a step (an evaluation, a knob change, a halt) sit at the run's time after it.

import type { XAxisMode } from '../../loops/charts';

/** What the charts' x axis counts (steps, compute time, generated tokens): declared with the loops' charts. */
export type { XAxisMode };

export const X_AXIS_MODES: readonly XAxisMode[] = ['step', 'time', 'tokens'];

/** The step metric a tokens axis sums. */
export const TOKENS_METRIC = 'tokens/generated';

export interface RunClock {
  /** the recorded steps, ascending (the worker sends them in order; an import checks it) */
  steps: readonly number[];
  /**
   * cum[i]: compute seconds up to and including steps[i]; NaN from the first step whose seconds
   * are missing or negative on (an imported run may lack them): later times cannot be known
   */
  cum: readonly number[];
  /** how many steps have no known time */
  untimed: number;
}

/** Sums each step's seconds. */
export function runClock(steps: readonly number[], seconds: readonly number[]): RunClock {
  if (steps.length !== seconds.length) throw new Error(`runClock: ${steps.length} steps need ${steps.length} seconds, got ${seconds.length}`);
  const cum = new Array<number>(steps.length);
  let t = 0;
  let untimed = 0;
  for (let i = 0; i < steps.length; i++) {
    const s = seconds[i];
    t = Number.isFinite(s) && s >= 0 ? t + s : NaN;
    cum[i] = t;
    if (Number.isNaN(t)) untimed++;
  }
  return { steps, cum, untimed };
}

const clocks = new WeakMap<readonly number[], RunClock>();

/**
 * A run's clock, computed once per version of its data: the step and seconds arrays are replaced,
 * never changed, when steps arrive, so the same data gives the same clock object (memoised charts
 * compare it by identity).
 */
export function clockOf(data: { step: readonly number[]; seconds: readonly number[] }): RunClock {
  const hit = clocks.get(data.seconds);
  if (hit && hit.steps === data.step) return hit;
  const c = runClock(data.step, data.seconds);
  clocks.set(data.seconds, c);
  return c;
}

const tokenClocks = new WeakMap<readonly number[], RunClock>();
const NO_TOKENS: readonly number[] = [];

/**
 * The run's clock for the axis `mode`: compute seconds (step and time modes), or generated tokens
 * summed over its steps (a run that did not report them has none: every step untimed).
 */
export function clockFor(data: { step: readonly number[]; seconds: readonly number[]; series: Readonly<Record<string, readonly number[]>> }, mode: XAxisMode): RunClock {
  if (mode !== 'tokens') return clockOf(data);
  const tokens = data.series[TOKENS_METRIC] ?? NO_TOKENS;
  const hit = tokens !== NO_TOKENS ? tokenClocks.get(tokens) : undefined;
  if (hit && hit.steps === data.step) return hit;
  const c = runClock(data.step, tokens.length === data.step.length ? tokens : data.step.map(() => NaN));
  if (tokens !== NO_TOKENS) tokenClocks.set(tokens, c);
  return c;
}

/**
 * Compute seconds of the run once `step` is done: the time at the last recorded step at or
 * before it; 0 before the first (the step-0 evaluation comes before any training). NaN when that
 * step's time is unknown.
 */
export function timeAtStep(clock: RunClock, step: number): number {
  let lo = 0;
  let hi = clock.steps.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (clock.steps[mid] <= step) (at = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  return at < 0 ? 0 : clock.cum[at];
}

/** The clock's last known time (0 for a run without timed steps). */
export function clockEnd(clock: RunClock): number {
  for (let i = clock.cum.length - 1; i >= 0; i--) if (Number.isFinite(clock.cum[i])) return clock.cum[i];
  return 0;
}

/** A point's two coordinates: the tooltips show both, whichever the axis draws. */
export interface Timed {
  step: number;
  /** NaN when unknown */
  time: number;
}

/**
 * Points whose `x` is a step, placed on the axis: `x` becomes the time in time mode, and every
 * point keeps its step and time. In time mode a point without a known time is left out.
 */
export function placeAt<P extends { x: number }>(pts: readonly P[], timeOf: (step: number) => number, mode: XAxisMode): (P & Timed)[] {
  const out: (P & Timed)[] = [];
  for (const p of pts) {
    const time = timeOf(p.x);
    if (mode !== 'step' && !Number.isFinite(time)) continue;
    out.push({ ...p, x: mode !== 'step' ? time : p.x, step: p.x, time });
  }
  return out;
}

/** Points by step of one run, placed on the axis by the run's clock. */
export function placeOnAxis<P extends { x: number }>(pts: readonly P[], clock: RunClock, mode: XAxisMode): (P & Timed)[] {
  return placeAt(pts, (s) => timeAtStep(clock, s), mode);
}

/** Each evaluation's time: the run's compute time after the step it evaluated (evaluating costs none). */
export function evalTimes(evals: readonly { step: number }[], clock: RunClock): number[] {
  return evals.map((e) => timeAtStep(clock, e.step));
}

/**
 * Marks made at steps (halts, knob changes) of several runs, each placed by its own run's clock,
 * sorted by x; in time mode a mark whose time is unknown is left out.
 */
export function placeMarks<M extends { step: number }>(runs: readonly { clock: RunClock; marks: readonly M[] }[], mode: XAxisMode): (M & Timed & { x: number })[] {
  return runs.flatMap((r) => placeOnAxis(r.marks.map((m) => ({ ...m, x: m.step })), r.clock, mode)).sort((a, b) => a.x - b.x);
}

/** "00:07", "12:30", "1:02:03"; `decimals` adds fractions of a second ("00:07.4"). */
export function formatClock(seconds: number, decimals = 0): string {
  if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError(`formatClock: seconds must be a finite number ≥ 0, got ${seconds}`);
  const scale = 10 ** decimals;
  // rounded first, so 59.96 s reads 01:00.0, never 00:60.0
  const total = Math.round(seconds * scale) / scale;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total - h * 3600) / 60);
  const s = (total - h * 3600 - m * 60).toFixed(decimals).padStart(decimals > 0 ? 3 + decimals : 2, '0');
  const mm = String(m).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${s}` : `${mm}:${s}`;
}

/** Tick spacings a clock reads naturally at, in seconds. */
const CLOCK_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/**
 * Ticks for a time axis from 0 to `max` seconds: at most `target` intervals of a natural
 * spacing, the axis ending on a tick (`end`), with the decimals its labels need.
 */
export function clockTicks(max: number, target = 5): { ticks: number[]; end: number; decimals: number } {
  if (!(max > 0)) return { ticks: [0, 1], end: 1, decimals: 0 };
  const step = CLOCK_STEPS.find((s) => max / s <= target) ?? 86400 * Math.ceil(max / (86400 * target));
  const n = Math.ceil(max / step - 1e-9);
  // rounded to a tenth: 3 × 0.1 is 0.30000000000000004
  const ticks = Array.from({ length: n + 1 }, (_, k) => Math.round(k * step * 10) / 10);
  return { ticks, end: ticks[n], decimals: step < 1 ? 1 : 0 };
}
