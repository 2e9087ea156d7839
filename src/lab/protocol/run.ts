// The run API: what a run worker (src/lab/worker/runHost.ts) answers, declared once. A new run
// command is a method here (and, when it addresses a running run by id, a name in RUN_COMMANDS);
// the bridge carries it, the page routes it to the run's worker and the run manager
// (src/lab/worker/runs.ts) implements it. Types and constants only.
import type { AdapterStart } from '../../loops/adapter_start';
import type { LoopEvent, RunPhaseKind } from '../../loops/events';
import type { LiveKnobs } from '../../loops/driver';
import type { AdapterReport, DeviceEvent } from './main';

export type { LiveKnobs };

/** What the page asks the worker to run; the worker validates `config` itself. */
export interface RunSpec {
  runId: string;
  /** a loop of the registry (src/loops/registry.ts); the worker refuses any other */
  loop: string;
  /** a base policy folder under public/models/ */
  policy: string;
  /** the loop's partial config (validated by the loop's validator in the worker) */
  config: unknown;
  /**
   * Continue the run `runId` from its latest checkpoint (after a reload or a lost device): the
   * checkpoint's parameters, optimiser state and config replace `policy`'s and `config`.
   */
  resume?: boolean;
  /** starting values of the loop's adapter sets, by name (a run continued from exported adapters; not with `resume`) */
  adapters?: AdapterStart[];
  /** the same from files the page exported (adapter safetensors with their config inside), read against the base policy in the worker */
  adapterFiles?: { file: string; bytes: Uint8Array }[];
}

/**
 * `starting`: loading the policy and building buffers; `pausing`: will pause at the next step
 * boundary (also during a single step); `paused` waits on a step boundary; `stopping`: ends after
 * the step in progress.
 */
export type RunState = 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'done' | 'stopped' | 'failed';

export interface RunStatus {
  state: RunState;
  /** last completed RL step (0 before the first) */
  step: number;
  totalSteps: number;
  /** RL steps per second of compute (pauses excluded), over the last few steps; null until known */
  stepsPerS: number | null;
  /** seconds of compute left at that rate; null until known */
  etaS: number | null;
  error: string | null;
  /** every time the run stopped on its own (bad step, device loss), oldest first; absent when none */
  halts?: RunHalt[];
  /** the step of the run's latest saved checkpoint; absent when none is saved yet */
  checkpointStep?: number;
  /** what a computing run is doing now (step: the step in progress or just evaluated); absent once it has ended */
  phase?: { kind: RunPhaseKind; step: number; detail: string; progress?: { done: number; total: number } };
}

/** A step the run stopped at by itself, with a message for the page (see src/lab/worker/halts.ts). */
export interface RunHalt {
  /** the step it concerns (for device loss: the last completed step) */
  step: number;
  kind: 'rejected' | 'nonfinite' | 'device-lost' | 'storage-full' | 'checkpoint-failed';
  message: string;
}

export type SamplesEvent = Extract<LoopEvent, { type: 'samples' }>;
export type RecordsEvent = Extract<LoopEvent, { type: 'records' }>;
export type EvalEvent = Extract<LoopEvent, { type: 'eval' }>;

/**
 * One run's events gathered over ~100 ms. Step metrics travel as a transferred matrix:
 * `metrics[i * keys.length + j]` is metric `keys[j]` of step `step[i]` (NaN where absent).
 */
export interface RunBatch {
  runId: string;
  step: Float64Array;
  seconds: Float64Array;
  keys: string[];
  metrics: Float64Array;
  samples: SamplesEvent[];
  /** curriculum records of the steps in this batch (each step's in one event) */
  records: RecordsEvent[];
  evals: EvalEvent[];
  status: RunStatus;
}

/** The commands that address a running run by its id. */
export interface RunCommands {
  /** Pause takes effect at the next step boundary (after the step's samples and evaluation). */
  pauseRun(runId: string): Promise<void>;
  resumeRun(runId: string): Promise<void>;
  /** On a paused run: exactly one more RL step, then paused again. */
  stepRun(runId: string): Promise<void>;
  stopRun(runId: string): Promise<void>;
  /**
   * Queues knob values for the run's next step (they merge with values queued before and not yet
   * taken); resolves with the step that will take them.
   */
  setRunKnobs(runId: string, knobs: Partial<LiveKnobs>): Promise<number>;
}

export type RunCommandName = keyof RunCommands;

/** Every name of RunCommands: each layer between the page and a run manager routes these by run id. */
export const RUN_COMMANDS: readonly RunCommandName[] = ['pauseRun', 'resumeRun', 'stepRun', 'stopRun', 'setRunKnobs'];

/** The run API: start a run (its batches stream to `onBatch`; resolves with the final status), then its commands. */
export interface RunApi extends RunCommands {
  startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus>;
}

/** The name the page gives a GPU run worker (the main worker and run workers share one module). */
export const RUN_WORKER_NAME = 'rlvr-lab-run';

/** A GPU run worker: the run API on a device of its own, opened before its run starts. */
export interface GpuRunWorkerApi extends RunApi {
  /** Finds an adapter and creates the run's own device; its events are the run's alone. */
  init(onEvent: (e: DeviceEvent) => void): Promise<AdapterReport>;
  /** An uploaded policy the run starts from (the main worker checked it first). */
  registerPolicy(name: string, safetensors: Uint8Array, configJson: string): Promise<void>;
  /** Debug command: destroys the run's device. */
  debugLoseDevice(): Promise<void>;
}

/** A CPU mode run worker: the run API on the float64 engine. */
export interface CpuRunWorkerApi extends RunApi {
  /** Answers once the worker's code has loaded: the page switches to CPU mode only then. */
  hello(): Promise<{ engine: 'cpu'; policy: string }>;
}
