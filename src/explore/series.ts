// A run's step metrics as the sweep format keeps them (explore/format.ts SeriesSchema): one column
// per metric, aligned with the steps, null where a step did not report it (a metric first
// reported at step 5 has nulls before it; one missing at step 7 has a null there).
import type { SweepSeries } from './format';

export class SeriesRecorder {
  private readonly step: number[] = [];
  private readonly seconds: (number | null)[] = [];
  private readonly tokens: (number | null)[] = [];
  private readonly metrics = new Map<string, (number | null)[]>();

  add(step: number, seconds: number, tokens: number, metrics: Readonly<Record<string, number>>): void {
    const at = this.step.length;
    this.step.push(step);
    this.seconds.push(Number.isFinite(seconds) ? seconds : null);
    this.tokens.push(Number.isFinite(tokens) ? tokens : null);
    for (const [k, x] of Object.entries(metrics)) {
      let col = this.metrics.get(k);
      if (!col) this.metrics.set(k, (col = new Array<number | null>(at).fill(null)));
      col.push(Number.isFinite(x) ? x : null);
    }
    for (const col of this.metrics.values()) if (col.length === at) col.push(null);
  }

  toJSON(): SweepSeries {
    return { step: [...this.step], seconds: [...this.seconds], tokens: [...this.tokens], metrics: Object.fromEntries([...this.metrics].map(([k, c]) => [k, [...c]])) };
  }
}
