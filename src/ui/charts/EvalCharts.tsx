// The held-out evaluations of the selected run: the pass@k curve of one evaluation (k on a log
// axis, a slider picks the step), pass@1 and pass@k(max) over steps, and how accuracy is spread
// over the problems.
import { memo, useId, useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { EvalEvent } from '../../lab/protocol';
import { formatValue } from '../format';
import { useLab } from '../LabStore';
import { axisTick, CHART_HEIGHT, ChartFrame } from './MetricChart';
import { useWidth } from './useWidth';

const MARGIN = { top: 6, right: 12, bottom: 0, left: 0 };
const percent = (v: number): string => `${Math.round(v * 100)}%`;

function kCurve(e: EvalEvent): { k: number; pass: number }[] {
  return Object.entries(e.passAtK)
    .map(([k, v]) => ({ k: Number(k), pass: v }))
    .filter((p) => Number.isFinite(p.k) && p.k >= 1)
    .sort((a, b) => a.k - b.k);
}

function maxK(e: EvalEvent): string {
  return String(Math.max(...Object.keys(e.passAtK).map(Number)));
}

function PassKChart({ evals }: { evals: readonly EvalEvent[] }) {
  const sliderId = useId();
  const chosen = useLab((s) => s.view.evalIndex);
  const setIndex = useLab((s) => s.setEvalIndex);
  const [ref, width] = useWidth<HTMLDivElement>();
  const index = chosen === null || chosen >= evals.length ? evals.length - 1 : chosen;
  const e = evals[index];
  const points = useMemo(() => (e ? kCurve(e) : []), [e]);
  return (
    <ChartFrame
      id="passk" title={e ? `pass@k at step ${e.step}` : 'pass@k'} value={e ? `pass@1 ${percent(e.passAtK['1'] ?? NaN)}` : undefined} points={width > 0 ? points.length : 0}
      note="Chance that at least one of k samples is right, per held-out problem (unbiased estimator), by k. RLVR lifts small k; if it narrows the policy, large k can fall below the base."
      extra={{ step: e?.step ?? -1 }}
    >
      <div ref={ref} className="chart-area">
        {points.length === 0 || width === 0 ? (
          <div className="chart-empty">Appears after the first evaluation.</div>
        ) : (
          <LineChart width={width} height={CHART_HEIGHT} data={points} margin={MARGIN}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="k" type="number" scale="log" domain={[1, 'dataMax']} ticks={points.map((p) => p.k)} tickFormatter={axisTick} />
            <YAxis width={44} domain={[0, 1]} tickFormatter={percent} />
            <Tooltip formatter={(v) => (typeof v === 'number' ? percent(v) : String(v))} labelFormatter={(k) => `k = ${k}`} />
            <Line className="series-main" type="linear" dataKey="pass" name="pass@k" dot={{ className: 'dot-main' }} isAnimationActive={false} strokeWidth={2} />
          </LineChart>
        )}
      </div>
      {evals.length > 1 && (
        <div className="chart-control">
          <label htmlFor={sliderId}>Evaluation at step {e.step}</label>
          <input
            id={sliderId} type="range" min={0} max={evals.length - 1} value={index} data-testid="passk-step"
            onChange={(ev) => {
              const i = Number(ev.target.value);
              setIndex(i === evals.length - 1 ? null : i);
            }}
          />
        </div>
      )}
    </ChartFrame>
  );
}

function PassOverStepsChart({ evals, totalSteps }: { evals: readonly EvalEvent[]; totalSteps: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const k = evals.length > 0 ? maxK(evals[evals.length - 1]) : '';
  const points = useMemo(() => evals.map((e) => ({ step: e.step, pass1: e.passAtK['1'] ?? NaN, passK: e.passAtK[k] ?? NaN })), [evals, k]);
  return (
    <ChartFrame id="pass1" title={`pass@1 and pass@${k || 'k'} over steps`} points={width > 0 ? points.length : 0}
      note={`Held-out accuracy of one sample (pass@1, solid) and of the best of ${k || 'n'} (dashed) at each evaluation. A widening or closing gap shows whether RL adds answers or only sharpens the ones the base already had.`}>
      <div ref={ref} className="chart-area">
        {points.length === 0 || width === 0 ? (
          <div className="chart-empty">Appears after the first evaluation.</div>
        ) : (
          <LineChart width={width} height={CHART_HEIGHT} data={points} margin={MARGIN}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="step" type="number" domain={[0, (max: number) => Math.max(max, totalSteps)]} allowDecimals={false} tickFormatter={axisTick} />
            <YAxis width={44} domain={[0, 1]} tickFormatter={percent} />
            <Tooltip formatter={(v) => (typeof v === 'number' ? percent(v) : String(v))} labelFormatter={(s) => `step ${s}`} />
            <Line className="series-second" type="linear" dataKey="passK" name={`pass@${k}`} dot={{ className: 'dot-second' }} isAnimationActive={false} strokeWidth={2} strokeDasharray="5 4" />
            <Line className="series-main" type="linear" dataKey="pass1" name="pass@1" dot={{ className: 'dot-main' }} isAnimationActive={false} strokeWidth={2} />
          </LineChart>
        )}
      </div>
    </ChartFrame>
  );
}

function HistogramChart({ evals }: { evals: readonly EvalEvent[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const chosen = useLab((s) => s.view.evalIndex);
  const e = evals[chosen === null || chosen >= evals.length ? evals.length - 1 : chosen];
  const bins = e?.histogram ?? [];
  const points = useMemo(() => bins.map((count, i) => ({ bin: `${(i * 100) / bins.length}–${((i + 1) * 100) / bins.length}%`, count })), [bins]);
  return (
    <ChartFrame id="histogram" title={e ? `Problems by accuracy, step ${e.step}` : 'Problems by accuracy'} points={width > 0 ? points.length : 0}
      note="How many held-out problems the policy solves in each accuracy band (share of its samples that are right). RLVR tends to empty the middle: problems become always or never solved.">
      <div ref={ref} className="chart-area">
        {points.length === 0 || width === 0 ? (
          <div className="chart-empty">Appears after the first evaluation.</div>
        ) : (
          <BarChart width={width} height={CHART_HEIGHT} data={points} margin={MARGIN}>
            <CartesianGrid className="chart-grid" strokeDasharray="3 3" />
            <XAxis dataKey="bin" interval={1} tickFormatter={(b: string) => b.split('–')[0] + '%'} />
            <YAxis width={36} allowDecimals={false} />
            <Tooltip formatter={(v) => (typeof v === 'number' ? formatValue(v) : String(v))} />
            <Bar className="series-bar" dataKey="count" name="problems" isAnimationActive={false} />
          </BarChart>
        )}
      </div>
    </ChartFrame>
  );
}

/** Memoised on the evaluations: step and status updates redraw none of these. */
export const EvalCharts = memo(function EvalCharts({ evals, totalSteps }: { evals: readonly EvalEvent[]; totalSteps: number }) {
  return (
    <div className="chart-grid-layout">
      <PassKChart evals={evals} />
      <PassOverStepsChart evals={evals} totalSteps={totalSteps} />
      <HistogramChart evals={evals} />
    </div>
  );
});
