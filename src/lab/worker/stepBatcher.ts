// Worker side of event batching: training steps are gathered and sent to the page about every
// `intervalMs`, as typed arrays the caller transfers. A step loop that never yields to the event
// loop still gets its batches out, because `push` checks the clock as well as arming a timer.
import type { DemoBatch } from '../protocol';

export interface StepEvent {
  step: number;
  loss: number;
  tokensPerS: number;
}

export class StepBatcher {
  private step: number[] = [];
  private loss: number[] = [];
  private tokensPerS: number[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastSent: number;

  constructor(
    private readonly runId: number,
    private readonly send: (b: DemoBatch) => void,
    private readonly intervalMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastSent = now();
  }

  push(e: StepEvent): void {
    this.step.push(e.step);
    this.loss.push(e.loss);
    this.tokensPerS.push(e.tokensPerS);
    if (this.now() - this.lastSent >= this.intervalMs) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends what is pending now (also called when the run ends, so no step is lost). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.lastSent = this.now();
    if (this.step.length === 0) return;
    const batch: DemoBatch = {
      runId: this.runId,
      step: Float64Array.from(this.step),
      loss: Float64Array.from(this.loss),
      tokensPerS: Float64Array.from(this.tokensPerS),
    };
    this.step = [];
    this.loss = [];
    this.tokensPerS = [];
    this.send(batch);
  }
}
