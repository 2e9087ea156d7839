// The live loss curve. Points come from the store, already batched to one update per frame;
// animation is off so each update draws at once.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { LossPoint } from '../state/charts/points';
import { formatLoss } from './format';

/** Axis ticks: three significant digits, no trailing zeros. */
const tick = (v: number): string => String(Number(v.toPrecision(3)));

/** `steps` fixes the x axis to the whole run, so the curve grows across the chart. */
export function LossChart({ points, steps }: { points: LossPoint[]; steps: number }) {
  const first = points[0];
  const last = points[points.length - 1];
  return (
    <figure
      className="chart"
      data-testid="chart-loss"
      data-points={points.length}
      data-first-loss={first?.loss}
      data-last-loss={last?.loss}
      aria-label="Training loss by step"
    >
      {points.length === 0 ? (
        <div className="chart-empty">The loss curve appears here once training starts.</div>
      ) : (
        <LineChart responsive data={points} style={{ width: '100%', height: 260 }} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
          <XAxis dataKey="step" type="number" domain={[0, (max: number) => Math.max(max, steps)]} allowDecimals={false} tickFormatter={tick} />
          <YAxis width={56} domain={[0, 'auto']} tickFormatter={tick} />
          <Tooltip formatter={(v) => (typeof v === 'number' ? formatLoss(v) : String(v))} labelFormatter={(s) => `step ${s}`} />
          <Line className="loss-line" type="monotone" dataKey="loss" name="loss" dot={false} isAnimationActive={false} strokeWidth={2} />
        </LineChart>
      )}
      <figcaption>Cross-entropy loss (nats per token) by training step</figcaption>
    </figure>
  );
}
