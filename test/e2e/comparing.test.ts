// A comparison that never mislabels (issue 28 §3; built app, imported runs, no GPU needed): the
// legend's base is the first run ticked, named with its loop; hiding a run rescales the x-axis to
// the others; an imported run is listed where it was imported, marked imported, after a reload
// too; run descriptions name the run they are against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { closeLab, gotoLab, openLab, type Lab } from './harness';
import { runJson } from './fixtures';

/** A fixture run changed: its total steps, or when it was created (in the file). */
function variant(seed: number, opts: { totalSteps?: number; createdAt?: string }): string {
  const j = JSON.parse(runJson(seed)) as { run: { status: { totalSteps: number }; createdAt: string }; config: { steps: number } };
  if (opts.totalSteps) {
    j.run.status.totalSteps = opts.totalSteps;
    j.config.steps = opts.totalSteps;
  }
  if (opts.createdAt) j.run.createdAt = opts.createdAt;
  return JSON.stringify(j);
}

async function importRun(page: Page, name: string, text: string): Promise<void> {
  const before = await page.getByTestId('run-item').count();
  await page.getByTestId('run-import').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=run-item]').length === n, before + 1, { timeout: 10_000 });
}

describe('comparing runs without mislabels (built app, headless Chromium)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab('', { webgpu: false });
  });
  afterAll(() => closeLab(lab));

  it('names the first ticked run as the base, with its loop, and rescales the x-axis when a run is hidden', async () => {
    const { page } = lab;
    // the file of #1 was created in 2025, that of #2 a year before: each is listed where it was imported
    await importRun(page, 'a.json', variant(9, {}));
    await importRun(page, 'b.json', variant(11, { totalSteps: 30, createdAt: '2024-01-02T00:00:00.000Z' }));
    const diffs = await page.locator('[data-testid=run-item] .run-diff').allTextContents();
    expect(diffs).toEqual(['imported: #7 of 2025-01-02 00:00 UTC; the GRPO defaults, but seed 9, steps 3', 'imported: #7 of 2024-01-02 00:00 UTC; vs #1: seed 11, steps 30']);
    const boxes = page.getByTestId('run-compare');
    // ticked second run first: it is the base
    await boxes.nth(1).check();
    await boxes.nth(0).check();
    const legend = page.getByTestId('compare-legend').first();
    await legend.waitFor();
    expect(await legend.getByTestId('compare-label').allTextContents()).toEqual(['#2 GRPO · small (imported) · first ticked', '#1: seed 9, steps 3']);
    const ticksEndAt = (end: string) => page.waitForFunction((end) => [...document.querySelectorAll('[data-testid=chart-reward] .recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')].pop()?.textContent === end, end, { timeout: 10_000 }).catch(async () => {
      throw new Error(`x-axis ticks: ${(await page.getByTestId('chart-reward').locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents()).join(' ')}, not ending at ${end}`);
    });
    await ticksEndAt('30');
    // hide the 30-step run: the axis spans the 3-step run alone
    await legend.getByTestId('compare-label').nth(0).locator('button').click();
    await ticksEndAt('3');
    await legend.getByTestId('compare-label').nth(0).locator('button').click();
    await ticksEndAt('30');
  });

  it('lists imported runs where they were imported after a reload', async () => {
    const { page, base } = lab;
    await gotoLab(page, base);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=run-item]').length === 2, null, { timeout: 10_000 });
    expect(await page.locator('[data-testid=run-item] .run-label').allTextContents()).toEqual(['#1 GRPO · small (imported)', '#2 GRPO · small (imported)']);
  });
});
