// The runs of the lab, worker side. Each run drives its loop's async generator one event at a
// time, so a pause lands exactly on a step boundary: after a step's metrics, samples and
// scheduled evaluation, before the next rollout starts. Several runs may exist at once; each
// holds its own model buffers and interleaves with the others at GPU waits.
import type { Gpu } from '../gpu/runtime';
import type { GPTConfig } from '../model/config';
import type { LoopEvent } from '../loops/events';
import type { LiveKnobs, LoopControls } from '../loops/grpo';
import { RunBatcher } from './runBatcher';
import { deviceLostHalt, stepHalt } from './halts';
import type { LoopName, RunBatch, RunHalt, RunSpec, RunState, RunStatus } from './protocol';

/** A validated loop, ready to start. */
export interface PreparedLoop {
  steps: number;
  /** `controls` hands the loop the knob values queued since its last step */
  start(gpu: Gpu, cfg: GPTConfig, init: Float32Array, signal: AbortSignal, controls: LoopControls): AsyncGenerator<LoopEvent>;
  /** the event types that follow the `step` event of `step` before the next step begins (step 0: before the first) */
  tail(step: number): readonly ('samples' | 'eval')[];
}

/** Validates an untrusted partial config (throws with the validator's message) and prepares the loop. */
export type LoopFactory = (config: unknown) => PreparedLoop;

export interface BasePolicy {
  cfg: GPTConfig;
  params: Float32Array;
}

export interface RunDeps {
  loops: Readonly<Record<LoopName, LoopFactory>>;
  loadPolicy(name: string): Promise<BasePolicy>;
  /** how often a run's events are sent to the page */
  batchIntervalMs?: number;
  now?: () => number;
}

/** How long a failed step waits for a device loss to be reported before calling it a plain failure. */
const LOSS_GRACE_MS = 250;

/** Steps whose wall time sets steps/s and the ETA. */
const RATE_WINDOW = 5;

class Run {
  state: RunState = 'starting';
  step = 0;
  error: string | null = null;
  readonly halts: RunHalt[] = [];
  /** set once the device is lost: nothing may compute on it again */
  deviceLost: RunHalt | null = null;
  pauseWanted = false;
  /** steps still allowed while pauseWanted (single step) */
  stepBudget = 0;
  readonly abort = new AbortController();
  private wakeUp: (() => void) | null = null;
  readonly walls: number[] = [];
  /** knob values queued by the page, taken by the loop at the top of its next step */
  private knobs: Partial<LiveKnobs> | null = null;
  readonly controls: LoopControls = {
    pending: () => {
      const k = this.knobs;
      this.knobs = null;
      return k;
    },
  };
  /** sends the current status to the page (set once the run's batcher exists) */
  notify: () => void = () => undefined;

  constructor(readonly totalSteps: number) {}

  status(): RunStatus {
    const n = this.walls.length;
    const total = this.walls.reduce((a, x) => a + x, 0);
    const stepsPerS = n > 0 && total > 0 ? n / total : null;
    const etaS = stepsPerS === null ? null : Math.max(0, this.totalSteps - this.step) / stepsPerS;
    const s: RunStatus = { state: this.state, step: this.step, totalSteps: this.totalSteps, stepsPerS, etaS, error: this.error };
    return this.halts.length > 0 ? { ...s, halts: [...this.halts] } : s;
  }

  /** Stops the run at the next step boundary and says why. */
  halt(h: RunHalt): void {
    this.halts.push(h);
    this.pauseWanted = true;
    this.stepBudget = 0;
    if (this.state === 'running') this.state = 'pausing';
    this.notify();
  }

  queueKnobs(k: Partial<LiveKnobs>): void {
    this.knobs = { ...this.knobs, ...k };
  }

  recordWall(seconds: number): void {
    this.walls.push(seconds);
    if (this.walls.length > RATE_WINDOW) this.walls.shift();
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.wakeUp = resolve));
  }

  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class RunManager {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly deps: RunDeps) {}

  /** True while some run computes (starting, running, pausing or stopping). */
  get computing(): boolean {
    for (const r of this.runs.values()) if (r.state !== 'paused') return true;
    return false;
  }

  /** Runs `spec` to its end; a config error rejects before anything starts. */
  async start(gpu: Gpu, spec: RunSpec, send: (b: RunBatch) => void): Promise<RunStatus> {
    if (this.runs.has(spec.runId)) throw new Error(`a run with id ${spec.runId} already exists`);
    const factory = this.deps.loops[spec.loop];
    if (!factory) throw new Error(`unknown loop "${spec.loop}"; available: ${Object.keys(this.deps.loops).join(', ')}`);
    const loop = factory(spec.config);
    const run = new Run(loop.steps);
    this.runs.set(spec.runId, run);
    const batcher = new RunBatcher(spec.runId, run.status(), send, this.deps.batchIntervalMs, this.deps.now);
    run.notify = () => batcher.setStatus(run.status());
    const setState = (state: RunState) => {
      run.state = state;
      run.notify();
    };
    try {
      const policy = await this.deps.loadPolicy(spec.policy);
      if (run.abort.signal.aborted) {
        setState('stopped');
      } else {
        setState(run.pauseWanted ? 'pausing' : 'running');
        await this.drive(run, loop, loop.start(gpu, policy.cfg, policy.params, run.abort.signal, run.controls), batcher, setState);
        setState(run.abort.signal.aborted ? 'stopped' : 'done');
      }
    } catch (e) {
      // A destroyed device fails the step's readback before its loss is reported (a later
      // task): give the report a moment, so the run says the device was lost rather than
      // quoting the failed call.
      if (!run.deviceLost) await new Promise((r) => setTimeout(r, LOSS_GRACE_MS));
      if (!run.deviceLost && gpu.isLost) run.halt((run.deviceLost = deviceLostHalt(run.step, 'lost', '')));
      run.error = run.deviceLost ? run.deviceLost.message : errorMessage(e);
      setState('failed');
    } finally {
      batcher.flush();
      this.runs.delete(spec.runId);
    }
    return run.status();
  }

  private async drive(run: Run, loop: PreparedLoop, gen: AsyncGenerator<LoopEvent>, batcher: RunBatcher, setState: (s: RunState) => void): Promise<void> {
    const now = this.deps.now ?? (() => performance.now());
    let pending = new Set(loop.tail(0));
    let sawStep = false;
    let t0 = now();
    for (;;) {
      const r = await gen.next();
      if (r.done) return;
      const e = r.value;
      if (e.type === 'done') continue;
      batcher.push(e);
      if (e.type === 'step') {
        run.step = e.step;
        sawStep = true;
        const h = stepHalt(e.step, e.metrics);
        if (h) run.halt(h);
        pending = new Set(loop.tail(e.step));
      } else {
        pending.delete(e.type);
      }
      if (pending.size > 0) continue;
      if (sawStep) run.recordWall((now() - t0) / 1000);
      sawStep = false;
      run.notify();
      await this.boundary(run, setState);
      t0 = now();
    }
  }

  /** At a step boundary: waits while paused; a single step lets exactly one step through. */
  private async boundary(run: Run, setState: (s: RunState) => void): Promise<void> {
    if (run.abort.signal.aborted || !run.pauseWanted) return;
    if (run.stepBudget > 0) {
      run.stepBudget--;
      return;
    }
    setState('paused');
    while (run.pauseWanted && run.stepBudget === 0 && !run.abort.signal.aborted) await run.wait();
    if (run.abort.signal.aborted) return setState('stopping');
    if (run.stepBudget > 0) {
      run.stepBudget--;
      return setState('pausing');
    }
    setState('running');
  }

  /** The device is gone: every run stops where it is and says so; resume and step refuse. */
  deviceLost(reason: string, message: string): void {
    for (const run of this.runs.values()) {
      if (run.deviceLost) continue;
      run.deviceLost = deviceLostHalt(run.step, reason, message);
      run.halt(run.deviceLost);
    }
  }

  private get(runId: string): Run {
    const run = this.runs.get(runId);
    if (!run) throw new Error(`no active run with id ${runId} (it has ended)`);
    return run;
  }

  pause(runId: string): void {
    const run = this.get(runId);
    if (run.pauseWanted || run.state === 'stopping') return;
    run.pauseWanted = true;
    run.stepBudget = 0;
    if (run.state === 'running') run.state = 'pausing';
    run.notify();
  }

  private refuseAfterLoss(run: Run): void {
    if (run.deviceLost) throw new Error(run.deviceLost.message);
  }

  resume(runId: string): void {
    const run = this.get(runId);
    this.refuseAfterLoss(run);
    run.pauseWanted = false;
    run.stepBudget = 0;
    if (run.state === 'pausing') run.state = 'running';
    run.notify();
    run.wake();
  }

  /** One more RL step of a paused (or pausing) run, then paused again. */
  step(runId: string): void {
    const run = this.get(runId);
    this.refuseAfterLoss(run);
    if (run.state !== 'paused') throw new Error(`run ${runId} is ${run.state}; single steps need a paused run`);
    run.stepBudget = 1;
    run.wake();
  }

  /**
   * Queues knob values for the run's next step. The loop validates them when it takes them; a
   * rejection fails the run with the validator's message (the page checks them first).
   */
  setKnobs(runId: string, knobs: Partial<LiveKnobs>): void {
    const run = this.get(runId);
    this.refuseAfterLoss(run);
    if (run.state === 'stopping') throw new Error(`run ${runId} is stopping; its knobs can no longer change`);
    run.queueKnobs(knobs);
  }

  stop(runId: string): void {
    const run = this.get(runId);
    run.abort.abort();
    if (run.state !== 'starting') run.state = 'stopping';
    run.notify();
    run.wake();
  }

}
