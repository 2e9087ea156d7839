// Run export: step metrics as CSV, the whole run as JSON. Text cells are guarded against
// formula injection (a cell starting with = + - @ tab or CR gets a leading quote, OWASP's
// advice) and quoted when they hold a separator, a quote or a line break. Numbers are written
// as numbers: "-0.5" is a value to a spreadsheet, not a formula.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? '' : String(v);
  let s = String(v);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return cells.map(csvCell).join(',');
}

export interface MetricTable {
  step: readonly number[];
  seconds: readonly number[];
  series: Readonly<Record<string, readonly number[]>>;
  /** held-out evaluations: their pass@k go in columns eval_pass@k on their step's row */
  evals?: readonly { step: number; passAtK: Readonly<Record<string, number>> }[];
}

/**
 * One row per step: step, seconds, every metric (empty where not reported), then the pass@k of
 * the evaluation after that step, if any (eval_pass@1, eval_pass@2…). The start's evaluation has
 * a row of its own, step 0, with no metrics.
 */
export function metricsCsv(t: MetricTable): string {
  const keys = Object.keys(t.series);
  const evals = new Map((t.evals ?? []).map((e) => [e.step, e.passAtK]));
  const ks = [...new Set((t.evals ?? []).flatMap((e) => Object.keys(e.passAtK)))].sort((a, b) => Number(a) - Number(b));
  const lines = [csvRow(['step', 'seconds', ...keys, ...ks.map((k) => `eval_pass@${k}`)])];
  const passCells = (step: number) => ks.map((k) => evals.get(step)?.[k]);
  const stepSet = new Set(t.step);
  // evaluations at steps without metrics (the start's) come first, in step order
  for (const step of [...evals.keys()].filter((s) => !stepSet.has(s)).sort((a, b) => a - b)) lines.push(csvRow([step, null, ...keys.map(() => null), ...passCells(step)]));
  for (let i = 0; i < t.step.length; i++) lines.push(csvRow([t.step[i], t.seconds[i], ...keys.map((k) => t.series[k][i]), ...passCells(t.step[i])]));
  return lines.join('\r\n') + '\r\n';
}
