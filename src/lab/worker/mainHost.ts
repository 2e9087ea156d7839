// The main worker's host (protocol/main.ts), free of Comlink and the DOM so it reads (and tests)
// as plain code: it holds the page's main GPU device for its life, runs the self-test, its
// onnxruntime-web check and the demo one at a time, checks uploaded policies, and serves the
// checkpoints every worker of the page shares. Runs train in workers of their own
// (runHost.ts); the page (src/lab/page/lab.ts) keeps them and these jobs apart.
// gpu.worker.ts serves it to the page.
import type { SelfTest } from '../../selftest/selftest';
import { runOrtCheck } from '../../selftest/ortcheck';
import type { runMemoriseDemo } from '../../selftest/demo';
import type { CrossPlayOptions, CrossPlayResult } from '../../loops/spec';
import type { Served } from '../bridge';
import type { AdapterReport, CheckpointFile, CheckpointFormat, CheckpointInfo, DemoBatch, DemoOptions, DemoOutcome, DeviceEvent, MainApi, OrtCheckResult, SelfTestRow, SelfTestSummary } from '../protocol/main';
import { StepBatcher } from './stepBatcher';
import { RunManager, type RunDeps } from './runs';
import { checkpointFile } from './checkpointExport';
import type { CheckpointStore } from './checkpoints';
import { DeviceSlot, type GpuProvider } from './device';
import { errorText } from '../../util/errors';

export interface MainHostDeps {
  gpu: GpuProvider;
  selfTests: readonly SelfTest[];
  memoriseDemo: typeof runMemoriseDemo;
  /** base policies and the checkpoint store (cross-play reads a run's snapshots with them) */
  runs: RunDeps;
  /** checks an uploaded policy and offers it to later runs (throws with the problem) */
  registerPolicy?(name: string, safetensors: Uint8Array, configJson: string): void;
  /** how often demo steps are sent to the page */
  batchIntervalMs?: number;
}

type Job = 'self-test' | 'demo';

export class MainHost implements Served<MainApi> {
  private readonly device: DeviceSlot;
  private job: Job | null = null;
  private demoAbort: AbortController | null = null;
  /** holds no runs: it reads ended runs' snapshots for cross-play */
  private readonly runs: RunManager;

  constructor(private readonly deps: MainHostDeps) {
    this.device = new DeviceSlot(deps.gpu);
    this.runs = new RunManager(deps.runs);
  }

  init(onEvent: (e: DeviceEvent) => void): Promise<AdapterReport> {
    return this.device.init(onEvent);
  }

  reconnect(): Promise<AdapterReport> {
    return this.device.reconnect();
  }

  selfTestNames(): string[] {
    return this.deps.selfTests.map((t) => t.name);
  }

  /** Runs every check in order; a check that throws is a failed row, and the run goes on. */
  async runSelfTests(onResult: (row: SelfTestRow) => void): Promise<SelfTestSummary> {
    const gpu = this.claim('self-test');
    const summary: SelfTestSummary = { passed: 0, failed: 0 };
    try {
      for (const [index, test] of this.deps.selfTests.entries()) {
        const t0 = performance.now();
        let row: SelfTestRow;
        try {
          const r = await test.run(gpu);
          row = { index, name: test.name, ok: r.ok, maxAbs: r.maxAbs, ms: performance.now() - t0, message: r.message };
        } catch (e) {
          row = { index, name: test.name, ok: false, maxAbs: NaN, ms: performance.now() - t0, message: `threw: ${errorText(e)}` };
        }
        if (row.ok) summary.passed++;
        else summary.failed++;
        onResult(row);
      }
    } finally {
      this.job = null;
    }
    return summary;
  }

  /** The independent check of base policy `name` with onnxruntime-web (src/selftest/ortcheck.ts); a self-test job. */
  async runOrtCheck(name: string): Promise<OrtCheckResult> {
    const gpu = this.claim('self-test');
    try {
      return await runOrtCheck(gpu, name, await this.deps.runs.loadPolicy(name));
    } finally {
      this.job = null;
    }
  }

  async startDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome> {
    const gpu = this.claim('demo');
    const abort = new AbortController();
    this.demoAbort = abort;
    const batcher = new StepBatcher(runId, onBatch, this.deps.batchIntervalMs);
    try {
      await this.deps.memoriseDemo(gpu, opts, (e) => batcher.push(e), abort.signal);
      return abort.signal.aborted ? 'stopped' : 'done';
    } catch (e) {
      // a demo that rejects because it was asked to stop has stopped, not failed
      if (abort.signal.aborted) return 'stopped';
      throw e;
    } finally {
      batcher.flush();
      this.demoAbort = null;
      this.job = null;
    }
  }

  stopDemo(): void {
    this.demoAbort?.abort();
  }

  registerPolicy(name: string, safetensors: Uint8Array, configJson: string): void {
    if (!this.deps.registerPolicy) throw new Error('this engine takes no uploaded policies');
    this.deps.registerPolicy(name, safetensors, configJson);
  }

  /** A finished run's cross-play matrix from its snapshots (its loop must have one); progress after each checkpoint's pass. */
  crossPlay(runId: string, opts: CrossPlayOptions, onProgress: (done: number, total: number) => void): Promise<CrossPlayResult> {
    const gpu = this.device.require();
    this.refuseDuringJob();
    return this.runs.crossPlay(gpu, runId, opts, onProgress);
  }

  private get checkpoints(): CheckpointStore {
    const store = this.deps.runs.checkpoints;
    if (!store) throw new Error('this engine keeps no checkpoints');
    return store;
  }

  listCheckpoints(): Promise<CheckpointInfo[]> {
    return this.checkpoints.list();
  }

  /** The page refuses the checkpoints of runs still active (src/lab/page/lab.ts). */
  async deleteCheckpoints(runIds: readonly string[]): Promise<void> {
    for (const id of runIds) await this.checkpoints.remove(id);
  }

  async exportCheckpoint(runId: string, format: CheckpointFormat): Promise<CheckpointFile> {
    const c = await this.checkpoints.load(runId);
    if (!c) throw new Error(`run ${runId} has no checkpoint yet (one is saved every checkpointEvery steps and at the end)`);
    return checkpointFile(c, format);
  }

  debugLoseDevice(): void {
    this.device.lose();
  }

  private refuseDuringJob(): void {
    if (this.job) throw new Error(`the engine is busy with the ${this.job}; wait for it to finish`);
  }

  /** One job at a time on this device; runs on other devices are kept apart by the page. */
  private claim(job: Job): ReturnType<DeviceSlot['require']> {
    const gpu = this.device.require();
    this.refuseDuringJob();
    this.job = job;
    return gpu;
  }
}
