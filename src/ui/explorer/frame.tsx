// What every explorer chart shares: it draws once it scrolls near the viewport (a grid of dozens
// of metrics draws only what is looked at), its frame with title, note and test attributes, and the
// arms' legend (colour, name, how many seeds are drawn of how many, and what the band is).
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { BAND_LABEL, type BandKind } from '../../metrics/bands';
import { armColour, type ArmView } from '../../explore/draw';

/** True once the element has come within a screen of the viewport (then it stays drawn). */
export function useVisible<T extends HTMLElement>(): [(el: T | null) => void, boolean] {
  const [visible, setVisible] = useState(false);
  const observer = useRef<IntersectionObserver | null>(null);
  const ref = useCallback((el: T | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!el) return;
    if (typeof IntersectionObserver === 'undefined') return setVisible(true);
    observer.current = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setVisible(true);
        observer.current?.disconnect();
      }
    }, { rootMargin: '100% 0px' });
    observer.current.observe(el);
  }, []);
  return [ref, visible];
}

/** Marks the first explorer chart drawn on this page (`npm run bench` reads the mark: time to first draw). */
export function useFirstDrawMark(drawn: boolean): void {
  useEffect(() => {
    if (drawn && typeof performance !== 'undefined' && performance.getEntriesByName('explorer-first-draw').length === 0) performance.mark('explorer-first-draw');
  }, [drawn]);
}

export const CHART_H = 190;
export const PAD = { left: 50, right: 12, top: 8, bottom: 34 };

export function ExplorerFrame({ id, title, note, arms, points, drawn, waiting = false, children, frameRef, extra }: {
  id: string; title: string; note: string; arms: number; points: number; drawn: boolean; children: ReactNode;
  /** newer data waits for the chart's turn to draw */
  waiting?: boolean;
  frameRef?: (el: HTMLElement | null) => void; extra?: Record<string, string | number>;
}) {
  return (
    <figure
      ref={frameRef} className="chart explorer-chart" data-testid={`explorer-chart-${id}`} data-arms={drawn ? arms : undefined} data-points={drawn ? points : undefined} data-drawn={drawn} data-waiting={waiting || undefined}
      {...Object.fromEntries(Object.entries(extra ?? {}).map(([k, v]) => [`data-${k}`, v]))}
    >
      <figcaption>
        <span className="chart-title">{title}</span>
      </figcaption>
      {children}
      <p className="chart-note">{note}</p>
    </figure>
  );
}

/** Seeds drawn of an arm: "n = 2 of 3". */
export const nText = (drawn: number, planned: number) => `n = ${drawn} of ${planned}`;

export function ArmLegend({ arms, band, count }: { arms: readonly ArmView[]; band: BandKind; count: (a: ArmView) => number }) {
  return (
    <div className="explorer-legend" data-testid="explorer-legend">
      <ul>
        {arms.map((a) => (
          <li key={a.id} data-testid="explorer-legend-arm" data-arm={a.id}>
            <span className="swatch" style={{ background: armColour(a.colour) }} aria-hidden="true" />
            <span className="arm-name">{a.label}</span> <span className="detail">{nText(count(a), a.planned)}</span>
          </li>
        ))}
      </ul>
      <p className="detail" data-testid="explorer-band-kind">
        Lines: each arm&apos;s mean over its seeds; bands: {BAND_LABEL[band]} (at each point, the seeds whose values span it); dashed, with no band, where only some of an arm&apos;s seeds count (before all have started or after the first has stopped, on the axis drawn: a mean over fewer seeds, not a change); a ring, where an arm&apos;s seeds end apart, at the mean of every seed&apos;s last value: the arm&apos;s end.
      </p>
    </div>
  );
}

/** Axis tick marks and labels of an SVG chart. */
export function Axes({ w, h, xTicks, yTicks, x, y, xLabel, yFmt, xFmt }: {
  w: number; h: number; xTicks: readonly number[]; yTicks: readonly number[]; x: (v: number) => number; y: (v: number) => number;
  xLabel: string; yFmt: (v: number) => string; xFmt: (v: number) => string;
}) {
  return (
    <g className="explorer-axes">
      {yTicks.map((t) => (
        <g key={`y${t}`}>
          <line className="chart-gridline" x1={PAD.left} x2={w - PAD.right} y1={y(t)} y2={y(t)} />
          <text x={PAD.left - 6} y={y(t)} dy="0.32em" textAnchor="end">{yFmt(t)}</text>
        </g>
      ))}
      {xTicks.map((t) => (
        <text key={`x${t}`} x={x(t)} y={h - PAD.bottom + 14} textAnchor="middle">{xFmt(t)}</text>
      ))}
      <line className="chart-axisline" x1={PAD.left} x2={w - PAD.right} y1={h - PAD.bottom} y2={h - PAD.bottom} />
      <text className="axis-title" x={(PAD.left + w - PAD.right) / 2} y={h - 4} textAnchor="middle">{xLabel}</text>
    </g>
  );
}

/** An SVG path through points ("M x y L x y …"), pixels rounded to tenths. */
export function pathOf(pts: readonly { x: number; y: number }[]): string {
  let d = '';
  for (let i = 0; i < pts.length; i++) d += `${i === 0 ? 'M' : 'L'}${pts[i].x.toFixed(1)} ${pts[i].y.toFixed(1)}`;
  return d;
}
