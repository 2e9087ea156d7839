// The results table: one row per arm, in the arm's colour; the chosen metrics at the end (mean ±
// s.e. over seeds), pass@1 at the last evaluation, its change paired by problem, and the difference
// to the control arm paired by problem. A difference within two standard errors is marked "≈" (not
// distinguishable from none). A click on a column's head sorts by it.
import { useState } from 'react';
import { armColour, type ArmView } from '../../explore/draw';
import { pmText, sortRows, tableRows, type SortColumn } from '../../explore/table';
import type { PairedDifference } from '../../metrics/bands';
import { nText } from './frame';

function DiffCell({ d, what }: { d: PairedDifference | null; what: string }) {
  if (!d || !Number.isFinite(d.mean)) return <td className="num" data-within="na">—</td>;
  const sign = d.mean > 0 ? '+' : '';
  return (
    <td className={`num${d.withinTwoSe ? ' within-2se' : ''}`} data-within={d.withinTwoSe} title={d.withinTwoSe ? `${what}: within two standard errors of 0, not distinguishable from no difference (${d.problems} problems)` : `${what}: beyond two standard errors (${d.problems} problems)`}>
      {d.withinTwoSe ? '≈ ' : ''}
      {sign}
      {pmText(d)}
    </td>
  );
}

/** `lead`: how many of `metrics` are the question's own (a sweep's lead), shown before held-out pass@1. */
export function ResultsTable({ arms, metrics, lead = 0, controlId, setControl }: { arms: readonly ArmView[]; metrics: readonly string[]; lead?: number; controlId: string | null; setControl: (id: string) => void }) {
  const [sort, setSort] = useState<{ column: SortColumn; dir: 'asc' | 'desc' }>({ column: 'arm', dir: 'asc' });
  const rows = sortRows(tableRows(arms, metrics, controlId), sort.column, sort.dir);
  const control = arms.find((a) => a.id === controlId);
  const head = (column: SortColumn, text: string, title?: string) => (
    <th scope="col" aria-sort={sort.column === column ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'} title={title}>
      <button type="button" className="link" data-testid={`explorer-sort-${column}`} onClick={() => setSort((s) => ({ column, dir: s.column === column && s.dir === 'desc' ? 'asc' : s.column === column ? 'desc' : 'desc' }))}>
        {text}
        {sort.column === column ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
      </button>
    </th>
  );
  const metricHead = (k: string) => head(`metric:${k}`, `${k} (end)`, `${k} at each seed's last step: mean ± standard error over seeds`);
  return (
    <div className="explorer-table-wrap">
      <div className="explorer-table-controls">
        <label>
          Compared with{' '}
          <select data-testid="explorer-control" value={controlId ?? ''} onChange={(e) => setControl(e.target.value)}>
            {arms.map((a) => (
              <option key={a.id} value={a.id}>
                {a.control ? 'control: ' : ''}
                {a.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <table className="explorer-table" data-testid="explorer-table">
        <thead>
          <tr>
            {head('arm', 'Arm')}
            <th scope="col">Seeds</th>
            {/* the question's metrics, then the comparisons: the columns a reader came for stay in view on a narrow screen */}
            {metrics.slice(0, lead).map(metricHead)}
            {head('vsControl', `held-out pass@1 vs ${control ? control.label : 'control'}`, 'pass@1 at the last evaluation minus the compared arm\'s, paired by problem: mean ± standard error across problems')}
            {head('change', 'pass@1 change', 'pass@1 at the last evaluation minus at the start, paired by problem (as rlvr-lab ablate): mean ± standard error across problems')}
            {head('pass1', 'pass@1 (end)', 'pass@1 at the last evaluation: mean ± standard error over seeds')}
            {metrics.slice(lead).map(metricHead)}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const metricCell = (k: string) => (
              <td key={k} className="num" data-metric={k}>
                {pmText(r.metrics[k])}
              </td>
            );
            return (
              <tr key={r.arm.id} data-testid="explorer-row" data-arm={r.arm.id} title={r.note}>
                <th scope="row">
                  <span className="swatch" style={{ background: armColour(r.arm.colour) }} aria-hidden="true" /> {r.arm.control ? 'control: ' : ''}
                  {r.arm.label}
                </th>
                <td className="num">{nText(r.arm.seeds.length, r.arm.planned)}</td>
                {metrics.slice(0, lead).map(metricCell)}
                {r.arm.id === controlId ? <td className="num detail">(compared arm)</td> : <DiffCell d={r.vsControl} what={`difference to ${control?.label ?? 'the control'}`} />}
                <DiffCell d={r.change} what="change from the start" />
                <td className="num" data-metric="pass1">{pmText(r.pass1)}</td>
                {metrics.slice(lead).map(metricCell)}
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="detail">
        ± one standard error: over seeds for end values, across problems for differences paired by problem. <span className="within-2se">≈</span> marks a difference within two standard errors of zero.
      </p>
    </div>
  );
}
