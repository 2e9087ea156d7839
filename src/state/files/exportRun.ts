// A run as a file: its step metrics as CSV, or everything (set-up, status, metrics,
// evaluations, recent samples, curriculum records) as JSON. NaN (a metric a step did not report) becomes null in JSON.
import type { RunRecord } from '../persist/archive';
import { metricsCsv } from './csv';
import type { RunData } from '../runData';
import { RUN_FILE_FORMAT, type RunFileJson } from './runFile';

export interface RunFile {
  filename: string;
  mime: string;
  text: string;
}

function baseName(r: RunRecord): string {
  const date = new Date(r.createdAt).toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `rlvr-lab-run-${r.index}-${r.loop}-${r.policy}-${date}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export function runFile(run: RunRecord & { data: RunData }, format: 'csv' | 'json'): RunFile {
  if (format === 'csv') return { filename: `${baseName(run)}.csv`, mime: 'text/csv', text: metricsCsv(run.data) };
  const { data, ...record } = run;
  const { id, index, label, diff, loop, policy, config, createdAt, status } = record;
  const body: RunFileJson = {
    format: RUN_FILE_FORMAT,
    run: { id, index, label, diff, loop, policy, createdAt: new Date(createdAt).toISOString(), status },
    config,
    metrics: { step: data.step, seconds: data.seconds, series: data.series },
    evals: data.evals,
    samples: data.samples,
    // a loop's records are open-ended (CurriculumRecord's fields are unknown to the type): the
    // loops write plain values, which the schema checks when the file is read back
    records: data.records as RunFileJson['records'],
  };
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2);
  return { filename: `${baseName(run)}.json`, mime: 'application/json', text };
}
