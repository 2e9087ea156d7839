// Worker side of a run's event batching: step metrics, samples, curriculum records and evaluations are gathered and
// sent about every `intervalMs`, step metrics as one transferable matrix. A change of the run's
// state is sent at once, so pause and stop show on the page without waiting for the timer.
import type { LoopEvent } from '../../loops/events';
import type { EvalEvent, RecordsEvent, RunBatch, RunStatus, SamplesEvent } from '../protocol';

type StepEvent = Extract<LoopEvent, { type: 'step' }>;

export class RunBatcher {
  private steps: StepEvent[] = [];
  private samples: SamplesEvent[] = [];
  private records: RecordsEvent[] = [];
  private evals: EvalEvent[] = [];
  private status: RunStatus;
  private statusChanged = true;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastSent: number;

  constructor(
    private readonly runId: string,
    initial: RunStatus,
    private readonly send: (b: RunBatch) => void,
    private readonly intervalMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.status = initial;
    this.lastSent = now();
  }

  push(e: StepEvent | SamplesEvent | RecordsEvent | EvalEvent): void {
    if (e.type === 'step') this.steps.push(e);
    else if (e.type === 'samples') this.samples.push(e);
    else if (e.type === 'records') this.records.push(e);
    else this.evals.push(e);
    if (this.now() - this.lastSent >= this.intervalMs) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** A new status; a new state (e.g. running → paused), halt or phase is sent at once with what is pending. */
  setStatus(s: RunStatus): void {
    // a new state, halt or phase goes at once: the status line says what the run does now
    const phaseKey = (x: RunStatus) => (x.phase ? `${x.phase.kind} ${x.phase.step}` : '');
    const stateChanged = s.state !== this.status.state || (s.halts?.length ?? 0) !== (this.status.halts?.length ?? 0) || phaseKey(s) !== phaseKey(this.status);
    this.status = s;
    this.statusChanged = true;
    if (stateChanged) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends what is pending now (also called when the run ends, so nothing is lost). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.lastSent = this.now();
    if (this.steps.length === 0 && this.samples.length === 0 && this.records.length === 0 && this.evals.length === 0 && !this.statusChanged) return;
    const batch = packBatch(this.runId, this.steps, this.samples, this.records, this.evals, this.status);
    this.steps = [];
    this.samples = [];
    this.records = [];
    this.evals = [];
    this.statusChanged = false;
    this.send(batch);
  }
}

function packBatch(runId: string, steps: StepEvent[], samples: SamplesEvent[], records: RecordsEvent[], evals: EvalEvent[], status: RunStatus): RunBatch {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const e of steps) {
    for (const k of Object.keys(e.metrics)) {
      if (!seen.has(k)) seen.add(k), keys.push(k);
    }
  }
  const metrics = new Float64Array(steps.length * keys.length).fill(NaN);
  steps.forEach((e, i) => keys.forEach((k, j) => (metrics[i * keys.length + j] = e.metrics[k] ?? NaN)));
  return {
    runId,
    step: Float64Array.from(steps, (e) => e.step),
    seconds: Float64Array.from(steps, (e) => e.seconds),
    keys,
    metrics,
    samples,
    records,
    evals,
    status: { ...status },
  };
}
