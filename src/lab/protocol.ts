// Types that cross the worker boundary. Both sides import them; nothing here runs code.
import type { AdapterSummary } from '../gpu/device';

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

/** Things the engine reports on its own, outside any command. */
export type EngineEvent =
  | { type: 'device-lost'; reason: string; message: string }
  | { type: 'gpu-error'; message: string };

/** What the page needs from the engine; the store depends on this, not on the worker. */
export interface LabClient {
  init(onEvent: (e: EngineEvent) => void): Promise<AdapterReport>;
  selfTestNames(): Promise<string[]>;
  runSelfTests(onResult: (row: SelfTestRow) => void): Promise<SelfTestSummary>;
  startDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome>;
  stopDemo(): Promise<void>;
  /** Debug command: destroys the GPU device to exercise the device-lost path. */
  debugLoseDevice(): Promise<void>;
}
