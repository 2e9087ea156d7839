// The lab's host behind the worker boundary, free of Comlink and the DOM so it reads (and tests)
// as plain code: it holds the GPU device for its life, runs the self-test and the demo one at a
// time, hosts the runs (each on a WebGPU engine, src/engines/webgpu/engine.ts) and reports device
// events. engine.worker.ts exposes it to the page. ("Engine" means a LoopEngine: webgpu or cpu.)
import type { AdapterSummary } from '../gpu/device';
import type { Gpu } from '../gpu/runtime';
import type { SelfTest } from '../selftest/selftest';
import { runOrtCheck } from '../selftest/ortcheck';
import type { runMemoriseDemo } from '../selftest/demo';
import { StepBatcher } from './stepBatcher';
import { RunManager, type RunDeps } from './runs';
import { checkpointFile } from './checkpointExport';
import type { CheckpointStore } from './checkpoints';
import type { CrossPlayOptions, CrossPlayResult } from '../loops/spec';
import type { AdapterReport, CheckpointFile, CheckpointFormat, CheckpointInfo, LiveKnobs, DemoBatch, DemoOptions, DemoOutcome, EngineEvent, OrtCheckResult, NoGpuReason, RunBatch, RunSpec, RunStatus, SelfTestRow, SelfTestSummary } from './protocol';

export interface GpuProvider {
  requestAdapter(): Promise<{ adapter: GPUAdapter; summary: AdapterSummary }>;
  createGpu(adapter: GPUAdapter): Promise<Gpu>;
}

export interface LabHostDeps {
  gpu: GpuProvider;
  selfTests: readonly SelfTest[];
  memoriseDemo: typeof runMemoriseDemo;
  /** loops and base policies of the lab's runs */
  runs: RunDeps;
  /** how often demo steps are sent to the page */
  batchIntervalMs?: number;
}

type Job = 'self-test' | 'demo';

/** Device limits shown beside the adapter's: the ones kernels are sized by. */
const DEVICE_LIMITS = ['maxStorageBuffersPerShaderStage', 'maxComputeWorkgroupsPerDimension', 'maxComputeWorkgroupStorageSize', 'maxStorageBufferBindingSize', 'maxBufferSize'] as const;

function noGpuReason(): NoGpuReason {
  const nav = (globalThis as { navigator?: { gpu?: unknown } }).navigator;
  if (nav?.gpu) return 'no-adapter';
  return globalThis.isSecureContext === false ? 'insecure-context' : 'no-webgpu';
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class LabHost {
  private gpu: Gpu | null = null;
  private report: Promise<AdapterReport> | null = null;
  private job: Job | null = null;
  private demoAbort: AbortController | null = null;
  private onEvent: ((e: EngineEvent) => void) | null = null;
  private readonly runs: RunManager;

  constructor(private readonly deps: LabHostDeps) {
    this.runs = new RunManager(deps.runs);
  }

  /** Finds the adapter and creates the device once; later calls return the same report. */
  init(onEvent: (e: EngineEvent) => void): Promise<AdapterReport> {
    this.onEvent ??= onEvent;
    this.report ??= this.connect(onEvent);
    return this.report;
  }

  /**
   * After a device loss: finds an adapter and creates a new device. Runs on the lost device have
   * ended (runs.ts); the page starts them again from their checkpoints on the new one.
   */
  reconnect(): Promise<AdapterReport> {
    if (!this.onEvent) throw new Error('the engine has not been started yet');
    if (this.gpu && !this.gpu.isLost) throw new Error('the GPU device is still working; there is nothing to reconnect');
    this.gpu = null;
    this.report = this.connect(this.onEvent);
    return this.report;
  }

  private async connect(onEvent: (e: EngineEvent) => void): Promise<AdapterReport> {
    let found: { adapter: GPUAdapter; summary: AdapterSummary };
    try {
      found = await this.deps.gpu.requestAdapter();
    } catch (e) {
      return { ok: false, reason: noGpuReason(), message: errorMessage(e) };
    }
    try {
      this.gpu = await this.deps.gpu.createGpu(found.adapter);
    } catch (e) {
      return { ok: false, reason: 'device-failed', message: errorMessage(e) };
    }
    const gpu = this.gpu;
    gpu.onEvent((e) => {
      // a device replaced by reconnect() has nothing more to say
      if (this.gpu !== gpu) return;
      if (e.kind === 'lost') this.runs.deviceLost(e.reason, e.message);
      onEvent(e.kind === 'lost' ? { type: 'device-lost', reason: e.reason, message: e.message } : { type: 'gpu-error', message: e.message });
    });
    const deviceLimits: Record<string, number> = {};
    for (const k of DEVICE_LIMITS) deviceLimits[k] = Number(this.gpu.limits[k]);
    return { ok: true, adapter: found.summary, deviceLimits };
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
          row = { index, name: test.name, ok: false, maxAbs: NaN, ms: performance.now() - t0, message: `threw: ${errorMessage(e)}` };
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

  async runDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome> {
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

  /** Runs may overlap each other, not the self-test or the demo (they time and check the GPU alone). */
  startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus> {
    const gpu = this.requireGpu();
    this.refuseDuringJob();
    return this.runs.start(gpu, spec, onBatch);
  }

  pauseRun(runId: string): void {
    this.runs.pauseRun(runId);
  }

  resumeRun(runId: string): void {
    this.refuseDuringJob();
    this.runs.resumeRun(runId);
  }

  stepRun(runId: string): void {
    this.refuseDuringJob();
    this.runs.stepRun(runId);
  }

  stopRun(runId: string): void {
    this.runs.stopRun(runId);
  }

  setRunKnobs(runId: string, knobs: Partial<LiveKnobs>): number {
    return this.runs.setRunKnobs(runId, knobs);
  }

  /** A finished run's cross-play matrix from its snapshots (its loop must have one); progress after each checkpoint's pass. */
  crossPlay(runId: string, opts: CrossPlayOptions, onProgress: (done: number, total: number) => void): Promise<CrossPlayResult> {
    const gpu = this.requireGpu();
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

  async deleteCheckpoints(runIds: readonly string[]): Promise<void> {
    for (const id of runIds) {
      if (this.runs.has(id)) throw new Error(`run ${id} is still active; stop it before deleting its checkpoint`);
    }
    for (const id of runIds) await this.checkpoints.remove(id);
  }

  async exportCheckpoint(runId: string, format: CheckpointFormat): Promise<CheckpointFile> {
    const c = await this.checkpoints.load(runId);
    if (!c) throw new Error(`run ${runId} has no checkpoint yet (one is saved every checkpointEvery steps and at the end)`);
    return checkpointFile(c, format);
  }

  private refuseDuringJob(): void {
    if (this.job) throw new Error(`the engine is busy with the ${this.job}; wait for it to finish`);
  }

  debugLoseDevice(): void {
    this.requireGpu().destroy();
  }

  private requireGpu(): Gpu {
    if (!this.gpu) throw new Error('the engine has no GPU device (see the adapter panel)');
    return this.gpu;
  }

  private claim(job: Job): Gpu {
    const gpu = this.requireGpu();
    this.refuseDuringJob();
    if (this.runs.computing) throw new Error(`a training run is computing; pause or stop it before the ${job}`);
    this.job = job;
    return gpu;
  }
}
