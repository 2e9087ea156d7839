// The engine's dedicated module worker: exposes the Engine through Comlink. The page imports
// only the type `EngineApi` from here. Callbacks arrive as Comlink proxies.
import * as Comlink from 'comlink';
import { createGpuFromAdapter } from '../gpu/device';
import { requestBrowserAdapter, SHADER_SOURCES } from '../gpu/browser';
import { SELF_TESTS } from '../engine/selftest';
import { runMemoriseDemo } from '../engine/demo';
import { Engine } from './engine';
import { LOOP_FACTORIES } from './loops';
import { PolicyLoader } from './policies';
import { fileCheckpointStore } from './checkpoints';
import { opfsFs } from './opfs';
import { runBatchTransferables } from './runBatcher';
import { batchTransferables } from './stepBatcher';
import type { AdapterReport, CheckpointFile, CheckpointFormat, CheckpointInfo, LiveKnobs, DemoBatch, DemoOptions, DemoOutcome, EngineEvent, RunBatch, RunSpec, RunStatus, SelfTestRow, SelfTestSummary } from './protocol';

const policies = new PolicyLoader(new URL(import.meta.env.BASE_URL, self.location.origin));
const engine = new Engine({
  gpu: { requestAdapter: requestBrowserAdapter, createGpu: (adapter) => createGpuFromAdapter(adapter, SHADER_SOURCES) },
  selfTests: SELF_TESTS,
  memoriseDemo: runMemoriseDemo,
  runs: {
    loops: LOOP_FACTORIES,
    loadPolicy: (name) => policies.load(name),
    checkpoints: fileCheckpointStore(opfsFs()),
  },
});

// A proxied callback returns a promise; if the page side throws, say so here rather than
// leaving an unhandled rejection in the worker.
function notify<T>(cb: (v: T) => unknown, value: T): void {
  Promise.resolve(cb(value)).catch((e: unknown) => console.error('rlvr-lab worker: page callback failed', e));
}

const api = {
  init(onEvent: (e: EngineEvent) => void): Promise<AdapterReport> {
    return engine.init((e) => notify(onEvent, e));
  },
  selfTestNames(): string[] {
    return engine.selfTestNames();
  },
  runSelfTests(onResult: (row: SelfTestRow) => void): Promise<SelfTestSummary> {
    return engine.runSelfTests((row) => notify(onResult, row));
  },
  startDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome> {
    return engine.runDemo(runId, opts, (b) => notify(onBatch, Comlink.transfer(b, batchTransferables(b))));
  },
  stopDemo(): void {
    engine.stopDemo();
  },
  startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus> {
    return engine.startRun(spec, (b) => notify(onBatch, Comlink.transfer(b, runBatchTransferables(b))));
  },
  pauseRun(runId: string): void {
    engine.pauseRun(runId);
  },
  resumeRun(runId: string): void {
    engine.resumeRun(runId);
  },
  stepRun(runId: string): void {
    engine.stepRun(runId);
  },
  stopRun(runId: string): void {
    engine.stopRun(runId);
  },
  setRunKnobs(runId: string, knobs: Partial<LiveKnobs>): void {
    engine.setRunKnobs(runId, knobs);
  },
  registerPolicy(name: string, safetensors: Uint8Array, configJson: string): void {
    policies.register(name, safetensors, configJson);
  },
  debugLoseDevice(): void {
    engine.debugLoseDevice();
  },
  reconnect(): Promise<AdapterReport> {
    return engine.reconnect();
  },
  listCheckpoints(): Promise<CheckpointInfo[]> {
    return engine.listCheckpoints();
  },
  deleteCheckpoints(runIds: string[]): Promise<void> {
    return engine.deleteCheckpoints(runIds);
  },
  async exportCheckpoint(runId: string, format: CheckpointFormat): Promise<CheckpointFile> {
    const f = await engine.exportCheckpoint(runId, format);
    return Comlink.transfer(f, [f.bytes.buffer as ArrayBuffer]);
  },
};

export type EngineApi = typeof api;

Comlink.expose(api);
