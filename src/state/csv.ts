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
}

/** One row per step: step, seconds, then every metric (empty where not reported). */
export function metricsCsv(t: MetricTable): string {
  const keys = Object.keys(t.series);
  const lines = [csvRow(['step', 'seconds', ...keys])];
  for (let i = 0; i < t.step.length; i++) lines.push(csvRow([t.step[i], t.seconds[i], ...keys.map((k) => t.series[k][i])]));
  return lines.join('\r\n') + '\r\n';
}
