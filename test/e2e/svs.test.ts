// SvS in the page (built app, headless Chromium, WebGPU on SwiftShader): a short run of the
// shipped `small` base set up from the URL trains to the end, and every view the loop declares
// draws: the shared charts, the data mix, the variant rates and the variant browser, which lists
// the variants of the latest step with the oracle's flags and filters them.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartsDrawn, closeLab, openLab, points, requireAdapter, shot, waitRunStatus, type Lab } from './harness';

/** Two steps of 3 problems × 4 answers, variants from at most 2 solutions, an evaluation every step. */
const SETUP = 'loop=svs&policy=small&seed=4&steps=2&problemsPerStep=3&groupSize=4&variantsPerSolution=4&maxSynthesisSources=2&trainProblems=64&evalEvery=1&evalProblems=2&evalN=2&samplesPerStep=2';

describe('SvS in the page', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('offers SvS with its set-ups, RL presets and paper values', async () => {
    await expect(page.getByTestId('launcher-loop').inputValue()).resolves.toBe('svs');
    await expect(page.getByTestId('launcher-preset').inputValue()).resolves.toBe('svs');
    const presets = await page.getByTestId('launcher-preset').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(presets).toEqual(['svs', 'grpo', 'dr_grpo']);
    const setups = await page.getByTestId('launcher-setup').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(setups).toEqual(['paper', 'lab', 'with_problem', 'naive']);
    await expect(page.getByTestId('field-accHigh').locator('.cfg-paper').textContent()).resolves.toMatch(/0\.5 \(4 of 8\)/);
    await expect(page.getByTestId('field-variantsPerSolution').locator('input').inputValue()).resolves.toBe('4');
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
    await shot(page, 'svs-launcher');
  });

  it('trains to the end and draws every SvS view', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 2, 600_000);
    await chartsDrawn(page);
    for (const id of ['reward', 'entropy', 'challenging', 'mix']) expect(await points(page, id), `chart-${id}`).toBe(2);
    // the variant rates: at least the step that wrote variants
    expect(await points(page, 'variants')).toBeGreaterThan(0);
    expect(await points(page, 'pass1')).toBe(3);
    // the pass@k curve of the latest evaluation, over the start's
    expect(await page.getByTestId('chart-passk').getAttribute('data-step')).toBe('2');
    expect(await page.getByTestId('chart-passk').getAttribute('data-start')).toBe('0');
    await expect(page.getByTestId('chart-passk').locator('.chart-value').textContent()).resolves.toMatch(/^pass@1 \d+% → \d+%$/);
    await shot(page, 'svs-done');

    const browser = page.getByTestId('browser-variant-browser');
    await browser.scrollIntoViewIfNeeded();
    const rows = Number(await browser.getAttribute('data-rows'));
    expect(rows).toBeGreaterThan(0);
    expect(await browser.getByTestId('browser-row').count()).toBe(rows);
    expect(await browser.getByTestId('browser-group').count()).toBeGreaterThan(0);
    await browser.screenshot({ path: 'test-artifacts/svs-variant-browser.png' });
    // a filter on a flag: only the variants that parse, then only those that do not; together all of them
    await page.getByTestId('browser-variant-browser-filter-parsed').selectOption('yes');
    const parsed = Number(await browser.getAttribute('data-rows'));
    await page.getByTestId('browser-variant-browser-filter-parsed').selectOption('no');
    const unparsed = Number(await browser.getAttribute('data-rows'));
    expect(parsed + unparsed).toBe(rows);
    await page.getByTestId('browser-variant-browser-filter-parsed').selectOption('any');
    expect(errors).toEqual([]);
  });

  it('shows the same views after a reload, from the stored run', async (ctx) => {
    requireAdapter(ctx, lab);
    const before = Number(await page.getByTestId('browser-variant-browser').getAttribute('data-rows'));
    await page.reload();
    await page.waitForSelector('[data-testid=browser-variant-browser]', { timeout: 30_000 });
    await chartsDrawn(page);
    expect(Number(await page.getByTestId('browser-variant-browser').getAttribute('data-rows'))).toBe(before);
    expect(await points(page, 'mix')).toBe(2);
  });
});
