// Types that cross the worker boundary. Both sides import them; nothing here runs code.
import type { AdapterStart } from '../loops/adapter_start';
import type { CrossPlayOptions, CrossPlayResult } from '../loops/spec';
import type { AdapterSummary } from '../gpu/device';
import type { LoopEvent, RunPhaseKind } from '../loops/events';
import type { LiveKnobs } from '../loops/driver';
import type { RunCommands } from './runCommands';

export type { LiveKnobs };

/** Why there is no engine: decides which explanation the page shows. */
export type NoGpuReason = 'no-webgpu' | 'insecure-context' | 'no-adapter' | 'device-failed';

export type AdapterReport =
  | {
      ok: true;
      adapter: AdapterSummary;
      /** limits of the device actually created (what kernels may use) */
      deviceLimits: Record<string, number>;
    }
  | { ok: false; reason: NoGpuReason; message: string };

/** One finished self-test check, streamed to the page as soon as it ends. */
export interface SelfTestRow {
  index: number;
  name: string;
  ok: boolean;
  maxAbs: number;
  ms: number;
  message: string;
}

/**
 * The self-test's independent check (src/selftest/ortcheck.ts): the policy run by onnxruntime-web
 * beside the lab's kernels on the same greedy sequences.
 */
export interface OrtCheckResult {
  policy: string;
  /** onnxruntime-web's backend that ran; `fallback` says why WebGPU did not (null when it did) */
  backend: 'webgpu' | 'wasm';
  fallback: string | null;
  rows: number;
  promptLen: number;
  newTokens: number;
  /** a logit passes when |ORT - ours| <= atol + rtol·|ours| */
  tolerance: { atol: number; rtol: number };
  /** the largest difference of any logit, absolute and relative */
  maxAbs: number;
  maxRel: number;
  logitsOk: boolean;
  /** generated positions compared, where ORT's greedy choice equals the lab's, and near ties */
  tokensCompared: number;
  tokensAgree: number;
  nearTies: number;
  tokensOk: boolean;
  /** both agree: logits within the tolerance and no greedy token differs beyond a near tie */
  ok: boolean;
  message: string;
  ms: number;
}

export interface SelfTestSummary {
  passed: number;
  failed: number;
}

export interface DemoOptions {
  phrase: string;
  steps: number;
  seed: number;
}

/** Training steps of one demo run gathered over ~100 ms; the arrays are transferred, not copied. */
export interface DemoBatch {
  runId: number;
  step: Float64Array;
  loss: Float64Array;
  tokensPerS: Float64Array;
}

export type DemoOutcome = 'done' | 'stopped';

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

/** A run's latest checkpoint in the worker's store. */
export interface CheckpointInfo {
  runId: string;
  /** the completed steps it holds */
  step: number;
  bytes: number;
  savedAt: number;
}

/**
 * the policy as safetensors or ONNX, one adapter set of a loop that trains them (`adapter:<name>`,
 * PEFT names), or a zip: the Hugging Face model folder (`hf`) or a TRL / veRL recipe of the run
 */
export type CheckpointFormat = 'safetensors' | 'onnx' | 'hf' | 'recipe:trl' | 'recipe:verl' | `adapter:${string}`;

/** A checkpoint's policy as a file to download. */
export interface CheckpointFile {
  filename: string;
  mime: string;
  bytes: Uint8Array;
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

/** A step the run stopped at by itself, with a message for the page (see lab/halts.ts). */
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

/**
 * Things the engine reports on its own, outside any command. `runId` is set page side
 * (lab/runWorkers.ts) when the event comes from the worker of that run alone.
 */
export type EngineEvent =
  | { type: 'device-lost'; reason: string; message: string; runId?: string }
  | { type: 'gpu-error'; message: string; runId?: string };

/** The run commands of LabClient: all that CPU mode's worker (src/lab/cpu.worker.ts) answers. */
export type RunClient = Pick<LabClient, 'startRun' | 'pauseRun' | 'resumeRun' | 'stepRun' | 'stopRun' | 'setRunKnobs'>;

/** What the page needs from the engine; the store depends on this, not on the worker. */
export interface LabClient extends RunCommands {
  init(onEvent: (e: EngineEvent) => void): Promise<AdapterReport>;
  selfTestNames(): Promise<string[]>;
  runSelfTests(onResult: (row: SelfTestRow) => void): Promise<SelfTestSummary>;
  /** Runs base policy `policy` with onnxruntime-web and with the lab's kernels and compares them. */
  runOrtCheck(policy: string): Promise<OrtCheckResult>;
  startDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome>;
  stopDemo(): Promise<void>;
  /** Runs a loop until it ends; batches stream to `onBatch`; resolves with the final status. */
  startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus>;
  /**
   * Offers an uploaded checkpoint as the base policy `name` (`upload:<file>`) to later runs; the
   * worker parses and checks it again and rejects with the problem.
   */
  registerPolicy(name: string, safetensors: Uint8Array, configJson: string): Promise<void>;
  /**
   * Debug command: destroys a GPU device to exercise the device-lost path: that of the run's
   * own worker, or without a run that of the page's main engine.
   */
  debugLoseDevice(runId?: string): Promise<void>;
  /** After a device loss: finds an adapter and creates a new device (runs then resume from checkpoints). */
  reconnect(): Promise<AdapterReport>;
  /** Every run's latest checkpoint, oldest first. */
  listCheckpoints(): Promise<CheckpointInfo[]>;
  deleteCheckpoints(runIds: string[]): Promise<void>;
  /** The latest checkpoint's policy as safetensors (Hugging Face GPT-2 names) or ONNX. */
  exportCheckpoint(runId: string, format: CheckpointFormat): Promise<CheckpointFile>;
  /**
   * A finished run's cross-play matrix (its loop's), from the parameter snapshots kept with its
   * checkpoints and its starting policy; `onProgress` hears after each checkpoint's pass.
   */
  crossPlay(runId: string, opts: CrossPlayOptions, onProgress: (done: number, total: number) => void): Promise<CrossPlayResult>;
}
