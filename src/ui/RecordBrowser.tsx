// A loop's curriculum records as a browsable table (the spec's RecordBrowserSpec): the records of
// one step (the latest by default, any earlier one by its number), grouped under their `groupBy`
// fields, one row per record, with a filter per flag column. Model text is shown as text.
import { useId, useMemo, useState } from 'react';
import type { CurriculumRecord } from '../loops/events';
import type { RecordBrowserSpec, RecordColumn } from '../loops/spec';
import type { RecordsEvent } from '../lab/protocol';
import { formatValue } from './format';

type FlagFilter = 'any' | 'yes' | 'no';

function cell(c: RecordColumn, v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (c.format === 'flag') return v ? 'yes' : 'no';
  if (c.format === 'rate' && typeof v === 'number') return `${(v * 100).toFixed(0)} %`;
  if (typeof v === 'number') return formatValue(v);
  return String(v);
}

/** Sort order of two cells: numbers by value, then text; missing values last. */
export function compareValues(a: unknown, b: unknown): number {
  const missing = (v: unknown) => v === null || v === undefined;
  if (missing(a) || missing(b)) return missing(a) === missing(b) ? 0 : missing(a) ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b));
}

/** The records of `step` of this kind, grouped by the spec's groupBy fields, in order of first appearance. */
export function groupRecords(spec: RecordBrowserSpec, records: readonly CurriculumRecord[]): { key: string; head: CurriculumRecord; rows: CurriculumRecord[] }[] {
  const groups = new Map<string, { key: string; head: CurriculumRecord; rows: CurriculumRecord[] }>();
  for (const r of records) {
    if (r.kind !== spec.record) continue;
    const key = JSON.stringify(spec.groupBy.map((g) => r[g.key]));
    const g = groups.get(key) ?? { key, head: r, rows: [] };
    g.rows.push(r);
    groups.set(key, g);
  }
  return [...groups.values()];
}

export function RecordBrowser({ spec, events }: { spec: RecordBrowserSpec; events: readonly RecordsEvent[] }) {
  const stepId = useId();
  const steps = useMemo(() => [...new Set(events.filter((e) => e.records.some((r) => r.kind === spec.record)).map((e) => e.step))], [events, spec.record]);
  const [chosen, setChosen] = useState<number | null>(null);
  const [filters, setFilters] = useState<Record<string, FlagFilter>>({});
  const [sort, setSort] = useState<{ key: string; dir: 1 | -1 } | null>(null);
  const all = spec.scope === 'all';
  const step = chosen !== null && steps.includes(chosen) ? chosen : steps[steps.length - 1];
  const records = useMemo(() => events.filter((e) => all || e.step === step).flatMap((e) => e.records), [events, step, all]);
  const order = (rows: CurriculumRecord[]) => (sort ? [...rows].sort((a, b) => sort.dir * compareValues(a[sort.key], b[sort.key])) : rows);
  const flagColumns = spec.columns.filter((c) => c.format === 'flag' && c.filter);
  const pass = (r: CurriculumRecord) => flagColumns.every((c) => (filters[c.key] ?? 'any') === 'any' || Boolean(r[c.key]) === (filters[c.key] === 'yes'));
  const groups = groupRecords(spec, records).map((g) => ({ ...g, rows: order(g.rows.filter(pass)) })).filter((g) => g.rows.length > 0);
  const shown = groups.reduce((a, g) => a + g.rows.length, 0);
  return (
    <section className="record-browser" data-testid={`browser-${spec.id}`} data-rows={shown} data-step={all ? 'all' : step ?? ''} data-sort={sort ? `${sort.key} ${sort.dir > 0 ? 'up' : 'down'}` : undefined}>
      <h3>{spec.title}</h3>
      <p className="chart-note">{spec.note}</p>
      {steps.length === 0 ? (
        <p className="chart-empty">Appears once a step has made some.</p>
      ) : (
        <>
          <div className="browser-controls">
            {!all && (
              <>
                <label htmlFor={stepId}>step</label>
                <select id={stepId} data-testid={`browser-${spec.id}-step`} value={step} onChange={(e) => setChosen(Number(e.target.value))}>
                  {steps.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              </>
            )}
            {flagColumns.map((c) => (
              <label key={c.key} className="browser-filter">
                {c.label}
                <select data-testid={`browser-${spec.id}-filter-${c.key}`} value={filters[c.key] ?? 'any'} onChange={(e) => setFilters({ ...filters, [c.key]: e.target.value as FlagFilter })}>
                  <option value="any">any</option>
                  <option value="yes">yes</option>
                  <option value="no">no</option>
                </select>
              </label>
            ))}
            <span className="status">{shown} shown</span>
          </div>
          {groups.map((g) => (
            <div className="browser-group" key={g.key} data-testid="browser-group">
              {spec.groupBy.length > 0 && <dl className="browser-head">
                {spec.groupBy.map((f) => (
                  <div key={f.key}>
                    <dt>{f.label}</dt>
                    <dd className={f.format === 'text' ? 'mono' : undefined}>{cell(f, g.head[f.key])}</dd>
                  </div>
                ))}
              </dl>}
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      {spec.columns.map((c) => (
                        <th key={c.key} aria-sort={sort?.key === c.key ? (sort.dir > 0 ? 'ascending' : 'descending') : undefined}>
                          {spec.sortable ? (
                            <button type="button" className="link th-sort" data-testid={`browser-${spec.id}-sort-${c.key}`} title={`Sort by ${c.label}`}
                              onClick={() => setSort(sort?.key === c.key ? { key: c.key, dir: sort.dir > 0 ? -1 : 1 } : { key: c.key, dir: 1 })}>
                              {c.label}{sort?.key === c.key ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''}
                            </button>
                          ) : c.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {g.rows.map((r, i) => (
                      <tr key={i} data-testid="browser-row">
                        {spec.columns.map((c) => (
                          <td key={c.key} className={c.format === 'text' ? 'mono' : undefined} data-flag={c.format === 'flag' ? String(Boolean(r[c.key])) : undefined}>
                            {cell(c, r[c.key])}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </div>
          ))}
        </>
      )}
    </section>
  );
}
