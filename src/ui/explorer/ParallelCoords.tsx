// Parallel coordinates for a grid of more than four arms: one vertical axis per knob (its values in
// order) and per end figure (pass@1, its paired change, the table's metrics), one line per arm in
// its colour, so which knob values lead where reads at a glance.
import { armColour, parallelLayout, type ArmView } from '../../explore/draw';
import { tableRows } from '../../explore/table';
import { linear, tickText } from '../../explore/axis';
import { knobText } from '../../explore/grid';
import { useWidth } from '../charts/useWidth';
import { pathOf } from './frame';

const H = 220;
const BOTTOM = 28;

interface Axis {
  name: string;
  /** each arm's position in [0, 1] (NaN: unknown) */
  at: (i: number) => number;
  labels: { v: number; text: string }[];
}

export function ParallelCoords({ arms, metrics }: { arms: readonly ArmView[]; metrics: readonly string[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const rows = tableRows(arms, metrics, null);
  const knobKeys = [...new Set(arms.flatMap((a) => Object.keys(a.knobs)))];
  const axes: Axis[] = knobKeys.map((k) => {
    const values: unknown[] = [...new Set(arms.map((a) => a.knobs[k]).filter((v) => v !== undefined))].sort((a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))));
    const pos = (v: unknown) => (values.length < 2 ? 0.5 : values.indexOf(v) / (values.length - 1));
    return { name: k, at: (i) => (arms[i].knobs[k] === undefined ? NaN : pos(arms[i].knobs[k])), labels: values.map((v) => ({ v: pos(v), text: knobText(v) })) };
  });
  const figure = (name: string, value: (i: number) => number): Axis => {
    const vs = arms.map((_, i) => value(i)).filter(Number.isFinite);
    const lo = Math.min(...vs), hi = Math.max(...vs);
    const s = linear(lo, hi, 0, 1);
    return { name, at: (i) => (Number.isFinite(value(i)) ? s(value(i)) : NaN), labels: vs.length ? [{ v: 0, text: tickText(lo) }, { v: 1, text: tickText(hi) }] : [] };
  };
  axes.push(figure('pass@1 (end)', (i) => rows[i].pass1.mean), figure('pass@1 change', (i) => rows[i].change?.mean ?? NaN), ...metrics.map((k) => figure(`${k} (end)`, (i) => rows[i].metrics[k].mean)));
  const { w, xs, titleY, top } = parallelLayout(axes.map((a) => a.name), width);
  const x = (j: number) => xs[j];
  const y = linear(0, 1, H - BOTTOM, top);
  return (
    <figure className="chart explorer-chart" data-testid="explorer-parallel" data-arms={arms.length}>
      <figcaption>
        <span className="chart-title">Knob values → end figures, one line per arm</span>
      </figcaption>
      <div ref={ref} className="chart-area explorer-scroll">
        {width > 0 && (
          <svg width={w} height={H} role="img" aria-label="parallel coordinates of the arms">
            {axes.map((a, j) => (
              <g key={a.name} className="explorer-axes">
                <line className="chart-axisline" x1={x(j)} x2={x(j)} y1={y(0)} y2={y(1)} />
                <text className="axis-title" x={x(j)} y={titleY[j]} textAnchor="middle">{a.name}</text>
                {a.labels.map((l) => (
                  <text key={`${l.text}${l.v}`} x={x(j) + 4} y={y(l.v)} dy="0.32em">{l.text}</text>
                ))}
              </g>
            ))}
            {arms.map((arm, i) => (
              <path key={arm.id} className="explorer-mean" style={{ stroke: armColour(arm.colour) }} d={pathOf(axes.map((a, j) => ({ x: x(j), y: y(a.at(i)) })).filter((p) => Number.isFinite(p.y)))}>
                <title>{arm.label}</title>
              </path>
            ))}
          </svg>
        )}
      </div>
      <p className="chart-note">Each knob&apos;s values in order on its axis; each end figure from the arms&apos; lowest to highest. Lines that cross between two axes mean the order of the arms turns over.</p>
    </figure>
  );
}
