// DATPO in the page (built app, headless Chromium, WebGPU on SwiftShader): a short run of the
// shipped `small` base set up from the URL trains to the end, and every view the loop declares
// draws: root accuracy, tree pass rate, tokens per problem, α's schedule, leaves by difficulty,
// fork localisation, and the tree browser, which shows the trees' branches from their forks.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartsDrawn, closeLab, openLab, points, requireAdapter, shot, waitRunStatus, type Lab } from './harness';

/** Two steps of 3 problems, 4 roots each, at most 2 forks of 2 branches, an evaluation every step. */
const SETUP = 'loop=datpo&policy=small&seed=2&steps=2&problemsPerStep=3&bpMax=2&bnMax=2&trainProblems=64&evalEvery=1&evalProblems=2&evalN=2&samplesPerStep=2';

describe('DATPO in the page', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('offers DATPO with its set-ups and paper values', async () => {
    await expect(page.getByTestId('launcher-loop').inputValue()).resolves.toBe('datpo');
    const setups = await page.getByTestId('launcher-setup').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(setups).toEqual(['paper', 'lab', 'random-forks', 'fixed-segment', 'token-entropy', 'constant-alpha', 'alpha-all', 'ngram-embedder']);
    await expect(page.getByTestId('field-bnMax').locator('.cfg-paper').textContent()).resolves.toMatch(/4/);
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
  });

  it('trains to the end and draws every DATPO view; the tree browser shows branches from forks', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 2, 600_000);
    await chartsDrawn(page);
    for (const id of ['reward', 'tree-pass', 'tokens-problem', 'alpha', 'entropy']) expect(await points(page, id), `chart-${id}`).toBe(2);
    // leaves by difficulty and the forks' positions: a line for each bucket the run met
    for (const id of ['leaves', 'localisation']) {
      const drawn = await page.getByTestId(`chart-${id}`).locator('path.recharts-curve').evaluateAll((ps) => ps.filter((p) => (p.getAttribute('d') ?? '').length > 0).length);
      expect(drawn, `chart-${id}`).toBeGreaterThan(0);
    }
    expect(await points(page, 'pass1')).toBe(3);
    await shot(page, 'datpo-done');
    const browser = page.getByTestId('browser-tree-browser');
    await browser.scrollIntoViewIfNeeded();
    const rows = Number(await browser.getAttribute('data-rows'));
    // at least the 3 × 4 roots of the latest step
    expect(rows).toBeGreaterThanOrEqual(12);
    expect(await browser.getByTestId('browser-group').count()).toBeGreaterThan(0);
    await browser.screenshot({ path: 'test-artifacts/datpo-tree-browser.png' });
    // the tree viewer: a problem of the latest step with forks shows them, with branches leaving them
    const tree = page.getByTestId('tree-tree-viewer');
    await tree.scrollIntoViewIfNeeded();
    const options = await page.getByTestId('tree-tree-viewer-problem').locator('option').count();
    expect(options).toBe(3);
    let withForks = -1;
    for (let i = 0; i < options && withForks < 0; i++) {
      await page.getByTestId('tree-tree-viewer-problem').selectOption(String(i));
      expect(Number(await tree.getAttribute('data-roots'))).toBe(4);
      if (Number(await tree.getAttribute('data-forks')) > 0) withForks = i;
    }
    // the base solves some problems outright (no forks); this seed's step 2 has one it does not
    expect(withForks).toBeGreaterThanOrEqual(0);
    expect(await tree.getByTestId('tree-fork').count()).toBe(Number(await tree.getAttribute('data-forks')));
    expect(await tree.getByTestId('tree-branch').count()).toBe(Number(await tree.getAttribute('data-branches')));
    expect(Number(await tree.getAttribute('data-branches'))).toBeGreaterThan(0);
    await tree.screenshot({ path: 'test-artifacts/datpo-tree-viewer.png' });
    expect(errors).toEqual([]);
  });
});
