// SPICE in the page (built app, headless Chromium, WebGPU on SwiftShader): a malformed corpus
// file is refused with its bad lines named and the corpus in use kept; a valid one is taken, and a
// short run of the shipped `small` base reads its documents; every view the loop declares draws:
// the challenger's and reasoner's charts, the format mix, the oracle's rates, the reward-shape
// curve of the chosen shape and the question browser.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartsDrawn, closeLab, openLab, points, requireAdapter, shot, waitRunStatus, type Lab } from './harness';

/** Two steps of 2 documents × 3 questions × 4 answers, the r-zero shape, an evaluation every step. */
const SETUP = 'loop=spice&policy=small&seed=4&steps=2&checkpointEvery=1&documentsPerStep=2&questionsPerDocument=3&answersPerQuestion=4&challengerReward=r-zero&evalEvery=1&evalProblems=2&evalN=2&samplesPerStep=2';
const CORPUS = 'a=7;b=a+5;c=b*3\nx=4;y=x*6;z=y-9\n';

describe('SPICE in the page', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('offers SPICE with its set-ups, RL presets and paper values', async () => {
    await expect(page.getByTestId('launcher-loop').inputValue()).resolves.toBe('spice');
    await expect(page.getByTestId('launcher-preset').inputValue()).resolves.toBe('spice');
    const setups = await page.getByTestId('launcher-setup').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(setups).toEqual(['paper', 'lab', 'no-corpus', 'frozen-challenger', 'r-zero', 'absolute-zero', 'threshold']);
    await expect(page.getByTestId('field-tau').locator('.cfg-paper').textContent()).resolves.toMatch(/0\.01/);
    await expect(page.getByTestId('field-challengerReward').locator('select').inputValue()).resolves.toBe('r-zero');
    await expect(page.getByTestId('corpus-input').getAttribute('data-corpus')).resolves.toBe('generated');
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
  });

  it('refuses a malformed corpus file with its line numbers, keeps the corpus in use, and takes a valid one', async () => {
    const upload = page.getByTestId('corpus-upload');
    await upload.setInputFiles({ name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from('a=7;b=a+5\nhello world\na=1;b=a+1=3\n') });
    const error = page.getByTestId('corpus-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toMatch(/^bad\.txt: 2 of 3 documents are not valid: line 2: .*; line 3: statement 2 'b=a\+1=3': stated value 3 but a\+1 is 2.*the corpus in use is unchanged$/);
    await expect(page.getByTestId('corpus-input').getAttribute('data-corpus')).resolves.toBe('generated');
    // nothing else of the set-up changed
    await expect(page.getByTestId('field-documentsPerStep').locator('input').inputValue()).resolves.toBe('2');
    await upload.setInputFiles({ name: 'mine.txt', mimeType: 'text/plain', buffer: Buffer.from(CORPUS) });
    await page.waitForSelector('[data-testid=corpus-input][data-corpus=file]');
    await expect(page.getByTestId('corpus-what').textContent()).resolves.toBe('mine.txt: 2 documents (first: a=7;b=a+5;c=b*3)');
    expect(await page.getByTestId('corpus-error').count()).toBe(0);
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
    await shot(page, 'spice-launcher');
  });

  it('trains on the uploaded corpus to the end and draws every SPICE view', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 2, 600_000);
    await chartsDrawn(page);
    for (const id of ['challenger-reward', 'entropy-all', 'format-mix', 'gold']) expect(await points(page, id), `chart-${id}`).toBe(2);
    // the solving entropy is the reasoner's: a step without a valid question has none to report
    expect(await points(page, 'entropy'), 'chart-entropy').toBeGreaterThanOrEqual(1);
    // a legend entry hides its series (the first, valid, is the chart's point count) and shows it again
    const validLine = page.getByTestId('multi-gold').getByTestId('legend-toggle').first();
    await validLine.click();
    await expect(validLine.getAttribute('aria-pressed')).resolves.toBe('false');
    await page.waitForFunction(() => document.querySelector('[data-testid=chart-gold]')?.getAttribute('data-points') === '0', null, { timeout: 10_000 });
    await validLine.click();
    await page.waitForFunction(() => document.querySelector('[data-testid=chart-gold]')?.getAttribute('data-points') === '2', null, { timeout: 10_000 });
    // a stacked band too
    const validBand = page.getByTestId('chart-format-mix').getByTestId('legend-toggle').first();
    const bars = () => page.getByTestId('chart-format-mix').locator('.recharts-bar').count();
    const n = await bars();
    await validBand.click();
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid=chart-format-mix] .recharts-bar').length === k - 1, n, { timeout: 10_000 });
    await validBand.click();
    expect(await points(page, 'pass1')).toBe(3);
    await shot(page, 'spice-done');

    // the chosen shape drawn against p, with a dot at each of the K + 1 pass rates
    const curve = page.getByTestId('chart-reward-shape');
    await curve.scrollIntoViewIfNeeded();
    expect(await curve.getAttribute('data-points')).toBe('101');
    expect(await curve.getAttribute('data-dots')).toBe('5');
    await expect(page.getByTestId('curve-caption-reward-shape').textContent()).resolves.toBe('r-zero, K = 4; invalid outputs: 0');
    expect(await curve.locator('.recharts-curve').count()).toBeGreaterThan(0);
    await curve.screenshot({ path: 'test-artifacts/spice-reward-shape.png' });

    const browser = page.getByTestId('browser-question-browser');
    await browser.scrollIntoViewIfNeeded();
    // 2 documents × 3 questions of the latest step
    expect(Number(await browser.getAttribute('data-rows'))).toBe(6);
    const docs = await browser.locator('.browser-head dd').allTextContents();
    for (const d of docs) expect(['a=7;b=a+5=12;c=b*3=36', 'x=4;y=x*6=24;z=y-9=15']).toContain(d);
    await browser.screenshot({ path: 'test-artifacts/spice-question-browser.png' });
    await page.getByTestId('browser-question-browser-filter-valid').selectOption('yes');
    const valid = Number(await browser.getAttribute('data-rows'));
    await page.getByTestId('browser-question-browser-filter-valid').selectOption('no');
    expect(valid + Number(await browser.getAttribute('data-rows'))).toBe(6);
    await page.getByTestId('browser-question-browser-filter-valid').selectOption('any');
    expect(errors).toEqual([]);
  });

  it('computes the cross-play matrix from the run\'s checkpoints in the worker, with progress, as a heat map', async (ctx) => {
    requireAdapter(ctx, lab);
    const view = page.getByTestId('crossplay-cross-play');
    await view.scrollIntoViewIfNeeded();
    await page.getByTestId('crossplay-compute').click();
    // progress shows while it computes: checkpoint passes, 2 for each of the 3 checkpoints (start, steps 1 and 2)
    await page.waitForFunction(() => /checkpoint passes: \d of 6|loading/.test(document.querySelector('[data-testid=crossplay-status]')?.textContent ?? '') || document.querySelector('[data-testid=crossplay-cross-play]')?.getAttribute('data-status') === 'done', null, { timeout: 60_000 });
    await page.waitForSelector('[data-testid=crossplay-cross-play][data-status=done]', { timeout: 600_000 });
    const matrix = page.getByTestId('crossplay-matrix');
    expect(await matrix.getAttribute('data-rows')).toBe('3');
    expect(await matrix.locator('thead th').allTextContents()).toEqual(['reasoner at step ↓ · challenger at step →', expect.stringMatching(/^0\d+\/16 valid$/), expect.stringMatching(/^1\d+\/16 valid$/), expect.stringMatching(/^2\d+\/16 valid$/)]);
    const cells = await matrix.getByTestId('crossplay-cell').evaluateAll((tds) => tds.map((td) => td.getAttribute('data-value')));
    expect(cells).toHaveLength(9);
    for (const v of cells) if (v !== '') expect(Number(v)).toBeGreaterThanOrEqual(0), expect(Number(v)).toBeLessThanOrEqual(1);
    // the same answers graded by the challenger's gold (first) and by the true value: one matrix at a time, the gaps in the same cells
    expect(await matrix.getAttribute('data-grading')).toBe('gold');
    await page.getByTestId('crossplay-grading').selectOption('value');
    await page.waitForSelector('[data-testid=crossplay-matrix][data-grading=value]');
    const byValue = await page.getByTestId('crossplay-matrix').getByTestId('crossplay-cell').evaluateAll((tds) => tds.map((td) => td.getAttribute('data-value')));
    expect(byValue.map((v) => v === '')).toEqual(cells.map((v) => v === ''));
    await view.screenshot({ path: 'test-artifacts/spice-cross-play.png' });
    expect(errors).toEqual([]);
  });
});
