// A run's recorded events on the page: step metrics as columns (one array per metric, aligned
// with `step`), every evaluation, every step's curriculum records, and the latest samples. Chunks are what the worker's batches
// become once applied, and what the archive stores (append-only).
import type { EvalEvent, RecordsEvent, SamplesEvent } from '../lab/protocol';

export interface RunData {
  step: number[];
  seconds: number[];
  /** metric name → values aligned with `step`; NaN where a step did not report it */
  series: Record<string, number[]>;
  evals: EvalEvent[];
  /** the most recent samples events, oldest first */
  samples: SamplesEvent[];
  /** each step's curriculum records (the loop's views read them), oldest first */
  records: RecordsEvent[];
}

/** A batch's content in plain, storable form; `metrics[i * keys.length + j]` = keys[j] at step[i]. */
export interface RunChunk {
  step: ArrayLike<number>;
  seconds: ArrayLike<number>;
  keys: readonly string[];
  metrics: ArrayLike<number>;
  samples: readonly SamplesEvent[];
  evals: readonly EvalEvent[];
  /** absent in chunks stored before loops had records */
  records?: readonly RecordsEvent[];
}

/** Samples events kept per run for the samples panel. */
export const MAX_SAMPLE_EVENTS = 20;

export const EMPTY_RUN_DATA: RunData = Object.freeze({ step: [], seconds: [], series: {}, evals: [], samples: [], records: [] }) as RunData;

/** Appends a chunk; the result shares nothing mutable with the input. */
export function appendChunk(d: RunData, c: RunChunk): RunData {
  const n = c.step.length;
  const m = c.keys.length;
  if (c.seconds.length !== n || c.metrics.length !== n * m) {
    throw new Error(`appendChunk: ${n} steps need ${n} seconds and ${n * m} metric values, got ${c.seconds.length} and ${c.metrics.length}`);
  }
  const series: Record<string, number[]> = {};
  const keys = new Set([...Object.keys(d.series), ...c.keys]);
  for (const k of keys) {
    const j = c.keys.indexOf(k);
    const old = d.series[k] ?? new Array<number>(d.step.length).fill(NaN);
    const added = Array.from({ length: n }, (_, i) => (j < 0 ? NaN : c.metrics[i * m + j]));
    series[k] = n === 0 ? old : old.concat(added);
  }
  return {
    step: n === 0 ? d.step : d.step.concat(Array.from(c.step)),
    seconds: n === 0 ? d.seconds : d.seconds.concat(Array.from(c.seconds)),
    series,
    evals: c.evals.length === 0 ? d.evals : d.evals.concat(c.evals),
    samples: c.samples.length === 0 ? d.samples : d.samples.concat(c.samples).slice(-MAX_SAMPLE_EVENTS),
    records: !c.records?.length ? d.records : d.records.concat(c.records),
  };
}

/** A chunk as plain arrays (typed arrays from the worker are copied out). */
export function plainChunk(c: RunChunk): RunChunk {
  return { step: Array.from(c.step), seconds: Array.from(c.seconds), keys: [...c.keys], metrics: Array.from(c.metrics), samples: c.samples, evals: c.evals, records: c.records ?? [] };
}

/** The whole data as one chunk (what the archive stores after rewriting a run). */
export function chunkOfData(d: RunData): RunChunk {
  const keys = Object.keys(d.series);
  const metrics = new Array<number>(d.step.length * keys.length);
  d.step.forEach((_, i) => keys.forEach((k, j) => (metrics[i * keys.length + j] = d.series[k][i])));
  return { step: [...d.step], seconds: [...d.seconds], keys, metrics, samples: d.samples, evals: d.evals, records: d.records };
}
