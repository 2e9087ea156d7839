// The charts' x axis by wall time, without React: a run's clock sums its steps' compute seconds
// (unknown from a missing time on), evaluations and marks made at a step sit at their run's time
// after that step, several runs overlay each on its own clock with step and time kept for the
// tooltips, and the ticks read as a clock.
import { describe, expect, it } from 'vitest';
import { createStore, type StateCreator } from 'zustand/vanilla';
import { overlayRows } from '../../src/ui/charts/overlay';
import { tipLabel, tipValue, xAxisProps } from '../../src/ui/charts/xaxis';
import { createViewSlice, type ViewSlice } from '../../src/state/viewSlice';
import { clockEnd, clockOf, clockTicks, evalTimes, formatClock, placeMarks, placeOnAxis, runClock, timeAtStep, type XAxisMode } from '../../src/state/charts/wallTime';

describe('runClock', () => {
  it('sums each step\'s seconds, pauses being in none of them', () => {
    const c = runClock([1, 2, 3, 4], [1.5, 2, 0.5, 3]);
    expect(c.cum).toEqual([1.5, 3.5, 4, 7]);
    expect(c.untimed).toBe(0);
    expect(clockEnd(c)).toBe(7);
  });

  it('knows no time from a missing or negative seconds on, and counts those steps', () => {
    const c = runClock([1, 2, 3, 4], [1, NaN, 2, 3]);
    expect(c.cum[0]).toBe(1);
    expect(c.cum.slice(1).every(Number.isNaN)).toBe(true);
    expect(c.untimed).toBe(3);
    expect(clockEnd(c)).toBe(1);
    expect(runClock([1, 2], [1, -0.5]).untimed).toBe(1);
    expect(clockEnd(runClock([], []))).toBe(0);
  });

  it('names the mismatch when steps and seconds differ in length', () => {
    expect(() => runClock([1, 2], [1])).toThrow('runClock: 2 steps need 2 seconds, got 1');
  });

  it('is one object per version of the run\'s data', () => {
    const data = { step: [1, 2], seconds: [1, 1] };
    expect(clockOf(data)).toBe(clockOf({ ...data }));
    const next = { step: [...data.step, 3], seconds: [...data.seconds, 4] };
    expect(clockOf(next)).not.toBe(clockOf(data));
    expect(clockOf(next).cum).toEqual([1, 2, 6]);
  });
});

describe('timeAtStep and evaluations', () => {
  const clock = runClock([1, 2, 4, 5], [2, 3, 4, 1]);

  it('reads the time once a step is done: 0 before any step, the last recorded step at or before it otherwise', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((s) => timeAtStep(clock, s))).toEqual([0, 2, 5, 5, 9, 10, 10]);
  });

  it('places each evaluation at its run\'s time after the step it evaluated', () => {
    expect(evalTimes([{ step: 0 }, { step: 2 }, { step: 5 }], clock)).toEqual([0, 5, 10]);
    expect(evalTimes([{ step: 3 }], runClock([1, 2, 3], [1, NaN, 1]))[0]).toBeNaN();
  });
});

describe('placeOnAxis', () => {
  const clock = runClock([1, 2, 3], [2, NaN, 1]);
  const pts = [{ x: 1, y: 10, raw: 10 }, { x: 3, y: 30, raw: 30 }];

  it('keeps x as the step on a step axis, with each point\'s time for the tooltip', () => {
    const placed = placeOnAxis(pts, clock, 'step');
    expect(placed.map((p) => [p.x, p.step])).toEqual([[1, 1], [3, 3]]);
    expect(placed[0].time).toBe(2);
    expect(placed[1].time).toBeNaN();
  });

  it('moves x to the time on a time axis, keeping the step, and leaves out points of unknown time', () => {
    const placed = placeOnAxis(pts, runClock([1, 2, 3], [2, 1.5, 1]), 'time');
    expect(placed).toEqual([{ x: 2, y: 10, raw: 10, step: 1, time: 2 }, { x: 4.5, y: 30, raw: 30, step: 3, time: 4.5 }]);
    expect(placeOnAxis(pts, clock, 'time')).toEqual([{ x: 2, y: 10, raw: 10, step: 1, time: 2 }]);
  });
});

describe('marks of several runs', () => {
  // a slow run and a fast one both changed a knob at step 2 and halted at step 3
  const slow = runClock([1, 2, 3], [10, 10, 10]);
  const fast = runClock([1, 2, 3], [1, 1, 1]);
  const runs = [
    { clock: slow, marks: [{ step: 2, label: '#1: lr → 1e-4' }, { step: 3, label: '#1 halt' }] },
    { clock: fast, marks: [{ step: 2, label: '#2: lr → 1e-4' }, { step: 3, label: '#2 halt' }] },
  ];

  it('stay at their steps on a step axis', () => {
    expect(placeMarks(runs, 'step').map((m) => [m.x, m.label])).toEqual([[2, '#1: lr → 1e-4'], [2, '#2: lr → 1e-4'], [3, '#1 halt'], [3, '#2 halt']]);
  });

  it('sit at each run\'s own time on a time axis, sorted, keeping their step', () => {
    const placed = placeMarks(runs, 'time');
    expect(placed.map((m) => [m.x, m.step, m.label])).toEqual([[2, 2, '#2: lr → 1e-4'], [3, 3, '#2 halt'], [20, 2, '#1: lr → 1e-4'], [30, 3, '#1 halt']]);
  });

  it('leave out a mark whose time is unknown on a time axis only', () => {
    const r = [{ clock: runClock([1, 2], [1, NaN]), marks: [{ step: 2 }] }];
    expect(placeMarks(r, 'time')).toEqual([]);
    expect(placeMarks(r, 'step').map((m) => m.x)).toEqual([2]);
  });
});

describe('overlay of several runs by wall time', () => {
  it('puts each run on its own clock, with its step and time in the row for the tooltip', () => {
    const a = placeOnAxis([{ x: 1, y: 0.1, raw: 0.1 }, { x: 2, y: 0.2, raw: 0.2 }], runClock([1, 2], [3, 3]), 'time');
    const b = placeOnAxis([{ x: 1, y: 0.5, raw: 0.5 }, { x: 2, y: 0.6, raw: 0.6 }], runClock([1, 2], [1.5, 1.5]), 'time');
    expect(overlayRows([a, b])).toEqual([
      { x: 1.5, y1: 0.5, raw1: 0.5, s1: 1, t1: 1.5 },
      { x: 3, y0: 0.1, raw0: 0.1, s0: 1, t0: 3, y1: 0.6, raw1: 0.6, s1: 2, t1: 3 },
      { x: 6, y0: 0.2, raw0: 0.2, s0: 2, t0: 6 },
    ]);
  });

  it('says each run\'s own step or time in the tooltip', () => {
    const row = { x: 3, y0: 0.1, s0: 1, t0: 3, y1: 0.6, s1: 2, t1: 3 };
    expect(tipLabel(3, row, 'time', false)).toBe('00:03.0');
    expect(tipValue('0.600', 'y1', row, 'time', false)).toBe('0.600 at step 2');
    expect(tipValue('0.100', 'y0', row, 'time', false)).toBe('0.100 at step 1');
    const byStep = { x: 2, y0: 0.2, s0: 2, t0: 6, y1: 0.6, s1: 2, t1: 3 };
    expect(tipLabel(2, byStep, 'step', false)).toBe('step 2');
    expect(tipValue('0.600', 'y1', byStep, 'step', false)).toBe('0.600 at 00:03.0');
    expect(tipValue('0.4 – 0.6', 'band', byStep, 'step', false)).toBe('0.4 – 0.6');
  });

  it('heads a single run\'s tooltip with both its step and its time, on either axis', () => {
    expect(tipLabel(6, { x: 6, y0: 0.2, raw0: 0.2, s0: 2, t0: 6 }, 'time', true)).toBe('00:06.0 · step 2');
    expect(tipLabel(2, { x: 2, y0: 0.2, raw0: 0.2, s0: 2, t0: 6 }, 'step', true)).toBe('step 2 · 00:06.0');
    expect(tipLabel(2, { x: 2, y0: 0.2, s0: 2 }, 'step', true)).toBe('step 2');
    expect(tipValue('0.200', 'y0', { y0: 0.2, s0: 2, t0: 6 }, 'time', true)).toBe('0.200');
  });
});

describe('clock ticks', () => {
  it('formats mm:ss, h:mm:ss past an hour, and fractions on request', () => {
    expect([0, 7.4, 65, 599, 3723].map((s) => formatClock(s))).toEqual(['00:00', '00:07', '01:05', '09:59', '1:02:03']);
    expect(formatClock(59.96, 1)).toBe('01:00.0');
    expect(formatClock(0.25, 1)).toBe('00:00.3');
    expect(() => formatClock(NaN)).toThrow(/finite number ≥ 0, got NaN/);
    expect(() => formatClock(-1)).toThrow(RangeError);
  });

  it('spaces ticks naturally and ends the axis on one', () => {
    expect(clockTicks(9.3)).toEqual({ ticks: [0, 2, 4, 6, 8, 10], end: 10, decimals: 0 });
    expect(clockTicks(0.35)).toEqual({ ticks: [0, 0.1, 0.2, 0.3, 0.4], end: 0.4, decimals: 1 });
    expect(clockTicks(5000).ticks).toEqual([0, 1800, 3600, 5400]);
    expect(clockTicks(0)).toEqual({ ticks: [0, 1], end: 1, decimals: 0 });
    expect(clockTicks(30)).toEqual({ ticks: [0, 10, 20, 30], end: 30, decimals: 0 });
  });

  it('gives a time axis clock ticks and a step axis whole steps up to the run\'s total', () => {
    const time = xAxisProps({ mode: 'time', max: 9.3 });
    expect(time.domain).toEqual([0, 10]);
    expect(time.ticks?.map(time.tickFormatter)).toEqual(['00:00', '00:02', '00:04', '00:06', '00:08', '00:10']);
    const step = xAxisProps({ mode: 'step', max: 20 });
    expect(step.ticks).toBeUndefined();
    expect(step.allowDecimals).toBe(false);
    const end = step.domain[1];
    expect(typeof end === 'function' ? [end(3), end(25)] : end).toEqual([20, 25]);
  });
});

describe('the view slice\'s x axis', () => {
  const store = () => createStore<ViewSlice>()(createViewSlice as unknown as StateCreator<ViewSlice>);

  it('starts by step and switches to wall time and back', () => {
    const s = store();
    expect(s.getState().view.xAxis).toBe('step');
    s.getState().setXAxis('time');
    expect(s.getState().view.xAxis).toBe('time');
    expect(s.getState().view.smoothing).toBe(0);
    s.getState().setXAxis('step');
    expect(s.getState().view.xAxis).toBe('step');
  });

  it('refuses an unknown axis by name', () => {
    expect(() => store().getState().setXAxis('epoch' as XAxisMode)).toThrow('x axis must be one of step, time, tokens, got epoch');
  });
});

describe('the generated-tokens axis', () => {
  const data = { step: [1, 2, 3], seconds: [1, 1, 1], series: { 'tokens/generated': [100, 250, 50] } };
  it('sums each step\'s generated tokens into the run\'s clock; a run without them has none; one object per version', async () => {
    const { clockFor } = await import('../../src/state/charts/wallTime');
    const c = clockFor(data, 'tokens');
    expect(c.cum).toEqual([100, 350, 400]);
    expect(clockFor(data, 'tokens')).toBe(c);
    // step and time modes keep the compute-seconds clock
    expect(clockFor(data, 'time').cum).toEqual([1, 2, 3]);
    expect(clockFor(data, 'step').cum).toEqual([1, 2, 3]);
    const none = clockFor({ ...data, series: {} }, 'tokens');
    expect(none.untimed).toBe(3);
    // points sit at their run's tokens after their step; evaluations too (step 0 at 0)
    expect(placeOnAxis([{ x: 2, y: 5 }], c, 'tokens' as XAxisMode)).toEqual([{ x: 350, y: 5, step: 2, time: 350 }]);
    expect(evalTimes([{ step: 0 }, { step: 3 }], c)).toEqual([0, 400]);
  });
  it('ticks read as token counts; the title says the unit; tooltips say tokens and the step', async () => {
    const { tokenTick, xTitle } = await import('../../src/ui/charts/xaxis');
    expect([0, 950, 12_000, 425_514, 1_250_000].map(tokenTick)).toEqual(['0', '950', '12k', '426k', '1.3M']);
    expect(xTitle('tokens').value).toBe('generated tokens');
    expect(xAxisProps({ mode: 'tokens', max: 1000 }).tickFormatter(2500)).toBe('2.5k');
    expect(tipLabel(350, { s0: 2, t0: 350 }, 'tokens', true)).toBe('350 tokens · step 2');
    expect(tipValue('0.5', 'y1', { s1: 7, t1: 900 }, 'tokens', false)).toBe('0.5 at step 7');
  });
});
