// A rollout tree (TreeViewSpec, DATPO): one problem of one step, each root path a horizontal line
// as long as its tokens, its forks as dots on it (the fork's entropy score beside), and each branch
// leaving its fork and running on for its own tokens; green paths reach the right answer, red ones
// do not; hovering a path shows its text, reward and last block's advantage.
import { useId, useMemo, useState } from 'react';
import type { CurriculumRecord } from '../loops/events';
import type { TreeViewSpec } from '../loops/spec';
import type { RecordsEvent } from '../lab/protocol';
import { formatValue } from './format';
import { useWidth } from './charts/useWidth';

const ROW = 22;
const BRANCH = 9;
const PAD = { left: 34, right: 12, top: 10 };

interface Leaf {
  root: number;
  fork: number | null;
  length: number;
  reward: number;
  advantage: number | null;
  path: string;
  forkAt: number[];
  forkScores: number[];
}

function leafOf(r: CurriculumRecord): Leaf {
  const forkAt = typeof r.forkAt === 'string' && r.forkAt ? r.forkAt.split(' ').map(Number) : [];
  return {
    root: Number(r.root), fork: r.fork === null || r.fork === undefined ? null : Number(r.fork), length: Number(r.length ?? 0), reward: Number(r.reward),
    advantage: typeof r.advantage === 'number' ? r.advantage : null, path: String(r.path ?? ''), forkAt, forkScores: Array.isArray(r.forkScores) ? (r.forkScores as number[]) : [],
  };
}

export function TreeView({ spec, events }: { spec: TreeViewSpec; events: readonly RecordsEvent[] }) {
  const stepId = useId();
  const problemId = useId();
  const [ref, width] = useWidth<HTMLDivElement>();
  const steps = useMemo(() => [...new Set(events.filter((e) => e.records.some((r) => r.kind === spec.record)).map((e) => e.step))], [events, spec.record]);
  const [chosenStep, setStep] = useState<number | null>(null);
  const step = chosenStep !== null && steps.includes(chosenStep) ? chosenStep : steps[steps.length - 1];
  const records = useMemo(() => events.filter((e) => e.step === step).flatMap((e) => e.records).filter((r) => r.kind === spec.record), [events, step, spec.record]);
  // problems of the step in order; one drawn more than once in a step is told apart by its place
  const problems = useMemo(() => {
    const out: { label: string; records: CurriculumRecord[] }[] = [];
    let current: CurriculumRecord[] | null = null;
    let lastRoot = Infinity;
    for (const r of records) {
      const root = Number(r.root);
      if (!current || r.problem !== current[0].problem || (r.fork === null && root < lastRoot)) {
        current = [];
        out.push({ label: `${out.length + 1}. ${String(r.problem)} (v = ${formatValue(Number(r.v))}, K̂ ${String(r.forks)}, B̂ ${String(r.branches)})`, records: current });
      }
      current.push(r);
      if (r.fork === null) lastRoot = root;
    }
    return out;
  }, [records]);
  const [chosenProblem, setProblem] = useState(0);
  const problem = problems[Math.min(chosenProblem, problems.length - 1)];
  const leaves = (problem?.records ?? []).map(leafOf);
  const roots = leaves.filter((l) => l.fork === null);
  const maxLen = Math.max(1, ...roots.map((r) => r.length), ...leaves.filter((l) => l.fork !== null).map((l) => (l.fork as number) + l.length));
  const x = (t: number) => PAD.left + (t / maxLen) * Math.max(10, width - PAD.left - PAD.right);
  // each root's block: its own row, then a row per branch below it
  let y = PAD.top;
  const rows = roots.map((r) => {
    const branches = leaves.filter((l) => l.root === r.root && l.fork !== null);
    const top = y;
    y += ROW + branches.length * BRANCH + 6;
    return { r, branches, top };
  });
  const height = y + 4;
  const colour = (reward: number) => (reward > 0 ? 'tree-right' : 'tree-wrong');
  const tip = (l: Leaf) => `${l.path}\nreward ${formatValue(l.reward)}${l.advantage === null ? '' : ` · last block A = ${formatValue(l.advantage)}`}`;
  return (
    <section className="record-browser tree-view" data-testid={`tree-${spec.id}`} data-roots={roots.length} data-branches={leaves.length - roots.length} data-forks={roots.reduce((a, r) => a + r.forkAt.length, 0)}>
      <h3>{spec.title}</h3>
      <p className="chart-note">{spec.note}</p>
      {steps.length === 0 ? (
        <p className="chart-empty">Appears once a step has grown its trees.</p>
      ) : (
        <>
          <div className="browser-controls">
            <label htmlFor={stepId}>step</label>
            <select id={stepId} data-testid={`tree-${spec.id}-step`} value={step} onChange={(e) => (setStep(Number(e.target.value)), setProblem(0))}>
              {steps.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
            <label htmlFor={problemId}>problem</label>
            <select id={problemId} data-testid={`tree-${spec.id}-problem`} value={Math.min(chosenProblem, problems.length - 1)} onChange={(e) => setProblem(Number(e.target.value))}>
              {problems.map((p, i) => <option key={i} value={i}>{p.label}</option>)}
            </select>
          </div>
          <div ref={ref} className="tree-area">
            {width > 0 && (
              <svg width={width} height={height} role="img" aria-label={`rollout tree: ${roots.length} roots, ${leaves.length - roots.length} branches`}>
                {rows.map(({ r, branches, top }) => {
                  const yr = top + ROW / 2;
                  return (
                    <g key={r.root}>
                      <text x={4} y={yr + 4} className="tree-label">#{r.root}</text>
                      <line x1={x(0)} y1={yr} x2={x(r.length)} y2={yr} className={`tree-path ${colour(r.reward)}`} data-testid="tree-root"><title>{tip(r)}</title></line>
                      {branches.map((b, i) => {
                        const yb = yr + (i + 1) * BRANCH;
                        const f = b.fork as number;
                        return (
                          <polyline key={i} points={`${x(f)},${yr} ${x(f) + 4},${yb} ${x(f + b.length)},${yb}`} className={`tree-path tree-branch ${colour(b.reward)}`} data-testid="tree-branch"><title>{tip(b)}</title></polyline>
                        );
                      })}
                      {r.forkAt.map((p, k) => (
                        <g key={k} data-testid="tree-fork">
                          <circle cx={x(p)} cy={yr} r={4} className="tree-fork" />
                          {r.forkScores[k] !== undefined && <text x={x(p) + 5} y={yr - 4} className="tree-score">{formatValue(r.forkScores[k])}</text>}
                          <title>{`fork at token ${p}${r.forkScores[k] !== undefined ? `, score ${formatValue(r.forkScores[k])}` : ''}`}</title>
                        </g>
                      ))}
                    </g>
                  );
                })}
              </svg>
            )}
          </div>
          <p className="detail">Green: the path's answer is right; red: it is not. A dot is a fork (the number: its step's normalised mean entropy); a branch leaves it and runs on for its own tokens. Hover a path for its text and its last block's advantage.</p>
        </>
      )}
    </section>
  );
}
