// The lab's one store, made of typed slices with their actions inside. It talks to the engine
// only through a LabClient, so tests drive it with a fake client and a manual frame scheduler.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { LabClient } from '../lab/protocol';
import type { PolicyCatalog } from './catalog';
import { createCheckpointsSlice, type CheckpointServices, type CheckpointsSlice } from './checkpointsSlice';
import { createDemoSlice, type DemoSlice } from './demoSlice';
import { createDeviceSlice, type DeviceSlice } from './deviceSlice';
import { animationFrame, type FrameScheduler } from './frameQueue';
import { createLauncherSlice, type LauncherSlice } from './launcherSlice';
import { createRunsSlice, isComputing, type RunServices, type RunsSlice } from './runsSlice';
import { createSelfTestSlice, type SelfTestSlice } from './selfTestSlice';
import { createViewSlice, type ViewSlice } from './viewSlice';
import { createCpuModeSlice, type CpuModeSlice } from './cpuModeSlice';
import type { CpuModeSwitch } from '../lab/page/lab';
import { createImportSlice, type ImportSlice } from './importSlice';
import type { PolicyArchive } from './persist/policyArchive';
import { createPolicySlice, type PolicySlice } from './policySlice';
import { createAnalysisSlice, type AnalysisSlice } from './analysisSlice';
import { createExplorerSlice, type ExplorerServices, type ExplorerSlice } from './explorerSlice';
import type { CorpusArchive } from './persist/corpusArchive';
import { createCorpusSlice, type CorpusSlice } from './corpusSlice';

export type LabState = DeviceSlice & SelfTestSlice & DemoSlice & LauncherSlice & RunsSlice & ViewSlice & ImportSlice & PolicySlice & CpuModeSlice & CheckpointsSlice & AnalysisSlice & ExplorerSlice & CorpusSlice;
export type LabStore = StoreApi<LabState>;

export interface StoreServices extends RunServices, CheckpointServices, Omit<ExplorerServices, 'newRunId' | 'now'> {
  /** the base policies on offer (public/models/index.json in the page) */
  fetchCatalog: () => Promise<PolicyCatalog>;
  /** where uploaded base policies are kept across reloads (none: they last until the page closes) */
  policies?: PolicyArchive | null;
  /** starts CPU mode's worker (none: the page offers no CPU mode and says so) */
  cpuMode?: CpuModeSwitch | null;
  /** where uploaded corpora are kept across reloads, for links that name them (none: until the page closes) */
  corpora?: CorpusArchive | null;
}

export function createLabStore(client: LabClient, services: StoreServices, schedule: FrameScheduler = animationFrame): LabStore {
  return createStore<LabState>()((...a) => ({
    ...createDeviceSlice(client)(...a),
    ...createSelfTestSlice(client)(...a),
    ...createDemoSlice(client, schedule)(...a),
    ...createLauncherSlice(services.fetchCatalog)(...a),
    ...createRunsSlice(client, schedule, services)(...a),
    ...createViewSlice(...a),
    ...createCpuModeSlice(services.cpuMode ?? null)(...a),
    ...createImportSlice(services)(...a),
    ...createPolicySlice(client, { policies: services.policies ?? null, now: services.now })(...a),
    ...createCheckpointsSlice(client, services)(...a),
    ...createAnalysisSlice(client)(...a),
    ...createExplorerSlice(services)(...a),
    ...createCorpusSlice({ corpora: services.corpora ?? null, now: services.now })(...a),
  }));
}

/** True while a training run of this page computes on the GPU. */
export function selectRunsComputing(s: LabState): boolean {
  return s.runs.order.some((id) => s.runs.byId[id].live && isComputing(s.runs.byId[id].status.state));
}

/** True while a job holds the engine alone (the self-test, the demo, or runs computing). */
export function selectBusy(s: LabState): boolean {
  return s.selfTest.status === 'running' || s.ortCheck.status === 'running' || s.demo.status === 'running' || s.demo.status === 'stopping' || selectRunsComputing(s);
}

/** True while the self-test or the demo runs (training runs must wait for them). */
export function selectExclusiveJob(s: LabState): boolean {
  return s.selfTest.status === 'running' || s.ortCheck.status === 'running' || s.demo.status === 'running' || s.demo.status === 'stopping';
}

/** True when commands can be sent: a device exists and has not been lost. */
export function selectEngineReady(s: LabState): boolean {
  return s.device.adapter.status === 'ready' && s.device.deviceLost === null;
}

/** True when runs can start: on a working GPU device, or in CPU mode. */
export function selectRunsReady(s: LabState): boolean {
  return selectEngineReady(s) || s.cpuMode.status === 'on';
}
