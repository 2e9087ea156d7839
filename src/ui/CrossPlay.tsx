// A loop's cross-play matrices (CrossPlaySpec): computed on demand in the main worker from the
// run's snapshots, with its progress, then drawn as a heat map: one row per reasoner checkpoint,
// one column per challenger checkpoint, each cell the pass rate (darker = solved more often).
// The spec's gradings (SPICE: by the challenger's gold, by the true value) are one matrix each;
// a selector picks the one drawn, so the two are read on the same cells.
import { useId, useState } from 'react';
import type { CrossPlaySpec, CrossPlayResult } from '../loops/spec';
import { isFinished, type RunView } from '../state/runsSlice';
import { useLab } from './LabStore';

/** Documents and answers a cross-play computes on (one question a document for each challenger). */
export const CROSS_PLAY_DOCUMENTS = 16;
export const CROSS_PLAY_ANSWERS = 8;

function cellStyle(p: number | null): React.CSSProperties {
  if (p === null) return {};
  // light to dark blue with the pass rate; the text turns white on the dark half
  return { background: `hsl(212, 70%, ${Math.round(96 - 58 * p)}%)`, color: p > 0.55 ? '#fff' : undefined };
}

function Matrix({ spec, r, grading }: { spec: CrossPlaySpec; r: CrossPlayResult; grading: CrossPlaySpec['gradings'][number] }) {
  const rows = r.passRate[grading.key] ?? [];
  const prompts = r.withDocuments ? `${r.documents} documents, one question each` : `${r.documents} prompts without a document (the run's no-corpus ablation), one question each`;
  return (
    <div className="table-scroll">
      <table className="crossplay" data-testid="crossplay-matrix" data-grading={grading.key} data-rows={r.steps.length}>
        <caption>
          {spec.rows} (rows) × {spec.columns} (columns): pass rate {grading.label} on {prompts}, {r.answers} answers a question ({grading.note})
        </caption>
        <thead>
          <tr>
            <th scope="col">{spec.rows} ↓ · {spec.columns} →</th>
            {r.steps.map((s, j) => (
              <th key={s} scope="col" title={`${r.valid[j]} of ${r.documents} questions valid`}>
                {s}
                <span className="crossplay-valid">{r.valid[j]}/{r.documents} valid</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={r.steps[i]}>
              <th scope="row">{r.steps[i]}</th>
              {row.map((p, j) => (
                <td key={j} data-testid="crossplay-cell" data-value={p === null ? '' : String(p)} style={cellStyle(p)} title={p === null ? 'the challenger wrote no valid question' : `reasoner ${r.steps[i]} on challenger ${r.steps[j]}: ${(100 * p).toFixed(0)} %`}>
                  {p === null ? '–' : `${(100 * p).toFixed(0)} %`}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CrossPlay({ spec, run }: { spec: CrossPlaySpec; run: RunView }) {
  const state = useLab((s) => s.crossPlay[run.id]);
  const compute = useLab((s) => s.computeCrossPlay);
  const finished = isFinished(run.status.state) && !run.elsewhere;
  const running = state?.status === 'running';
  const [chosen, setChosen] = useState(spec.gradings[0]?.key ?? '');
  const gradingId = useId();
  const grading = spec.gradings.find((g) => g.key === chosen) ?? spec.gradings[0];
  return (
    <section className="record-browser crossplay-view" data-testid={`crossplay-${spec.id}`} data-status={state?.status ?? 'idle'}>
      <h3>{spec.title}</h3>
      <p className="chart-note">{spec.note}</p>
      <div className="browser-controls">
        <button type="button" data-testid="crossplay-compute" disabled={!finished || running} onClick={() => void compute(run.id, { documents: CROSS_PLAY_DOCUMENTS, answers: CROSS_PLAY_ANSWERS, seed: run.config.seed })}>
          {state?.status === 'done' ? 'Compute again' : 'Compute cross-play'}
        </button>
        <span className="status" data-testid="crossplay-status">
          {!finished
            ? 'once the run has ended (it reads the run\'s checkpoints)'
            : running
              ? state.total ? `checkpoint passes: ${state.done} of ${state.total}` : 'loading the checkpoints…'
              : `${CROSS_PLAY_DOCUMENTS} documents, ${CROSS_PLAY_ANSWERS} answers a question, every checkpoint the run kept`}
        </span>
      </div>
      {state?.status === 'failed' && (
        <p className="cfg-error" role="alert" data-testid="crossplay-error">
          {state.error}
        </p>
      )}
      {state?.result && grading && (
        <>
          {spec.gradings.length > 1 && (
            <div className="browser-controls">
              <label htmlFor={gradingId}>grading</label>
              <select id={gradingId} data-testid="crossplay-grading" value={grading.key} onChange={(e) => setChosen(e.target.value)}>
                {spec.gradings.map((g) => (
                  <option key={g.key} value={g.key}>
                    {g.label}
                  </option>
                ))}
              </select>
            </div>
          )}
          <Matrix spec={spec} r={state.result} grading={grading} />
        </>
      )}
    </section>
  );
}
