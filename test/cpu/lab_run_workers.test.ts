// Each run in a worker of its own (src/lab/page/lab.ts, pool.ts), with fake worker clients: a worker is
// opened per run and started up (adapter, device) before its run; commands reach the run's own
// worker, in order even while it is still opening; the worker is closed when its run ends (done,
// stopped, failed, or no device); uploaded policies are registered with a run's worker before it
// starts from one; a device lost in one run's worker halts that run alone, and the page says
// which; the main worker keeps the jobs and rules it kept between runs. CPU mode likewise opens
// a worker per run.
import { describe, expect, it, vi } from 'vitest';
import type { CpuRunWorker } from '../../src/lab/page/lab';
import { withCpuMode } from '../../src/lab/page/lab';
import type { AdapterReport, DeviceEvent, LabClient, RunBatch, RunSpec, RunStatus } from '../../src/lab/protocol';
import { withRunWorkers } from '../../src/lab/page/lab';
import { createLabStore, selectEngineReady, type LabStore } from '../../src/state/store';

const READY: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} }, deviceLimits: {} };
const status = (state: RunStatus['state'], step: number, extra: Partial<RunStatus> = {}): RunStatus => ({ state, step, totalSteps: 5, stepsPerS: null, etaS: null, error: null, ...extra });
const batch = (runId: string, st: RunStatus): RunBatch => ({ runId, step: new Float64Array(0), seconds: new Float64Array(0), keys: [], metrics: new Float64Array(0), samples: [], records: [], evals: [], status: st });
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

/** One GPU worker's client: its run ends when the test says; every call is logged in order. */
function fakeWorker(report: AdapterReport = READY) {
  const log: string[] = [];
  let onEvent: (e: DeviceEvent) => void = () => undefined;
  let onBatch: (b: RunBatch) => void = () => undefined;
  let finish: (s: RunStatus) => void = () => undefined;
  let fail: (e: Error) => void = () => undefined;
  let openInit: () => void = () => undefined;
  const initGate = new Promise<void>((r) => (openInit = r));
  let gated = false;
  const cmd = (name: string) => vi.fn(async (runId: string) => void log.push(`${name} ${runId}`));
  const client = {
    init: vi.fn(async (cb: (e: DeviceEvent) => void) => {
      onEvent = cb;
      if (gated) await initGate;
      log.push('init');
      return report;
    }),
    selfTestNames: vi.fn(async () => ['a']),
    runSelfTests: vi.fn(async () => ({ passed: 1, failed: 0 })),
    runOrtCheck: vi.fn(async () => {
      throw new Error('not in this test');
    }),
    startDemo: vi.fn(async () => 'done' as const),
    stopDemo: vi.fn(async () => undefined),
    startRun: vi.fn((spec: RunSpec, cb: (b: RunBatch) => void) => {
      log.push(`start ${spec.runId}`);
      onBatch = cb;
      return new Promise<RunStatus>((resolve, reject) => ((finish = resolve), (fail = reject)));
    }),
    pauseRun: cmd('pause'),
    resumeRun: cmd('resume'),
    stepRun: cmd('step'),
    stopRun: cmd('stop'),
    setRunKnobs: vi.fn(async (runId: string) => (log.push(`knobs ${runId}`), 1)),
    registerPolicy: vi.fn(async (name: string) => void log.push(`register ${name}`)),
    debugLoseDevice: vi.fn(async () => onEvent({ type: 'device-lost', reason: 'destroyed', message: 'gone' })),
    reconnect: vi.fn(async () => READY),
    listCheckpoints: vi.fn(async () => []),
    deleteCheckpoints: vi.fn(async () => undefined),
    exportCheckpoint: vi.fn(async () => ({ filename: 'f', mime: 'm', bytes: new Uint8Array(1) })),
    crossPlay: vi.fn(async () => ({ steps: [], passRate: {}, valid: [], documents: 0, answers: 0, withDocuments: true })),
    terminate: vi.fn(() => void log.push('terminate')),
  } satisfies LabClient & { terminate(): void };
  return {
    client, log,
    emit: (e: DeviceEvent) => onEvent(e),
    batch: (b: RunBatch) => onBatch(b),
    finish: (s: RunStatus) => finish(s),
    fail: (e: Error) => fail(e),
    /** init waits until `openInit` is called */
    gate() {
      gated = true;
      return openInit;
    },
  };
}

type FakeWorker = ReturnType<typeof fakeWorker>;

/** The main worker and the pool over it; `next` decides the next run worker's report. */
function pool(reports: AdapterReport[] = []) {
  const main = fakeWorker();
  const workers: FakeWorker[] = [];
  let gateNext = false;
  const gates: (() => void)[] = [];
  const create = vi.fn(() => {
    const w = fakeWorker(reports.shift() ?? READY);
    if (gateNext) gates.push(w.gate());
    workers.push(w);
    return w.client;
  });
  const client = withRunWorkers(main.client, create);
  return { main, workers, create, client, gates, gateWorkers: (on: boolean) => void (gateNext = on) };
}

const spec = (runId: string, extra: Partial<RunSpec> = {}): RunSpec => ({ runId, loop: 'grpo', policy: 'tiny', config: {}, ...extra });

describe('withRunWorkers: a worker per run', () => {
  it('opens and starts up a worker for each run; the main worker runs none', async () => {
    const { main, workers, create, client } = pool();
    await client.init(() => undefined);
    const a = client.startRun(spec('a'), () => undefined);
    const b = client.startRun(spec('b'), () => undefined);
    await settle();
    expect(create).toHaveBeenCalledTimes(2);
    expect(workers.map((w) => w.log)).toEqual([['init', 'start a'], ['init', 'start b']]);
    expect(main.client.init).toHaveBeenCalledOnce();
    expect(main.client.startRun).not.toHaveBeenCalled();
    workers[0].finish(status('done', 5));
    workers[1].finish(status('done', 5));
    await expect(a).resolves.toMatchObject({ state: 'done' });
    await expect(b).resolves.toMatchObject({ state: 'done' });
  });

  it('sends each command to the run\'s own worker, after the start even while the worker is still opening', async () => {
    const { workers, client, gates, gateWorkers } = pool();
    await client.init(() => undefined);
    void client.startRun(spec('a'), () => undefined);
    gateWorkers(true);
    void client.startRun(spec('b'), () => undefined);
    await settle();
    // b's worker has no device yet: its commands wait for it
    const sent = [client.pauseRun('b'), client.stepRun('b'), client.setRunKnobs('b', { lr: 1e-4 }), client.stopRun('b')];
    await client.resumeRun('a');
    expect(workers[1].log).toEqual([]);
    gates[0]();
    await Promise.all(sent);
    expect(workers[1].log).toEqual(['init', 'start b', 'pause b', 'step b', 'knobs b', 'stop b']);
    expect(workers[0].log).toEqual(['init', 'start a', 'resume a']);
    await expect(client.pauseRun('c')).rejects.toThrow(/no active run with id c \(it has ended\)/);
  });

  it('closes a run\'s worker when the run ends: done, stopped, failed, or no device for it', async () => {
    const noDevice: AdapterReport = { ok: false, reason: 'device-failed', message: 'requestDevice refused' };
    const { workers, client } = pool([READY, READY, READY, noDevice]);
    await client.init(() => undefined);
    const runs = ['a', 'b', 'c'].map((id) => client.startRun(spec(id), () => undefined));
    await settle();
    workers[0].finish(status('done', 5));
    workers[1].finish(status('stopped', 2));
    workers[2].fail(new Error('the loop threw'));
    await expect(runs[0]).resolves.toMatchObject({ state: 'done' });
    await expect(runs[1]).resolves.toMatchObject({ state: 'stopped' });
    await expect(runs[2]).rejects.toThrow('the loop threw');
    await expect(client.startRun(spec('d'), () => undefined)).rejects.toThrow(/run d got no GPU device of its own: requestDevice refused/);
    expect(workers.map((w) => w.client.terminate.mock.calls.length)).toEqual([1, 1, 1, 1]);
    expect(workers[3].client.startRun).not.toHaveBeenCalled();
    await expect(client.stopRun('a')).rejects.toThrow(/no active run with id a/);
  });

  it('registers an uploaded policy with a run\'s worker before a run starts or resumes from it (not one it refused)', async () => {
    const { main, workers, client } = pool();
    await client.init(() => undefined);
    const bytes = new Uint8Array([1, 2, 3]);
    await client.registerPolicy('upload:a.safetensors', bytes, '{"n_layer":1}');
    main.client.registerPolicy.mockRejectedValueOnce(new Error('not a checkpoint'));
    await expect(client.registerPolicy('upload:bad.bin', new Uint8Array(1), '{}')).rejects.toThrow('not a checkpoint');
    void client.startRun(spec('a', { policy: 'upload:a.safetensors' }), () => undefined);
    void client.startRun(spec('b'), () => undefined);
    void client.startRun(spec('c', { policy: 'upload:a.safetensors', resume: true }), () => undefined);
    void client.startRun(spec('d', { policy: 'upload:bad.bin' }), () => undefined);
    await settle();
    expect(workers[0].log).toEqual(['init', 'register upload:a.safetensors', 'start a']);
    expect(workers[0].client.registerPolicy).toHaveBeenCalledWith('upload:a.safetensors', bytes, '{"n_layer":1}');
    // a resumed run needs its base policy too: it is the frozen reference of the KL term
    expect(workers[2].log).toEqual(['init', 'register upload:a.safetensors', 'start c']);
    for (const w of [workers[1], workers[3]]) expect(w.client.registerPolicy).not.toHaveBeenCalled();
  });

  it('loses the device of one run\'s worker (debug), and reports its events tagged with the run; without a run, the main worker\'s', async () => {
    const { main, workers, client } = pool();
    const events: DeviceEvent[] = [];
    await client.init((e) => events.push(e));
    void client.startRun(spec('a'), () => undefined);
    void client.startRun(spec('b'), () => undefined);
    await settle();
    await client.debugLoseDevice('b');
    workers[0].emit({ type: 'gpu-error', message: 'oops' });
    expect(events).toEqual([{ type: 'device-lost', reason: 'destroyed', message: 'gone', runId: 'b' }, { type: 'gpu-error', message: 'oops', runId: 'a' }]);
    expect(workers[0].client.debugLoseDevice).not.toHaveBeenCalled();
    expect(main.client.debugLoseDevice).not.toHaveBeenCalled();
    await client.debugLoseDevice();
    expect(main.client.debugLoseDevice).toHaveBeenCalledOnce();
  });

  it('keeps the main worker\'s rules: no self-test while a run computes, no run during the demo, no deleting an active run\'s checkpoint', async () => {
    const { main, workers, client } = pool();
    await client.init(() => undefined);
    void client.startRun(spec('a'), () => undefined);
    await settle();
    await expect(client.runSelfTests(() => undefined)).rejects.toThrow(/a training run is computing; pause or stop it before the self-test/);
    workers[0].batch(batch('a', status('paused', 1)));
    await expect(client.runSelfTests(() => undefined)).resolves.toEqual({ passed: 1, failed: 0 });
    await expect(client.deleteCheckpoints(['x', 'a'])).rejects.toThrow(/run a is still active/);
    expect(main.client.deleteCheckpoints).not.toHaveBeenCalled();

    let endDemo: (o: 'done') => void = () => undefined;
    main.client.startDemo.mockImplementationOnce(() => new Promise((r) => (endDemo = r)));
    const demo = client.startDemo(1, { phrase: 'x', steps: 1, seed: 1 }, () => undefined);
    await expect(client.startRun(spec('b'), () => undefined)).rejects.toThrow(/busy with the demo/);
    await expect(client.resumeRun('a')).rejects.toThrow(/busy with the demo/);
    endDemo('done');
    await demo;
    await client.resumeRun('a');
    expect(workers[0].log).toContain('resume a');
  });
});

describe('a device lost in one run\'s worker, in the store', () => {
  async function lab(): Promise<{ store: LabStore; workers: FakeWorker[] }> {
    const { client, workers } = pool();
    let n = 0;
    const store = createLabStore(client, {
      fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
      archive: null, newRunId: () => `run${++n}`, now: () => 0,
    }, (cb) => void cb());
    await store.getState().initDevice();
    await store.getState().loadCatalog();
    return { store, workers };
  }

  it('halts that run alone: the page lists it, the main worker and the other run carry on, resume takes it off the list', async () => {
    const { store, workers } = await lab();
    void store.getState().startRun();
    void store.getState().startRun();
    await settle();
    for (const [i, w] of workers.entries()) w.batch(batch(`run${i + 1}`, status('running', 2)));
    store.getState().selectRun('run1');
    await store.getState().debugLoseDevice();
    expect(workers[0].client.debugLoseDevice).toHaveBeenCalledOnce();
    expect(workers[1].client.debugLoseDevice).not.toHaveBeenCalled();
    workers[0].emit({ type: 'gpu-error', message: 'after the loss' });
    const lostHalt = { step: 2, kind: 'device-lost' as const, message: 'The GPU device was lost (destroyed) after step 2.' };
    workers[0].finish(status('failed', 2, { halts: [lostHalt], error: lostHalt.message }));
    await settle();

    const s = store.getState();
    expect(s.device.lostRuns).toEqual({ run1: { reason: 'destroyed', message: 'gone' } });
    expect(s.device.deviceLost).toBeNull();
    expect(s.device.gpuErrors).toEqual(['run #1 GRPO · tiny: after the loss']);
    expect(selectEngineReady(s)).toBe(true);
    expect(s.runs.byId.run1.status.state).toBe('failed');
    expect(s.runs.byId.run2.status.state).toBe('running');
    expect(workers[0].client.terminate).toHaveBeenCalledOnce();
    expect(workers[1].client.terminate).not.toHaveBeenCalled();

    // the halted run resumes at once, in a new worker with a new device
    void store.getState().resumeFromCheckpoint('run1');
    await settle();
    expect(workers).toHaveLength(3);
    expect(workers[2].client.startRun.mock.calls[0][0]).toMatchObject({ runId: 'run1', resume: false });
    expect(store.getState().device.lostRuns).toEqual({});
  });

  it('loses the main worker\'s device when no run is active: runs are not halted', async () => {
    const { store, workers } = await lab();
    void store.getState().startRun();
    await settle();
    workers[0].finish(status('done', 5));
    await settle();
    await store.getState().debugLoseDevice();
    expect(workers[0].client.debugLoseDevice).not.toHaveBeenCalled();
    expect(store.getState().device.deviceLost).toEqual({ reason: 'destroyed', message: 'gone' });
    expect(store.getState().device.lostRuns).toEqual({});
  });
});

describe('CPU mode: a worker per run', () => {
  function fakeCpu() {
    const w = fakeWorker();
    const client: CpuRunWorker = {
      hello: vi.fn(async () => ({ engine: 'cpu' as const, policy: 'tiny' })),
      startRun: w.client.startRun, pauseRun: w.client.pauseRun, resumeRun: w.client.resumeRun, stepRun: w.client.stepRun,
      stopRun: w.client.stopRun, setRunKnobs: w.client.setRunKnobs, terminate: w.client.terminate,
    };
    return { ...w, cpu: client };
  }

  it('runs each CPU run in its own worker (the first in the one that showed CPU mode works) and closes it at the end', async () => {
    const gpu = pool();
    const cpus: ReturnType<typeof fakeCpu>[] = [];
    const { client, cpuMode } = withCpuMode(gpu.client, () => {
      cpus.push(fakeCpu());
      return cpus[cpus.length - 1].cpu;
    });
    await cpuMode.start();
    expect(cpus).toHaveLength(1);
    const a = client.startRun(spec('a'), () => undefined);
    const b = client.startRun(spec('b'), () => undefined);
    await settle();
    expect(cpus.map((c) => c.log)).toEqual([['start a'], ['start b']]);
    await client.pauseRun('b');
    expect(cpus[1].log).toEqual(['start b', 'pause b']);
    await expect(client.deleteCheckpoints(['b'])).rejects.toThrow(/run b is still active/);
    cpus[0].finish(status('done', 5));
    await a;
    expect(cpus[0].cpu.terminate).toHaveBeenCalledOnce();
    expect(cpus[1].cpu.terminate).not.toHaveBeenCalled();
    cpus[1].finish(status('stopped', 1));
    await b;
    expect(gpu.create).not.toHaveBeenCalled();
  });
});
