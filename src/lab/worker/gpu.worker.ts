// The GPU workers' one module (so dist/ carries the engine once): the page's main worker, or a
// run's own worker when the page names it RUN_WORKER_NAME (src/lab/page/connect.ts). Each serves
// its host through the bridge; the page imports nothing from here.
import { createGpuFromAdapter } from '../../gpu/device';
import { requestBrowserAdapter, SHADER_SOURCES } from '../../gpu/browser';
import { SELF_TESTS } from '../../selftest/selftest';
import { runMemoriseDemo } from '../../selftest/demo';
import { createWebGpuEngine } from '../../engines/webgpu/engine';
import { serve } from '../bridge';
import { RUN_WORKER_NAME } from '../protocol/run';
import { MainHost } from './mainHost';
import { gpuRunHost } from './runHost';
import { PolicyLoader } from './policies';
import { fileCheckpointStore } from './checkpoints';
import { opfsFs } from './storage/opfs';
import type { GpuProvider } from './device';

const policies = new PolicyLoader(new URL(import.meta.env.BASE_URL, self.location.origin));
const gpu: GpuProvider = { requestAdapter: requestBrowserAdapter, createGpu: (adapter) => createGpuFromAdapter(adapter, SHADER_SOURCES) };
const runs = {
  createEngine: createWebGpuEngine,
  loadPolicy: (name: string) => policies.load(name),
  // checkpoints live in the origin-private file system that every worker of the page shares
  checkpoints: fileCheckpointStore(opfsFs()),
};
const register = (name: string, safetensors: Uint8Array, configJson: string) => policies.register(name, safetensors, configJson);

if (self.name === RUN_WORKER_NAME) {
  serve(gpuRunHost({ gpu, runs, registerPolicy: register }), 'rlvr-lab run worker');
} else {
  serve(new MainHost({ gpu, selfTests: SELF_TESTS, memoriseDemo: runMemoriseDemo, runs, registerPolicy: register }), 'rlvr-lab worker');
}
