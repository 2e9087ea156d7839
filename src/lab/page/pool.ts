// Every run trains in a worker of its own, opened for it and closed when it ends (done, stopped
// or failed): on the GPU each run's worker holds its own adapter, device and compiled pipelines,
// so a device lost in one run's worker halts that run alone, and runs no longer share one event
// loop. The page's main worker keeps the adapter panel, the self-test, the demo, uploaded
// policies (it checks them) and the checkpoints, which live in the origin-private file system
// that every worker of the page shares. The page's lab (lab.ts) opens a pool for GPU runs and one
// for CPU mode's.
import { routeRunCommands } from '../bridge';
import type { RunApi, RunBatch, RunSpec, RunState, RunStatus } from '../protocol/run';

/** A worker that runs runs: the run API, and a way to close it. */
export interface RunWorker extends RunApi {
  terminate(): void;
}

interface Entry<W> {
  /** the run's worker once it is ready to start the run; rejects with why it could not be opened */
  worker: Promise<W>;
  /** the run's state as its latest batch reports it */
  state: RunState;
}

/**
 * The runs of one kind of worker. `create` opens a worker for a run and `prepare` makes it ready
 * to start it; a worker whose preparing fails is closed again. A command sent while the run's
 * worker is still opening waits for it and reaches the worker after the start, in the order the
 * commands were sent.
 */
export class RunWorkerPool<W extends RunWorker> {
  private readonly entries = new Map<string, Entry<W>>();

  constructor(
    private readonly create: (spec: RunSpec) => W,
    private readonly prepare: (worker: W, spec: RunSpec) => Promise<void>,
  ) {}

  private async open(spec: RunSpec): Promise<W> {
    const w = this.create(spec);
    try {
      await this.prepare(w, spec);
      return w;
    } catch (e) {
      w.terminate();
      throw e;
    }
  }

  /** Throws unless every run of `runIds` has ended here (a run's checkpoint is deleted only then). */
  refuseActive(runIds: readonly string[]): void {
    const active = runIds.filter((id) => this.entries.has(id));
    if (active.length > 0) throw new Error(`run ${active.join(', ')} is still active; stop it before deleting its checkpoint`);
  }

  /** Open workers (one per run not yet ended). */
  get size(): number {
    return this.entries.size;
  }

  /** True while some run computes (starting, running, pausing or stopping): anything but paused. */
  get computing(): boolean {
    for (const e of this.entries.values()) if (e.state !== 'paused') return true;
    return false;
  }

  /** Opens a worker for the run, runs it there to its end, then closes the worker. */
  async startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<RunStatus> {
    if (this.entries.has(spec.runId)) throw new Error(`a run with id ${spec.runId} already exists`);
    const entry: Entry<W> = { worker: this.open(spec), state: 'starting' };
    this.entries.set(spec.runId, entry);
    let worker: W | null = null;
    try {
      worker = await entry.worker;
      return await worker.startRun(spec, (b) => {
        entry.state = b.status.state;
        onBatch(b);
      });
    } finally {
      this.entries.delete(spec.runId);
      worker?.terminate();
    }
  }

  /** The run's worker (once it is ready); rejects when the run has ended or its worker could not be opened. */
  async worker(runId: string): Promise<W> {
    const e = this.entries.get(runId);
    if (!e) throw new Error(`no active run with id ${runId} (it has ended)`);
    return e.worker;
  }

  /** Each run command goes to the run's worker, once it is open. */
  readonly commands = routeRunCommands((runId) => this.worker(runId));
}
