// The main worker's API (src/lab/worker/mainHost.ts): the adapter panel, the self-test and its
// onnxruntime-web check, the demo, uploaded policies, and the checkpoints every worker of the page
// shares. Types only: the page and the worker both import them, nothing here runs.
import type { CrossPlayOptions, CrossPlayResult } from '../../loops/spec';
import type { AdapterSummary } from '../../gpu/device';

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
 * Things the engine reports on its own, outside any command. `runId` is set page side
 * (src/lab/page/lab.ts) when the event comes from the worker of that run alone.
 */
export type DeviceEvent =
  | { type: 'device-lost'; reason: string; message: string; runId?: string }
  | { type: 'gpu-error'; message: string; runId?: string };

/** What the main worker answers; function arguments are page callbacks (src/lab/bridge.ts). */
export interface MainApi {
  /** Finds the adapter and creates the device once; later calls return the same report. */
  init(onEvent: (e: DeviceEvent) => void): Promise<AdapterReport>;
  selfTestNames(): Promise<string[]>;
  runSelfTests(onResult: (row: SelfTestRow) => void): Promise<SelfTestSummary>;
  /** Runs base policy `policy` with onnxruntime-web and with the lab's kernels and compares them. */
  runOrtCheck(policy: string): Promise<OrtCheckResult>;
  startDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome>;
  stopDemo(): Promise<void>;
  /**
   * Offers an uploaded checkpoint as the base policy `name` (`upload:<file>`) to later runs; the
   * worker parses and checks it again and rejects with the problem.
   */
  registerPolicy(name: string, safetensors: Uint8Array, configJson: string): Promise<void>;
  /** Debug command: destroys the worker's GPU device to exercise the device-lost path. */
  debugLoseDevice(): Promise<void>;
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
