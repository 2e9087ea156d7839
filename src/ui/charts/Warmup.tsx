// Draws each kind of recharts chart once, hidden, while the page is idle after it loads. A
// chart's first drawing runs recharts' code cold (parsing, JIT) and took 55–60 ms in a task of its
// own in the e2e test, right when a run's first results arrived; warmed, later first drawings
// cost what any redraw costs. Nothing here is visible, focusable or read by assistive technology.
import { useEffect, useState } from 'react';
import { Area, Bar, BarChart, CartesianGrid, ComposedChart, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';

const ROWS = [
  { x: 1, y: 0.2, band: [0.1, 0.3] },
  { x: 2, y: 0.5, band: [0.4, 0.6] },
  { x: 4, y: 0.4, band: [0.3, 0.5] },
];

/** One hidden drawing per kind the charts use (ComposedChart with a band, log-x LineChart, BarChart). */
const DRAWINGS = [
  () => (
    <ComposedChart width={300} height={160} data={ROWS}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="x" type="number" />
      <YAxis domain={[0, 1]} />
      <Tooltip />
      <Area type="linear" dataKey="band" isAnimationActive={false} />
      <Line type="linear" dataKey="y" dot={false} isAnimationActive={false} />
      <ReferenceLine x={2} />
    </ComposedChart>
  ),
  () => (
    <LineChart width={300} height={160} data={ROWS}>
      <XAxis dataKey="x" type="number" scale="log" domain={[1, 4]} />
      <YAxis />
      <Line type="linear" dataKey="y" isAnimationActive={false} />
    </LineChart>
  ),
  () => (
    <BarChart width={300} height={160} data={ROWS}>
      <XAxis dataKey="x" />
      <YAxis />
      <Bar dataKey="y" isAnimationActive={false} />
    </BarChart>
  ),
];

const idle = (f: () => void): (() => void) => {
  if (typeof requestIdleCallback === 'function') {
    const h = requestIdleCallback(f, { timeout: 2000 });
    return () => cancelIdleCallback(h);
  }
  const h = setTimeout(f, 200);
  return () => clearTimeout(h);
};

/** Renders the drawings one per idle period, then nothing. */
export function ChartWarmup() {
  const [next, setNext] = useState(0);
  useEffect(() => {
    if (next > DRAWINGS.length) return;
    // `next` 0 waits for the first idle period; each drawing commits, then the next idle one moves on
    return idle(() => setNext((n) => n + 1));
  }, [next]);
  const Drawing = next >= 1 && next <= DRAWINGS.length ? DRAWINGS[next - 1] : null;
  if (!Drawing) return null;
  return (
    <div className="chart-warmup" aria-hidden="true" inert>
      <Drawing />
    </div>
  );
}
