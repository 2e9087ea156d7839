// pass@k (or maj@k) by k on a log axis, per arm at the start (dashed) and at the last evaluation
// (solid), each k's mean over the seeds with an error bar of ± 1 standard error across seeds.
import { memo, useMemo, useRef } from 'react';
import { armColour, kCurve, type ArmView, type KPoint } from '../../explore/draw';
import { linear, niceTicks } from '../../explore/axis';
import { useWidth } from '../charts/useWidth';
import { useStaggered } from '../charts/stagger';
import { Axes, CHART_H, ExplorerFrame, pathOf, PAD, useFirstDrawMark, useVisible } from './frame';

const pct = (v: number) => `${Math.round(v * 100)}%`;

interface Props {
  what: 'pass' | 'maj';
  arms: readonly ArmView[];
}

const version = (arms: readonly ArmView[]) => arms.map((a) => `${a.id}:${a.seeds.map((s) => `${s.seed}.${s.end.step}`).join(',')}`).join('|');

function KChartDrawn({ what, arms }: Props) {
  const [visRef, visible] = useVisible<HTMLElement>();
  const [widthRef, width] = useWidth<HTMLDivElement>();
  const latest = useRef(arms);
  latest.current = arms;
  const want = visible && width > 0 ? `${version(arms)}#${what}#${width}` : null;
  const turn = useStaggered(want);
  const m = useMemo(() => {
    if (turn === null) return null;
    const curves = latest.current.map((arm) => ({ arm, start: kCurve(arm, 'start', what), end: kCurve(arm, 'end', what) })).filter((c) => c.end.length + c.start.length > 0);
    const ks = [...new Set(curves.flatMap((c) => [...c.start, ...c.end].map((p) => p.k)))].sort((a, b) => a - b);
    const kMax = Math.max(2, ...ks);
    const x = linear(0, Math.log2(kMax), PAD.left + 6, width - PAD.right - 6);
    const yt = niceTicks(0, 1, 4);
    const y = linear(0, 1, CHART_H - PAD.bottom, PAD.top);
    return { curves, ks, x: (k: number) => x(Math.log2(k)), y, yt, points: curves.reduce((a, c) => a + c.end.length, 0) };
  }, [turn]);
  useFirstDrawMark(m !== null);
  const id = what === 'pass' ? 'passk' : 'majk';
  const title = what === 'pass' ? 'pass@k by k: start (dashed) and last evaluation (solid)' : 'maj@k by k: start (dashed) and last evaluation (solid)';
  const note = what === 'pass'
    ? 'Chance that at least one of k samples is right, per held-out problem, by k (log axis); each arm\'s mean over its seeds, error bars ± 1 standard error across seeds. RLVR lifts small k; if it narrows the policy, large k can fall below the start.'
    : 'Chance that the most common answer of k samples is right (majority vote), by k; as pass@k, mean over seeds ± 1 standard error.';
  const bars = (pts: readonly KPoint[], c: string, dx: number) =>
    m && pts.filter((p) => p.se > 0).map((p) => <line key={`e${p.k}`} className="explorer-errbar" x1={m.x(p.k) + dx} x2={m.x(p.k) + dx} y1={m.y(Math.max(0, p.mean - p.se))} y2={m.y(Math.min(1, p.mean + p.se))} style={{ stroke: c }} />);
  return (
    <ExplorerFrame id={id} title={title} note={note} arms={m?.curves.length ?? 0} points={m?.points ?? 0} drawn={m !== null} waiting={turn !== want} frameRef={visRef}>
      <div ref={widthRef} className="chart-area">
        {m === null ? (
          <div className="chart-empty" style={{ height: CHART_H }} />
        ) : m.curves.length === 0 ? (
          <div className="chart-empty">{what === 'maj' ? 'No maj@k in these evaluations.' : 'Appears after the first evaluation.'}</div>
        ) : (
          <svg width={width} height={CHART_H} role="img" aria-label={title}>
            <Axes w={width} h={CHART_H} xTicks={m.ks} yTicks={m.yt.ticks} x={m.x} y={m.y} xLabel="k (samples per problem, log scale)" yFmt={pct} xFmt={String} />
            {m.curves.map(({ arm, start, end }, i) => {
              const c = armColour(arm.colour);
              // arms side by side by a pixel or two, so their error bars do not hide each other
              const dx = (i - (m.curves.length - 1) / 2) * 2;
              return (
                <g key={arm.id} data-arm={arm.id}>
                  <path className="explorer-k-start" d={pathOf(start.map((p) => ({ x: m.x(p.k) + dx, y: m.y(p.mean) })))} style={{ stroke: c }} />
                  <path className="explorer-mean" d={pathOf(end.map((p) => ({ x: m.x(p.k) + dx, y: m.y(p.mean) })))} style={{ stroke: c }}>
                    <title>{`${arm.label}: ${end.map((p) => `k=${p.k} ${pct(p.mean)}`).join(', ')}`}</title>
                  </path>
                  {end.map((p) => <circle key={p.k} cx={m.x(p.k) + dx} cy={m.y(p.mean)} r={2.5} style={{ fill: c }} />)}
                  {bars(end, c, dx)}
                  {bars(start, c, dx)}
                </g>
              );
            })}
          </svg>
        )}
      </div>
    </ExplorerFrame>
  );
}

export const KChart = memo(KChartDrawn, (a, b) => a.what === b.what && version(a.arms) === version(b.arms) && a.arms.map((x) => x.colour).join() === b.arms.map((x) => x.colour).join());
