// CPU mode, page side and worker side without a browser: the store offers it only without a GPU
// engine, picks the tiny policy, labels runs CPU and sends them to CPU mode's client (commands
// follow the run); CPU mode's run manager drives the reference GRPO loop to the end with the
// lab's step boundaries and refuses any other policy with what to pick.
import { describe, expect, it, vi } from 'vitest';
import type { AdapterReport, LabClient, RunBatch, RunSpec, RunStatus } from '../../src/lab/protocol';
import { withCpuMode } from '../../src/lab/page/lab';
import type { CpuRunWorker } from '../../src/lab/page/lab';
import { CPU_DEVICE, createCpuRuns } from '../../src/lab/worker/cpuRuns';
import { createLabStore, selectRunsReady, type StoreServices } from '../../src/state/store';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';

const NO_WEBGPU: AdapterReport = { ok: false, reason: 'no-webgpu', message: 'navigator.gpu is undefined' };
const done = (steps: number): RunStatus => ({ state: 'done', step: steps, totalSteps: steps, stepsPerS: null, etaS: null, error: null });

/** The GPU engine's client as far as these tests reach it: a report and run commands. */
function fakeGpu(report: AdapterReport) {
  return {
    init: vi.fn(async () => report),
    startRun: vi.fn(async (spec: RunSpec) => done((spec.config as { steps: number }).steps)),
    pauseRun: vi.fn(async () => undefined),
    resumeRun: vi.fn(async () => undefined),
    stepRun: vi.fn(async () => undefined),
    stopRun: vi.fn(async () => undefined),
    setRunKnobs: vi.fn(async () => 1),
  };
}

function fakeCpu(ready: () => Promise<void> = async () => undefined) {
  let finish: (s: RunStatus) => void = () => undefined;
  const cpu = {
    hello: vi.fn(async () => (await ready(), { engine: 'cpu' as const, policy: 'tiny' })),
    startRun: vi.fn((_spec: RunSpec, _onBatch: (b: RunBatch) => void) => new Promise<RunStatus>((r) => (finish = r))),
    pauseRun: vi.fn(async () => undefined),
    resumeRun: vi.fn(async () => undefined),
    stepRun: vi.fn(async () => undefined),
    stopRun: vi.fn(async () => undefined),
    setRunKnobs: vi.fn(async () => 1),
    terminate: vi.fn(),
  };
  return { cpu, finish: (s: RunStatus) => finish(s) };
}

function labWith(gpu: ReturnType<typeof fakeGpu>, cpu: CpuRunWorker) {
  const { client, cpuMode } = withCpuMode(gpu as unknown as LabClient, () => cpu);
  const services: StoreServices = {
    fetchCatalog: async () => ({ defaultPolicy: 'small', policies: [{ name: 'tiny', description: '', params: 1 }, { name: 'small', description: '', params: 2 }] }),
    archive: null,
    newRunId: () => 'run-1',
    now: () => 0,
    cpuMode,
  };
  return createLabStore(client, services, (cb) => void cb());
}

describe('CPU mode in the store', () => {
  it('is offered without WebGPU; once on it picks tiny, labels runs CPU and routes them and their commands to the CPU worker', async () => {
    const gpu = fakeGpu(NO_WEBGPU);
    const { cpu, finish } = fakeCpu();
    const store = labWith(gpu, cpu);
    await store.getState().loadCatalog();
    await store.getState().initDevice();
    expect(selectRunsReady(store.getState())).toBe(false);
    await store.getState().enterCpuMode();
    const s = store.getState();
    expect(s.cpuMode).toEqual({ status: 'on', error: null });
    expect(selectRunsReady(s)).toBe(true);
    expect(s.launcher.resolved.ok && s.launcher.resolved.policy).toBe('tiny');
    s.setField('loop', 'steps', 2);
    const started = store.getState().startRun();
    await vi.waitFor(() => expect(cpu.startRun).toHaveBeenCalledOnce());
    expect(gpu.startRun).not.toHaveBeenCalled();
    expect(cpu.startRun.mock.calls[0][0]).toMatchObject({ runId: 'run-1', loop: 'grpo', policy: 'tiny' });
    expect(store.getState().runs.byId['run-1'].label).toBe('#1 GRPO · tiny · CPU');
    await store.getState().pauseRun('run-1');
    expect(cpu.pauseRun).toHaveBeenCalledWith('run-1');
    expect(gpu.pauseRun).not.toHaveBeenCalled();
    finish(done(2));
    await started;
    expect(store.getState().runs.byId['run-1'].status.state).toBe('done');
  });

  it('leaves runs and their commands with the GPU engine while CPU mode is off', async () => {
    const gpu = fakeGpu(NO_WEBGPU);
    const { cpu } = fakeCpu();
    const store = labWith(gpu, cpu);
    await store.getState().loadCatalog();
    store.getState().setField('loop', 'steps', 3);
    await store.getState().startRun();
    expect(gpu.startRun).toHaveBeenCalledOnce();
    expect(store.getState().runs.byId['run-1']).toMatchObject({ label: '#1 GRPO · small', status: { state: 'done' } });
    await store.getState().stopRun('run-1');
    expect(gpu.stopRun).toHaveBeenCalledWith('run-1');
    expect(cpu.hello).not.toHaveBeenCalled();
    expect(cpu.stopRun).not.toHaveBeenCalled();
  });

  it('is refused while the GPU engine works, and says why when its worker cannot start', async () => {
    const ready: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'test', architecture: '', description: '', features: [], limits: {} }, deviceLimits: {} };
    const withGpu = labWith(fakeGpu(ready), fakeCpu().cpu);
    await withGpu.getState().initDevice();
    await withGpu.getState().enterCpuMode();
    expect(withGpu.getState().cpuMode.status).toBe('failed');
    expect(withGpu.getState().cpuMode.error).toMatch(/CPU mode is for browsers without WebGPU/);

    const broken = fakeCpu(async () => {
      throw new Error('the CPU mode worker failed: it could not be loaded');
    });
    const noGpu = labWith(fakeGpu(NO_WEBGPU), broken.cpu);
    await noGpu.getState().initDevice();
    await noGpu.getState().enterCpuMode();
    expect(noGpu.getState().cpuMode).toEqual({ status: 'failed', error: 'the CPU mode worker failed: it could not be loaded' });
    expect(broken.cpu.terminate).toHaveBeenCalledOnce();
    expect(selectRunsReady(noGpu.getState())).toBe(false);
  });
});

describe('CPU mode\'s run manager', () => {
  const cfg = GPT_PRESETS.tiny;
  const tiny = { cfg, params: initParams(cfg, buildTensorTable(cfg), 2) };
  const config = { steps: 2, seed: 1, problemsPerStep: 1, groupSize: 2, maxNewTokens: 8, evalEvery: 1, evalProblems: 2, evalN: 2, trainProblems: 4, samplesPerStep: 1 };

  it('drives a tiny GRPO run to the end: every step, sample and evaluation reaches the page', async () => {
    const runs = createCpuRuns({ loadPolicy: async () => ({ cfg: tiny.cfg, params: tiny.params.slice() }), batchIntervalMs: 1 });
    const batches: RunBatch[] = [];
    const final = await runs.start(CPU_DEVICE, { runId: 'a', loop: 'grpo', policy: 'tiny', config }, (b) => batches.push(b));
    expect(final).toMatchObject({ state: 'done', step: 2, totalSteps: 2, error: null });
    expect(batches.flatMap((b) => Array.from(b.step))).toEqual([1, 2]);
    expect(batches.flatMap((b) => b.evals.map((e) => e.step))).toEqual([0, 1, 2]);
    expect(batches.flatMap((b) => b.samples.map((e) => e.step))).toEqual([1, 2]);
    expect(batches.flatMap((b) => b.keys)).toContain('grad_norm');
  });

  it('refuses a policy other than tiny, saying what to pick', async () => {
    const runs = createCpuRuns({ loadPolicy: async () => tiny });
    const final = await runs.start(CPU_DEVICE, { runId: 'b', loop: 'grpo', policy: 'small', config }, () => undefined);
    expect(final.state).toBe('failed');
    expect(final.error).toMatch(/CPU mode trains only the "tiny" policy; "small" needs WebGPU\. Pick tiny/);
  });
});
