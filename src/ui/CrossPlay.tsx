// A loop's cross-play matrix (CrossPlaySpec): computed on demand in the engine worker from the
// run's snapshots, with its progress, then drawn as a heat map: one row per reasoner checkpoint,
// one column per challenger checkpoint, each cell the pass rate (darker = solved more often).
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

function Matrix({ spec, r }: { spec: CrossPlaySpec; r: CrossPlayResult }) {
  return (
    <div className="table-scroll">
      <table className="crossplay" data-testid="crossplay-matrix" data-rows={r.steps.length}>
        <caption>
          {spec.rows} (rows) × {spec.columns} (columns): pass rate on {r.documents} documents, one question each, {r.answers} answers a question
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
          {r.passRate.map((row, i) => (
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
      {state?.result && <Matrix spec={spec} r={state.result} />}
    </section>
  );
}
