// The engine's dedicated module worker: exposes the Engine through Comlink. The page imports
// only the type `EngineApi` from here. Callbacks arrive as Comlink proxies.
import * as Comlink from 'comlink';
import type { CrossPlayOptions, CrossPlayResult } from '../loops/spec';
import { createGpuFromAdapter } from '../gpu/device';
import { requestBrowserAdapter, SHADER_SOURCES } from '../gpu/browser';
import { SELF_TESTS } from '../selftest/selftest';
import { runMemoriseDemo } from '../selftest/demo';
import { LabHost } from './host';
import { createWebGpuEngine } from '../engines/webgpu/engine';
import { PolicyLoader } from './policies';
import { fileCheckpointStore } from './checkpoints';
import { opfsFs } from './opfs';
import { pageNotifier, runApi } from './runApi';
import { batchTransferables } from './stepBatcher';
import type { AdapterReport, CheckpointFile, CheckpointFormat, CheckpointInfo, DemoBatch, DemoOptions, DemoOutcome, EngineEvent, OrtCheckResult, SelfTestRow, SelfTestSummary } from './protocol';

const policies = new PolicyLoader(new URL(import.meta.env.BASE_URL, self.location.origin));
const engine = new LabHost({
  gpu: { requestAdapter: requestBrowserAdapter, createGpu: (adapter) => createGpuFromAdapter(adapter, SHADER_SOURCES) },
  selfTests: SELF_TESTS,
  memoriseDemo: runMemoriseDemo,
  runs: {
    createEngine: createWebGpuEngine,
    loadPolicy: (name) => policies.load(name),
    checkpoints: fileCheckpointStore(opfsFs()),
  },
});

const notify = pageNotifier('rlvr-lab worker');

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
  runOrtCheck(policy: string): Promise<OrtCheckResult> {
    return engine.runOrtCheck(policy);
  },
  startDemo(runId: number, opts: DemoOptions, onBatch: (b: DemoBatch) => void): Promise<DemoOutcome> {
    return engine.runDemo(runId, opts, (b) => notify(onBatch, Comlink.transfer(b, batchTransferables(b))));
  },
  stopDemo(): void {
    engine.stopDemo();
  },
  ...runApi(engine, notify),
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
  crossPlay(runId: string, opts: CrossPlayOptions, onProgress: (done: number, total: number) => void): Promise<CrossPlayResult> {
    return engine.crossPlay(runId, opts, onProgress);
  },
  async exportCheckpoint(runId: string, format: CheckpointFormat): Promise<CheckpointFile> {
    const f = await engine.exportCheckpoint(runId, format);
    return Comlink.transfer(f, [f.bytes.buffer as ArrayBuffer]);
  },
};

export type EngineApi = typeof api;

Comlink.expose(api);
