// The runs of the lab, worker side. Each run drives its loop (src/loops/driver.ts over the loop
// named in the registry) one event at a time, so a pause lands exactly on a step boundary, which
// the loop marks itself: after a step's metrics, samples, records, scheduled evaluation and
// checkpoint, before the next rollout starts. Several runs may exist at once; each holds its own
// engine and interleaves with the others at GPU waits. Checkpoint events go to the checkpoint
// store (a run resumes from its latest one after a reload or a lost device); a save that fails
// pauses the run and is tried again on resume.
import { withStartAdapters, type AdapterStart } from '../../loops/adapter_start';
import type { Gpu } from '../../gpu/runtime';
import type { GPTConfig } from '../../model/config';
import type { LoopCheckpoint, LoopEvent } from '../../loops/events';
import { driveLoop, evalDue, trainSettings, type LiveKnobs, type LoopControls } from '../../loops/driver';
import type { EngineInit, LoopEngine, TrainSettings } from '../../loops/engine';
import { loopNamed } from '../../loops/registry';
import type { BaseLoopConfig } from '../../loops/base_config';
import type { CrossPlayOptions, CrossPlayResult, LoopDefinition } from '../../loops/spec';
import { ROLE_LIMITS } from '../../world/index';
import { RunBatcher } from './runBatcher';
import { isQuotaError, type CheckpointStore, type RunCheckpoint, type RunHistory } from './checkpoints';
import { checkpointFailedHalt, deviceLostHalt, stepHalt, storageFullHalt } from './halts';
import type { RunBatch, RunHalt, RunSpec, RunState, RunStatus } from '../protocol';
import { errorText } from '../../util/errors';

/** What runs compute on: the GPU, or CPU mode's reference engine (never lost). */
export interface RunDevice {
  readonly isLost: boolean;
}

export interface BasePolicy {
  cfg: GPTConfig;
  params: Float32Array;
}

export interface RunDeps<D extends RunDevice = Gpu> {
  /** makes the engine a run trains on, on its device */
  createEngine(device: D, init: EngineInit, settings: TrainSettings): Promise<LoopEngine>;
  /** refuses a loop this worker cannot run (CPU mode: a loop without CPU support), saying why */
  checkLoop?(def: LoopDefinition<BaseLoopConfig>): void;
  /** the loop of a name (default: the registry's; tests pass loops of their own) */
  loopNamed?(name: string): LoopDefinition<BaseLoopConfig>;
  loadPolicy(name: string): Promise<BasePolicy>;
  /** where checkpoint events are saved and resumed runs load from; without one, checkpoints are dropped */
  checkpoints?: CheckpointStore;
  /** how often a run's events are sent to the page */
  batchIntervalMs?: number;
  now?: () => number;
}

/** How long a failed step waits for a device loss to be reported before calling it a plain failure. */
const LOSS_GRACE_MS = 250;

/** Steps whose wall time sets steps/s and the ETA. */
const RATE_WINDOW = 5;

const FINISHED_STATES: readonly RunState[] = ['done', 'stopped', 'failed'];

class Run {
  state: RunState = 'starting';
  step = 0;
  error: string | null = null;
  readonly halts: RunHalt[] = [];
  /** set once the device is lost: nothing may compute on it again */
  deviceLost: RunHalt | null = null;
  pauseWanted = false;
  /** the step of the latest checkpoint saved (null: none yet) */
  savedStep: number | null = null;
  /** a checkpoint whose save failed, saved again when the run resumes */
  unsaved: RunCheckpoint | null = null;
  /** every step and evaluation so far (a resumed run's starts with its checkpoint's) */
  history: RunHistory = { steps: [], evals: [] };
  /** steps still allowed while pauseWanted (single step) */
  stepBudget = 0;
  readonly abort = new AbortController();
  private wakeUp: (() => void) | null = null;
  /** seconds of the last few steps, evaluations and checkpoints excluded */
  readonly walls: number[] = [];
  /** seconds the latest evaluation took (null: none measured yet) */
  evalSeconds: number | null = null;
  /** what the run is doing now (null: between phases, or before the first) */
  phase: RunStatus['phase'] | null = null;
  /** knob values queued by the page, taken by the loop at the top of its next step */
  private knobs: Partial<LiveKnobs> | null = null;
  /** the loop took its knobs for step `step + 1` and computes it (until its step event) */
  inStep = false;
  readonly controls: LoopControls = {
    pending: () => {
      // the driver asks at the top of every step: from here until the step's event, it is computing
      this.inStep = true;
      const k = this.knobs;
      this.knobs = null;
      return k;
    },
  };
  /** sends the current status to the page (set once the run's batcher exists) */
  notify: () => void = () => undefined;

  constructor(readonly totalSteps: number, private readonly evalEvery: number) {}

  /** Evaluations still to come after step `step` (the loop's schedule, the last step's included). */
  evalsLeft(): number {
    let n = 0;
    for (let k = this.step + 1; k <= this.totalSteps; k++) if (evalDue({ steps: this.totalSteps, evalEvery: this.evalEvery }, k)) n++;
    return n;
  }

  status(): RunStatus {
    const n = this.walls.length;
    const total = this.walls.reduce((a, x) => a + x, 0);
    const stepsPerS = n > 0 && total > 0 ? n / total : null;
    // the steps left at the recent rate, and the evaluations left at the latest one's duration
    const etaS = stepsPerS === null ? null : Math.max(0, this.totalSteps - this.step) / stepsPerS + this.evalsLeft() * (this.evalSeconds ?? 0);
    const s: RunStatus = { state: this.state, step: this.step, totalSteps: this.totalSteps, stepsPerS, etaS, error: this.error };
    if (this.savedStep !== null) s.checkpointStep = this.savedStep;
    if (this.phase && !FINISHED_STATES.includes(this.state)) s.phase = this.phase;
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

  /** Queues knob values; returns the step that takes them (the one after the step in progress). */
  queueKnobs(k: Partial<LiveKnobs>): number {
    this.knobs = { ...this.knobs, ...k };
    return this.step + (this.inStep ? 2 : 1);
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

/** The loop's events, each shown to `observe` first (the CLI logs them as they come). */
async function* observed(gen: AsyncGenerator<LoopEvent>, observe: (e: LoopEvent) => void): AsyncGenerator<LoopEvent> {
  for await (const e of gen) {
    observe(e);
    yield e;
  }
}

/** The adapter sets a new run starts from, read from its files by its loop (one that trains adapter sets). */
function adapterFileStarts(def: LoopDefinition<BaseLoopConfig>, spec: RunSpec, cfg: GPTConfig): AdapterStart[] {
  const files = spec.adapterFiles ?? [];
  if (files.length === 0) return [];
  if (!def.adapterFiles) throw new Error(`${spec.loop} trains no adapter sets, so it cannot start from saved ones (${files.map((f) => f.file).join(', ')})`);
  return def.adapterFiles(files, cfg);
}

export class RunManager<D extends RunDevice = Gpu> {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly deps: RunDeps<D>) {}

  /** True while some run computes (starting, running, pausing or stopping). */
  get computing(): boolean {
    for (const r of this.runs.values()) if (r.state !== 'paused') return true;
    return false;
  }

  /**
   * Runs `spec` to its end; a config error rejects before anything starts. With `spec.resume`,
   * the run continues from its latest checkpoint (parameters, optimiser state, config).
   */
  async start(device: D, spec: RunSpec, send: (b: RunBatch) => void, observe?: (e: LoopEvent) => void): Promise<RunStatus> {
    if (this.runs.has(spec.runId)) throw new Error(`a run with id ${spec.runId} already exists`);
    const def = (this.deps.loopNamed ?? loopNamed)(spec.loop);
    this.deps.checkLoop?.(def);
    const from = spec.resume ? await this.loadCheckpoint(spec) : null;
    if (this.runs.has(spec.runId)) throw new Error(`a run with id ${spec.runId} already exists`);
    const config = def.spec.validate(from ? from.config : spec.config, spec.loop);
    const run = new Run(config.steps, config.evalEvery);
    if (from) {
      run.step = run.savedStep = from.step;
      run.history = { steps: [...from.history.steps], evals: [...from.history.evals], records: [...(from.history.records ?? [])] };
    }
    this.runs.set(spec.runId, run);
    const batcher = new RunBatcher(spec.runId, run.status(), send, this.deps.batchIntervalMs, this.deps.now);
    run.notify = () => batcher.setStatus(run.status());
    // the page drops a resumed run's charts and takes them from the checkpoint: what it archived may end earlier
    for (const e of [...run.history.evals, ...run.history.steps, ...(run.history.records ?? [])]) batcher.push(e);
    const setState = (state: RunState) => {
      run.state = state;
      run.notify();
    };
    const finish = () => {
      if (run.deviceLost) run.error = run.deviceLost.message;
      setState(run.deviceLost ? 'failed' : run.abort.signal.aborted ? 'stopped' : 'done');
    };
    let engine: LoopEngine | null = null;
    try {
      const policy = from ?? (await this.deps.loadPolicy(spec.policy));
      const ckptOf = (e: LoopCheckpoint): RunCheckpoint => ({
        ...e, runId: spec.runId, loop: spec.loop, policy: from?.policy ?? spec.policy, cfg: policy.cfg,
        history: { steps: [...run.history.steps], evals: [...run.history.evals], records: [...(run.history.records ?? [])] }, savedAt: Date.now(),
      });
      if (!run.abort.signal.aborted) {
        setState(run.pauseWanted ? 'pausing' : 'running');
        // the KL reference of a resumed run is still the policy it started from, not the checkpoint
        const reference = from ? await this.baseOf(from) : policy.params;
        const shape = def.spec.shape(config);
        // a new run may start its adapter sets from saved ones; a resumed run loads its checkpoint's
        const starts = from ? undefined : [...(spec.adapters ?? []), ...adapterFileStarts(def, spec, policy.cfg)];
        const adapters = withStartAdapters(spec.loop, shape.adapters, starts);
        engine = await this.deps.createEngine(device, { cfg: policy.cfg, params: policy.params, reference, ...shape, ...(adapters ? { adapters } : {}) }, trainSettings(config, policy.cfg.nPositions));
        // a resumed run's token budget counts on from the tokens its recorded steps generated
        const tokens = from ? from.history.steps.filter((e) => e.step <= from.step).reduce((a, e) => a + (e.metrics['tokens/generated'] ?? 0), 0) : 0;
        const resume = from ? { step: from.step, optimiser: from.optimiser, state: from.state, tokens, ...(from.adapters ? { adapters: from.adapters } : {}) } : undefined;
        // the evaluation's progress goes to the status line ("120 of 800 samples"), coalesced by the batcher
        const onEvalProgress = (step: number, done: number, total: number) => {
          if (run.phase?.kind !== 'evaluating') return;
          run.phase = { ...run.phase, step, progress: { done, total } };
          run.notify();
        };
        const gen = driveLoop(def, engine, config, { signal: run.abort.signal, controls: run.controls, resume, onEvalProgress });
        await this.drive(run, observe ? observed(gen, observe) : gen, batcher, setState, ckptOf);
      }
      finish();
    } catch (e) {
      // A destroyed device fails the step's readback before its loss is reported (a later
      // task): give the report a moment, so the run says the device was lost rather than
      // quoting the failed call.
      if (!run.deviceLost) await new Promise((r) => setTimeout(r, LOSS_GRACE_MS));
      if (!run.deviceLost && device.isLost) run.halt((run.deviceLost = deviceLostHalt(run.step, 'lost', '')));
      run.error = run.deviceLost ? run.deviceLost.message : errorText(e);
      setState('failed');
    } finally {
      engine?.destroy();
      batcher.flush();
      // a resumed run of the same id may already have taken the slot
      if (this.runs.get(spec.runId) === run) this.runs.delete(spec.runId);
    }
    return run.status();
  }

  /** The parameters of the base policy a checkpointed run started from (its frozen reference). */
  private async baseOf(c: RunCheckpoint): Promise<Float32Array> {
    try {
      return (await this.deps.loadPolicy(c.policy)).params;
    } catch (e) {
      throw new Error(`run ${c.runId} cannot resume: its base policy "${c.policy}" (the frozen reference of its KL term) could not be loaded: ${errorText(e)}`);
    }
  }

  private async loadCheckpoint(spec: RunSpec): Promise<RunCheckpoint> {
    const store = this.deps.checkpoints;
    if (!store) throw new Error(`run ${spec.runId} cannot resume: this engine keeps no checkpoints`);
    const c = await store.load(spec.runId);
    if (!c) throw new Error(`run ${spec.runId} has no checkpoint to resume from`);
    if (c.loop !== spec.loop) throw new Error(`the checkpoint of run ${spec.runId} belongs to loop ${c.loop}, not ${spec.loop}`);
    return c;
  }

  private async drive(
    run: Run, gen: AsyncGenerator<LoopEvent>, batcher: RunBatcher, setState: (s: RunState) => void, ckptOf: (e: LoopCheckpoint) => RunCheckpoint,
  ): Promise<void> {
    const now = this.deps.now ?? (() => performance.now());
    // a step's wall time runs from its boundary to its evaluation or checkpoint (or next
    // boundary): evaluations are timed apart, so the rate and the ETA do not jump around them
    let sawStep = false;
    let t0 = now();
    let evalStart: number | null = null;
    const endStep = () => {
      if (sawStep) run.recordWall((now() - t0) / 1000);
      sawStep = false;
    };
    for await (const e of gen) {
      if (e.type === 'done') continue;
      if (e.type === 'checkpoint') {
        await this.save(run, ckptOf(e));
      } else if (e.type === 'phase') {
        if (e.phase !== 'step') endStep();
        if (e.phase === 'evaluating') evalStart = now();
        run.phase = { kind: e.phase, step: e.step, detail: e.detail };
        run.notify();
      } else if (e.type === 'step') {
        run.history.steps.push(e);
        run.step = e.step;
        run.inStep = false;
        sawStep = true;
        const h = stepHalt(e.step, e.metrics);
        if (h) run.halt(h);
        // the status's step moves with the chart's new point: the status first, then the point
        run.notify();
        batcher.push(e);
      } else if (e.type === 'boundary') {
        // the loop has yielded everything of this step: a pause lands here
        endStep();
        run.phase = null;
        run.notify();
        await this.boundary(run, setState);
        await this.saveAgain(run, setState);
        t0 = now();
      } else {
        batcher.push(e);
        if (e.type === 'eval') {
          run.history.evals.push(e);
          if (evalStart !== null) run.evalSeconds = (now() - evalStart) / 1000;
          evalStart = null;
        }
        if (e.type === 'records') (run.history.records ??= []).push(e);
      }
    }
  }

  /** Saves a checkpoint; a failure pauses the run with a halt and keeps the checkpoint to save again. */
  private async save(run: Run, ck: RunCheckpoint): Promise<void> {
    const store = this.deps.checkpoints;
    // after a loss, what was read back from the device is not to be trusted
    if (!store || run.deviceLost) return;
    try {
      await store.save(ck);
      // loops with analyses over their history keep the parameters of each checkpoint (thinned)
      const keep = (this.deps.loopNamed ?? loopNamed)(ck.loop).spec.snapshots;
      if (keep) await store.saveSnapshot(ck.runId, ck.step, ck.params, keep);
      run.savedStep = ck.step;
      run.unsaved = null;
      run.notify();
    } catch (e) {
      run.unsaved = ck;
      run.halt(isQuotaError(e) ? storageFullHalt(ck.step, run.savedStep) : checkpointFailedHalt(ck.step, run.savedStep, errorText(e)));
    }
  }

  /** A resumed run whose checkpoint failed to save tries again before its next step; a new failure pauses it again. */
  private async saveAgain(run: Run, setState: (s: RunState) => void): Promise<void> {
    while (run.unsaved && !run.abort.signal.aborted && !run.deviceLost) {
      await this.save(run, run.unsaved);
      if (run.unsaved) await this.boundary(run, setState);
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

  /**
   * The device is gone, and every run's buffers with it: each run says so and ends as failed
   * (a paused one at once, a computing one when its step fails); resume and step refuse. A new
   * run of the same id on a new device continues from the latest checkpoint.
   */
  deviceLost(reason: string, message: string): void {
    for (const run of this.runs.values()) {
      if (run.deviceLost) continue;
      run.deviceLost = deviceLostHalt(run.step, reason, message);
      run.halt(run.deviceLost);
      run.abort.abort();
      run.wake();
    }
  }

  /**
   * The cross-play matrix of a run (its loop's crossPlay) from its snapshots, with the run's
   * starting policy as step 0: one engine at a time on `device`, progress after each.
   */
  async crossPlay(device: D, runId: string, opts: CrossPlayOptions, onProgress: (done: number, total: number) => void): Promise<CrossPlayResult> {
    const store = this.deps.checkpoints;
    if (!store) throw new Error('this engine keeps no checkpoints, so it has no snapshots to play against each other');
    if (this.runs.has(runId)) throw new Error(`run ${runId} is still computing; cross-play reads its checkpoints once it has ended (pause does not end it: stop it, or let it finish)`);
    const c = await store.load(runId);
    if (!c) throw new Error(`run ${runId} has no checkpoint: cross-play needs the run's checkpoints (checkpointEvery > 0)`);
    const def = (this.deps.loopNamed ?? loopNamed)(c.loop);
    if (!def.crossPlay) throw new Error(`the ${c.loop} loop has no cross-play`);
    const config = def.spec.validate(c.config, c.loop);
    const steps = (await store.snapshotSteps(runId)).filter((s) => s > 0);
    const snapshots = [{ step: 0, params: await this.baseOf(c) }];
    for (const s of steps) {
      const params = await store.loadSnapshot(runId, s);
      if (params) snapshots.push({ step: s, params });
    }
    if (snapshots.length < 2) throw new Error(`run ${runId} kept no snapshot beyond its start (it ran before snapshots were kept, or saved no checkpoint)`);
    const settings = trainSettings(config, ROLE_LIMITS.solve.response);
    // the loop sizes its passes (decodeBatch); cross-play only samples, so one training row
    const engineFor = (params: Float32Array, decodeBatch: number) => this.deps.createEngine(device, { cfg: c.cfg, params, reference: params, trainRows: 1, decodeBatch }, settings);
    return def.crossPlay(config, snapshots, engineFor, opts, onProgress);
  }

  /** True while the run is in this manager (from its start until it has ended). */
  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  private get(runId: string): Run {
    const run = this.runs.get(runId);
    if (!run) throw new Error(`no active run with id ${runId} (it has ended)`);
    return run;
  }

  pauseRun(runId: string): void {
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

  resumeRun(runId: string): void {
    const run = this.get(runId);
    this.refuseAfterLoss(run);
    run.pauseWanted = false;
    run.stepBudget = 0;
    if (run.state === 'pausing') run.state = 'running';
    run.notify();
    run.wake();
  }

  /** One more RL step of a paused (or pausing) run, then paused again. */
  stepRun(runId: string): void {
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
  /** Returns the step that will take them: the next one, or the one after the step in progress. */
  setRunKnobs(runId: string, knobs: Partial<LiveKnobs>): number {
    const run = this.get(runId);
    this.refuseAfterLoss(run);
    if (run.state === 'stopping') throw new Error(`run ${runId} is stopping; its knobs can no longer change`);
    return run.queueKnobs(knobs);
  }

  stopRun(runId: string): void {
    const run = this.get(runId);
    run.abort.abort();
    if (run.state !== 'starting') run.state = 'stopping';
    run.notify();
    run.wake();
  }

}
