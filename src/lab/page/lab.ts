// The page's one LabClient, composed in one place: the main worker (adapter panel, self-test,
// demo, uploaded policies, checkpoints), a worker of its own for every GPU run (pool.ts), and CPU
// mode, from whose switching on each new run starts in a CPU worker of its own instead. Commands
// for a run go to the worker that runs it, whichever mode is current. The rule that a self-test
// (or the demo) and a run never share the GPU is kept here and nowhere else: the workers no
// longer see each other.
import { routeRunCommands } from '../bridge';
import type { DeviceEvent, LabClient, MainApi } from '../protocol';
import type { CpuRunWorkerApi, GpuRunWorkerApi, RunApi } from '../protocol/run';
import { connectCpuRunWorker, connectGpuRunWorker, connectMainWorker } from './connect';
import { RunWorkerPool, type RunWorker } from './pool';

/** How the store turns CPU mode on (see state/deviceSlice.ts). */
export interface CpuModeSwitch {
  /** Starts CPU mode's worker; resolves once it answers, rejects with why it could not start. */
  start(): Promise<void>;
}

export type GpuRunWorker = GpuRunWorkerApi & RunWorker;
export type CpuRunWorker = CpuRunWorkerApi & RunWorker;

/**
 * `base`'s methods with `own` in front. `base` may be a connected worker, whose methods cannot be
 * listed (a Proxy), so it is the prototype rather than spread.
 */
function extend<T extends object>(base: T, own: Partial<T>): T {
  return Object.assign(Object.create(base) as T, own);
}

interface Upload {
  safetensors: Uint8Array;
  configJson: string;
}

type Job = 'self-test' | 'demo';

/**
 * The LabClient over the main worker `main`, with each GPU run in a worker of its own from
 * `createWorker`. A run's worker reports its device events tagged with the run (`runId`);
 * uploaded policies registered with `main` are registered with a run's worker before a run starts
 * from one. The exclusive jobs (self-test, demo) and the runs are kept apart here.
 */
export function withRunWorkers(main: MainApi, createWorker: () => GpuRunWorker): LabClient {
  let onEvent: ((e: DeviceEvent) => void) | null = null;
  const uploads = new Map<string, Upload>();
  let job: Job | null = null;

  const pool = new RunWorkerPool<GpuRunWorker>(
    () => {
      if (!onEvent) throw new Error('the engine has not been started yet');
      return createWorker();
    },
    async (w, spec) => {
      const send = onEvent!;
      const r = await w.init((e) => send({ ...e, runId: spec.runId }));
      if (!r.ok) throw new Error(`run ${spec.runId} got no GPU device of its own: ${r.message}`);
      // a resumed run takes its parameters from the checkpoint, but its base policy is still its KL reference
      const up = uploads.get(spec.policy);
      if (up) await w.registerPolicy(spec.policy, up.safetensors, up.configJson);
    },
  );

  const refuseDuringJob = () => {
    if (job) throw new Error(`the engine is busy with the ${job}; wait for it to finish`);
  };
  // the self-test and the demo time and check the GPU alone
  const exclusive = async <T>(what: Job, f: () => Promise<T>): Promise<T> => {
    refuseDuringJob();
    if (pool.computing) throw new Error(`a training run is computing; pause or stop it before the ${what}`);
    job = what;
    try {
      return await f();
    } finally {
      job = null;
    }
  };

  return extend<LabClient>(main as LabClient, {
    init(cb) {
      onEvent = cb;
      return main.init(cb);
    },
    runSelfTests: (onResult) => exclusive('self-test', () => main.runSelfTests(onResult)),
    runOrtCheck: (policy) => exclusive('self-test', () => main.runOrtCheck(policy)),
    startDemo: (runId, opts, onBatch) => exclusive('demo', () => main.startDemo(runId, opts, onBatch)),
    async startRun(spec, onBatch) {
      refuseDuringJob();
      return pool.startRun(spec, onBatch);
    },
    // resuming or stepping a run would time it against the self-test or demo
    ...routeRunCommands((runId) => pool.worker(runId), { resumeRun: refuseDuringJob, stepRun: refuseDuringJob }),
    async registerPolicy(name, safetensors, configJson) {
      // the main worker checks it (and rejects with the problem); runs' workers get it later
      await main.registerPolicy(name, safetensors, configJson);
      uploads.set(name, { safetensors, configJson });
    },
    async debugLoseDevice(runId) {
      if (runId === undefined) return main.debugLoseDevice();
      return (await pool.worker(runId)).debugLoseDevice();
    },
    async deleteCheckpoints(runIds) {
      pool.refuseActive(runIds);
      return main.deleteCheckpoints(runIds);
    },
  });
}

/**
 * CPU mode over `gpu`: every command goes to the GPU side until CPU mode is switched on; from
 * then on each new run starts in a CPU worker of its own from `createCpu` (closed when the run ends).
 */
export function withCpuMode(gpu: LabClient, createCpu: () => CpuRunWorker): { client: LabClient; cpuMode: CpuModeSwitch } {
  let on = false;
  let starting: Promise<void> | null = null;
  // the worker that showed CPU mode works, kept for the first CPU run
  let spare: CpuRunWorker | null = null;
  const cpu = new RunWorkerPool<CpuRunWorker>(
    () => {
      const c = spare ?? createCpu();
      spare = null;
      return c;
    },
    async (c) => void (await c.hello()),
  );
  const cpuRuns: RunApi = { startRun: (spec, onBatch) => cpu.startRun(spec, onBatch), ...cpu.commands };
  const owners = new Map<string, RunApi>();
  const owner = (runId: string): RunApi => owners.get(runId) ?? (on ? cpuRuns : gpu);
  const client = extend<LabClient>(gpu, {
    // everything but runs (adapter, self-test, demo, checkpoints) stays with the GPU side
    async startRun(spec, onBatch) {
      const to = on ? cpuRuns : gpu;
      owners.set(spec.runId, to);
      try {
        return await to.startRun(spec, onBatch);
      } finally {
        owners.delete(spec.runId);
      }
    },
    ...routeRunCommands(owner),
    async deleteCheckpoints(runIds) {
      cpu.refuseActive(runIds);
      return gpu.deleteCheckpoints(runIds);
    },
  });
  const cpuMode: CpuModeSwitch = {
    start() {
      starting ??= (async () => {
        const c = createCpu();
        try {
          await c.hello();
          spare = c;
          on = true;
        } catch (e) {
          c.terminate();
          starting = null;
          throw e;
        }
      })();
      return starting;
    },
  };
  return { client, cpuMode };
}

/** The page's lab: the main worker, a worker per GPU run, and CPU mode's workers once it is on. */
export function createLab(): { client: LabClient; cpuMode: CpuModeSwitch } {
  return withCpuMode(withRunWorkers(connectMainWorker(), connectGpuRunWorker), connectCpuRunWorker);
}
