// The charts' x axis by wall time in the built app (headless Chromium, WebGPU on SwiftShader): a
// 2-step GRPO run of the tiny policy with an lr change at step 2, then the x-axis switched to
// wall time: every chart keeps its points, the ticks read as a clock, the knob-change line
// stands at its step's time, the note says what the time counts, the tooltip gives the step with
// the time; and back to steps. A second seed then overlays on its own clock without the seed
// band, which returns by step. Screenshots: test-artifacts/xaxis-*.png.
// Run with `npx vite build && npx vitest run --project e2e test/e2e/xaxis.test.ts`.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, chartsDrawn, closeLab, openLab, requireAdapter, shot, waitRunStatus, type Lab } from './harness';

/** 2 steps of 2 problems × 4 samples, evaluation every step on 4 problems × 4 samples. */
const SETUP = 'policy=tiny&seed=3&steps=2&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=1&evalProblems=4&evalN=4&samplesPerStep=1';
const RUN_TIMEOUT_MS = 180_000;
const CHARTS = ['reward', 'entropy', 'length', 'lr', 'pass1', 'passk', 'histogram'];
/** "00:07", "00:00.4", "1:02:03" */
const CLOCK = /^(\d{2}:\d{2}(\.\d)?|\d+:\d{2}:\d{2})$/;

async function pointsOf(page: Page): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const id of CHARTS) out[id] = await page.getByTestId(`chart-${id}`).getAttribute('data-points');
  return out;
}

/** Waits for the run's state at a step, then for the charts to draw it. */
async function waitStatus(page: Page, state: string, step: number): Promise<void> {
  await waitRunStatus(page, state, step, RUN_TIMEOUT_MS);
  await chartsDrawn(page);
}

/** Moves the pointer over a chart from its right edge leftwards until the tooltip shows; its heading. */
async function hoverLabel(page: Page, id: string): Promise<string | null> {
  const surface = page.getByTestId(`chart-${id}`).locator('.recharts-surface');
  await surface.scrollIntoViewIfNeeded();
  const box = (await surface.boundingBox())!;
  await surface.hover({ position: { x: box.width / 2, y: box.height / 2 } });
  const label = page.getByTestId(`chart-${id}`).locator('.recharts-tooltip-label');
  for (let x = box.width - 12; x > 60; x -= 8) {
    await page.mouse.move(box.x + x, box.y + box.height / 2);
    if ((await label.count()) > 0 && (await label.isVisible())) break;
  }
  return label.textContent();
}

async function xTicks(page: Page, id: string): Promise<string[]> {
  return page.getByTestId(`chart-${id}`).locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
}

describe('x-axis by wall time (built app, headless Chromium)', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('draws the same points by the run\'s compute time, with clock ticks and the knob change at its time, and back by step', async (ctx) => {
    requireAdapter(ctx, lab);
    // paused after one step, a new lr queued for step 2 (a knob-change mark), then to the end
    await page.getByTestId('run-start').click();
    await page.getByTestId('run-pause').click();
    await waitStatus(page, 'paused', 0);
    await page.getByTestId('run-step').click();
    await waitStatus(page, 'paused', 1);
    await page.getByTestId('run-knobs').locator('summary').click();
    await page.getByTestId('knob-lr').locator('input').fill('0.00005');
    await page.getByTestId('knobs-apply').click();
    await page.getByTestId('run-resume').click();
    await waitStatus(page, 'done', 2);
    const byStep = await pointsOf(page);
    expect(byStep.reward).toBe('2');
    expect(byStep.pass1).toBe('3');
    expect(await page.getByTestId('chart-lr').getAttribute('data-changes')).toBe('2');
    const stepTicks = await xTicks(page, 'reward');
    expect(stepTicks.length).toBeGreaterThan(1);
    expect(stepTicks.every((t) => /^\d+$/.test(t)), stepTicks.join(' ')).toBe(true);

    const select = page.getByTestId('chart-xaxis');
    // labelled for assistive technology by its <label>
    await expect(page.getByLabel('x-axis').getAttribute('data-testid')).resolves.toBe('chart-xaxis');
    await select.selectOption('time');
    await chartsDrawn(page);
    expect(await pointsOf(page)).toEqual(byStep);
    for (const id of ['reward', 'lr', 'pass1']) {
      const ticks = await xTicks(page, id);
      expect(ticks.length, `chart-${id} ticks`).toBeGreaterThan(1);
      expect(ticks.every((t) => CLOCK.test(t)), `chart-${id} ticks: ${ticks.join(' ')}`).toBe(true);
    }
    await expect(page.getByTestId('chart-xaxis-note').textContent()).resolves.toMatch(/pauses, evaluations and checkpoint saves are left out/);
    await expect(page.getByTestId('chart-pass1').locator('.chart-title').textContent()).resolves.toMatch(/over wall time$/);
    // the URL keeps the run's set-up only
    expect(new URL(page.url()).search).toBe(`?${SETUP}`);
    // the lr change took effect at step 2: its line stands at step 2's time, where the last point is
    const lr = page.getByTestId('chart-lr');
    expect(await lr.getAttribute('data-changes')).toBe('2');
    const lineX = Number(await lr.locator('.change-line line, line.change-line').first().getAttribute('x1'));
    const dotsX = (await lr.locator('.recharts-line-dots circle, circle.dot-main').evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('cx'))))).sort((a, b) => a - b);
    expect(dotsX).toHaveLength(2);
    expect(Math.abs(lineX - dotsX[1]), `change line at ${lineX}, points at ${dotsX.join(', ')}`).toBeLessThan(1);

    // hovering the last point: the tooltip heads with its time and its step
    await expect(hoverLabel(page, 'reward')).resolves.toMatch(/^\d{2}:\d{2}\.\d · step [12]$/);
    await shot(page, 'xaxis-wall-time');
    await page.getByTestId('chart-reward').screenshot({ path: path.join(ARTIFACTS, 'xaxis-reward-wall-time.png') });
    await lr.screenshot({ path: path.join(ARTIFACTS, 'xaxis-lr-wall-time.png') });

    // by generated tokens: the same points, token ticks, the note, and the tooltip says tokens and step
    await select.selectOption('tokens');
    await chartsDrawn(page);
    expect(await pointsOf(page)).toEqual(byStep);
    const tokenTicks = await xTicks(page, 'reward');
    expect(tokenTicks.length).toBeGreaterThan(1);
    expect(tokenTicks.every((t) => /^\d+(\.\d+)?[kM]?$/.test(t)), tokenTicks.join(' ')).toBe(true);
    await expect(page.getByTestId('chart-xaxis-note').textContent()).resolves.toMatch(/Generated tokens: every response token/);
    await expect(page.getByTestId('chart-pass1').locator('.chart-title').textContent()).resolves.toMatch(/over generated tokens$/);
    await expect(hoverLabel(page, 'reward')).resolves.toMatch(/^[\d,]+ tokens · step [12]$/);

    await select.selectOption('step');
    await chartsDrawn(page);
    expect(await pointsOf(page)).toEqual(byStep);
    expect(await xTicks(page, 'reward')).toEqual(stepTicks);
    expect(await page.getByTestId('chart-xaxis-note').count()).toBe(0);
    await expect(hoverLabel(page, 'reward')).resolves.toMatch(/^step [12] · \d{2}:\d{2}\.\d$/);
    expect(errors).toEqual([]);
  });

  it('overlays two seeds each on its own clock, without the band, which returns by step', async (ctx) => {
    requireAdapter(ctx, lab);
    // two new runs that differ by seed alone (the first run's lr was changed live: no seed group with it)
    for (const [i, seed] of ['4', '5'].entries()) {
      await page.getByTestId('field-seed').locator('input').fill(seed);
      await page.getByTestId('run-start').click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=run-item]').length === n && document.querySelector('[data-testid=run-item].selected') === document.querySelectorAll('[data-testid=run-item]')[n - 1], i + 2, { timeout: 10_000 });
      await waitStatus(page, 'done', 2);
    }
    const boxes = page.getByTestId('run-compare');
    await boxes.nth(1).check();
    await boxes.nth(2).check();
    await chartsDrawn(page);
    const reward = page.getByTestId('chart-reward');
    expect(await reward.getAttribute('data-series')).toBe('2');
    expect(await reward.locator('.series-band').count()).toBeGreaterThan(0);

    await page.getByTestId('chart-xaxis').selectOption('time');
    await chartsDrawn(page);
    for (const id of ['reward', 'pass1']) {
      expect(await page.getByTestId(`chart-${id}`).getAttribute('data-series'), `chart-${id}`).toBe('2');
      expect(await page.getByTestId(`chart-${id}`).locator('.series-band, .series-mean').count(), `chart-${id} band`).toBe(0);
      const ticks = await xTicks(page, id);
      expect(ticks.every((t) => CLOCK.test(t)), `chart-${id} ticks: ${ticks.join(' ')}`).toBe(true);
    }
    expect(await reward.getAttribute('data-points')).toBe('2');
    await expect(page.getByTestId('compare-legend').first().textContent()).resolves.toMatch(/each seed is drawn on its own clock/);
    // with several runs, each value in the tooltip names its own run's step
    await hoverLabel(page, 'reward');
    await expect(reward.locator('.recharts-tooltip-item').first().textContent()).resolves.toMatch(/at step [12]$/);
    await page.getByTestId('compare-legend').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'xaxis-compare-wall-time.png') });

    await page.getByTestId('chart-xaxis').selectOption('step');
    await chartsDrawn(page);
    expect(await reward.locator('.series-band').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
