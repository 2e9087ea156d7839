// One step metric of every arm: its mean over the seeds with a band (standard error, min–max or
// bootstrap), by step, generated tokens or compute time; each seed's own line thin in the arm's
// colour on demand. Plain SVG, thinned to the chart's width (LTTB on the mean), drawn once the
// chart scrolls near the viewport and again only when its arms' data grow.
import { memo, useMemo, useRef } from 'react';
import type { BandKind } from '../../metrics/bands';
import { armColour, armEnd, armLine, seedLine, splitBySeeds, thinBand, X_LABEL, type ArmView, type ChartDef, type XMode } from '../../explore/draw';
import { linear, niceTicks, tickText } from '../../explore/axis';
import { lttb } from '../../state/charts/series';
import { useWidth } from '../charts/useWidth';
import { useStaggered } from '../charts/stagger';
import { Axes, CHART_H, ExplorerFrame, pathOf, PAD, useFirstDrawMark, useVisible } from './frame';

interface Props {
  def: ChartDef;
  arms: readonly ArmView[];
  mode: XMode;
  band: BandKind;
  showSeeds: boolean;
}

/** Changes when an arm gains a seed or a step (the data only grow), so a redraw happens then only. */
export const dataVersion = (arms: readonly ArmView[], key: string): string =>
  arms.map((a) => `${a.id}:${a.seeds.map((s) => `${s.seed}.${s.series?.metrics[key]?.length ?? 0}`).join(',')}`).join('|');

function model(p: Props, width: number) {
  const plotW = width - PAD.left - PAD.right;
  // thinned after the split, so the point where seeds stop reaching is always kept
  const lines = p.arms.map((arm) => {
    const { head, full, tail, seeds } = splitBySeeds(armLine(arm, p.def.key, p.mode, p.band));
    const band = thinBand(full, plotW), before = thinBand(head, plotW), rest = thinBand(tail, plotW);
    return { arm, band, head: before, tail: rest, seeds, all: [...before, ...band, ...rest], ring: armEnd(arm, p.def.key, p.mode, p.band) };
  });
  const seeds = p.showSeeds ? p.arms.flatMap((arm) => arm.seeds.map((s) => ({ arm, pts: lttb(seedLine(s, p.def.key, p.mode), plotW) }))) : [];
  let xMin = Infinity, xMax = 0, yLo = Infinity, yHi = -Infinity;
  for (const l of lines) for (const b of l.ring ? [...l.all, l.ring] : l.all) (xMin = Math.min(xMin, b.x)), (xMax = Math.max(xMax, b.x)), (yLo = Math.min(yLo, b.lo, b.mean)), (yHi = Math.max(yHi, b.hi, b.mean));
  for (const s of seeds) for (const q of s.pts) (xMin = Math.min(xMin, q.x)), (xMax = Math.max(xMax, q.x)), (yLo = Math.min(yLo, q.y)), (yHi = Math.max(yHi, q.y));
  // a 0–1 metric keeps its whole axis while it fits in it
  if (p.def.unit && yLo >= 0 && yHi <= 1) (yLo = 0), (yHi = 1);
  const yt = niceTicks(yLo, yHi, 4);
  // steps start at 1 (a held-out chart's at 0, its first evaluation)
  const xt = niceTicks(p.mode === 'step' ? Math.min(1, xMax, xMin) : 0, xMax, 5, p.mode !== 'time');
  const x = linear(xt.lo, xt.hi, PAD.left, width - PAD.right);
  const y = linear(yt.lo, yt.hi, CHART_H - PAD.bottom, PAD.top);
  const drawn = lines.filter((l) => l.all.length > 0);
  return { lines: drawn, seeds, xt, yt, x, y, points: drawn.reduce((a, l) => a + l.band.length + Math.max(0, l.head.length - 1) + Math.max(0, l.tail.length - 1), 0) };
}

function BandChartDrawn(p: Props) {
  const [visRef, visible] = useVisible<HTMLElement>();
  const [widthRef, width] = useWidth<HTMLDivElement>();
  const latest = useRef(p);
  latest.current = p;
  // each chart draws in a task of its own (stagger.ts), never all those scrolled in at once
  const want = visible && width > 0 ? `${dataVersion(p.arms, p.def.key)}#${p.mode}#${p.band}#${p.showSeeds}#${width}` : null;
  const turn = useStaggered(want);
  const m = useMemo(() => (turn !== null ? model(latest.current, width) : null), [turn]);
  useFirstDrawMark(m !== null);
  const own = p.def.own ? ` (${p.def.own.join(', ')} arms)` : '';
  return (
    <ExplorerFrame id={p.def.id} title={`${p.def.title}${own}`} note={p.def.note} arms={m?.lines.length ?? 0} points={m?.points ?? 0} drawn={m !== null} waiting={turn !== want} frameRef={visRef} extra={{ key: p.def.key }}>
      <div ref={widthRef} className="chart-area">
        {m === null ? (
          <div className="chart-empty" style={{ height: CHART_H }} />
        ) : m.lines.length === 0 ? (
          <div className="chart-empty">No values on this axis yet.</div>
        ) : (
          <svg width={width} height={CHART_H} role="img" aria-label={`${p.def.title}: ${m.lines.length} arms`}>
            <Axes w={width} h={CHART_H} xTicks={m.xt.ticks} yTicks={m.yt.ticks} x={m.x} y={m.y} xLabel={X_LABEL[p.mode]} yFmt={tickText} xFmt={tickText} />
            {m.lines.map(({ arm, band, head, tail, seeds, all, ring }) => {
              const c = armColour(arm.colour);
              const hi = band.map((b) => ({ x: m.x(b.x), y: m.y(b.hi) }));
              const lo = band.map((b) => ({ x: m.x(b.x), y: m.y(b.lo) })).reverse();
              const last = all[all.length - 1];
              const endTitle = `${arm.label}: ${tickText(last.mean)} at ${p.mode} ${tickText(last.x)} (n = ${last.n})`;
              // a stretch where fewer than all the arm's seeds count: dashed, no band
              const dashed = (pts: typeof head, testid: string, title: (first: number, lastX: number) => string) =>
                pts.length > 1 && (
                  <path className="explorer-mean explorer-tail" data-testid={testid} d={pathOf(pts.map((b) => ({ x: m.x(b.x), y: m.y(b.mean) })))} style={{ stroke: c }}>
                    <title>{title(pts[0].x, pts[pts.length - 1].x)}</title>
                  </path>
                );
              return (
                <g key={arm.id} data-arm={arm.id}>
                  {band.length > 1 && <path className="explorer-band" d={`${pathOf([...hi, ...lo])}Z`} style={{ fill: c }} />}
                  {band.length > 0 && (
                    <path className="explorer-mean" d={pathOf(band.map((b) => ({ x: m.x(b.x), y: m.y(b.mean) })))} style={{ stroke: c }}>
                      <title>{tail.length ? `${arm.label}: all ${seeds} seeds span ${p.mode} ${tickText(band[0].x)} to ${tickText(band[band.length - 1].x)}` : endTitle}</title>
                    </path>
                  )}
                  {dashed(head, 'explorer-head', (_, to) => `${arm.label}: before ${p.mode} ${tickText(to)} fewer than the arm's ${seeds} seeds have started, so the mean is over fewer seeds (dashed, no band)`)}
                  {dashed(tail, 'explorer-tail', (from) => `${endTitle}: beyond ${p.mode} ${tickText(from)} fewer than the arm's ${seeds} seeds reach, so the mean is over fewer seeds (dashed, no band)`)}
                  {band.length === 1 && <circle cx={m.x(band[0].x)} cy={m.y(band[0].mean)} r={3} style={{ fill: c }} />}
                  {ring && (
                    <circle className="explorer-end" data-testid="explorer-end" cx={m.x(ring.x)} cy={m.y(ring.mean)} r={4.5} style={{ stroke: c }}>
                      <title>{`${arm.label}: ${tickText(ring.mean)} (${tickText(ring.lo)} to ${tickText(ring.hi)}), the mean of every seed's last value (n = ${ring.n}), at their mean last ${p.mode} ${tickText(ring.x)}: the arm's end, where its seeds end apart`}</title>
                    </circle>
                  )}
                </g>
              );
            })}
            {m.seeds.map(({ arm, pts }, i) => (
              <path key={`s${i}`} className="explorer-seed" d={pathOf(pts.map((q) => ({ x: m.x(q.x), y: m.y(q.y) })))} style={{ stroke: armColour(arm.colour) }} />
            ))}
          </svg>
        )}
      </div>
    </ExplorerFrame>
  );
}

export const BandChart = memo(BandChartDrawn, (a, b) => a.def.id === b.def.id && a.def.title === b.def.title && a.mode === b.mode && a.band === b.band && a.showSeeds === b.showSeeds && dataVersion(a.arms, a.def.key) === dataVersion(b.arms, b.def.key) && a.arms.map((x) => x.colour).join() === b.arms.map((x) => x.colour).join());
