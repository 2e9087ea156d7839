// OpenSIR in the page (built app, headless Chromium, WebGPU on SwiftShader): a short run of the
// shipped `small` base set up from the URL trains to the end, and every view the loop declares
// draws: the reward, solve-rate, pool and coverage charts (the pool's and the probe's), the reward components, validity with
// the oracle, the topic mix, the solvability triangle, the 2-D map of the pool's embeddings and
// the pool table, which holds every problem added and sorts by a column.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartsDrawn, closeLab, openLab, points, requireAdapter, shot, waitRunStatus, type Lab } from './harness';

/** Three steps of 2 teacher groups × 3 problems, 4 answers each, an evaluation every step; a 2 × 2 coverage probe at steps 1, 2 and 3 (the last). */
const SETUP = 'loop=opensir&policy=small&seed=2&steps=3&teacherGroups=2&teacherSamples=3&studentSamples=4&evalEvery=1&evalProblems=2&evalN=2&samplesPerStep=2&probeEvery=2&probePrompts=2&probeSamples=2';

describe('OpenSIR in the page', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('offers OpenSIR with its set-ups, RL presets and paper values', async () => {
    await expect(page.getByTestId('launcher-loop').inputValue()).resolves.toBe('opensir');
    await expect(page.getByTestId('launcher-preset').inputValue()).resolves.toBe('opensir');
    const setups = await page.getByTestId('launcher-setup').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(setups).toEqual(['paper', 'lab', 'no-diversity', 's-min-0.1', 'student-only']);
    await expect(page.getByTestId('field-sMin').locator('.cfg-paper').textContent()).resolves.toMatch(/0\.5 \(ablation 0\.1\)/);
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
  });

  it('trains to the end and draws every OpenSIR view', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 3, 600_000);
    await chartsDrawn(page);
    for (const id of ['teacher-reward', 'pool-size', 'coverage', 'entropy', 'validity', 'topics']) expect(await points(page, id), `chart-${id}`).toBe(3);
    expect(await points(page, 'pass1')).toBe(4);
    // the probe: the base at step 1, after step 2's update and after the last's
    expect(await points(page, 'probe-coverage')).toBe(3);
    await shot(page, 'opensir-done');

    const table = page.getByTestId('browser-pool-table');
    await table.scrollIntoViewIfNeeded();
    const rows = Number(await table.getAttribute('data-rows'));
    expect(await table.getAttribute('data-step')).toBe('all');
    // every problem the pool gained: the last step's pool size less the seed problem
    const size = await page.getByTestId('chart-pool-size').locator('.chart-value').textContent();
    expect(rows).toBe(Number(size) - 1);
    expect(rows).toBeGreaterThan(0);
    // sorted by step, latest first: the first row's step is the largest
    await page.getByTestId('browser-pool-table-sort-step').click();
    await page.getByTestId('browser-pool-table-sort-step').click();
    expect(await table.getAttribute('data-sort')).toBe('step down');
    const stepCol = await table.locator('thead th').allTextContents();
    const col = stepCol.findIndex((t) => t.startsWith('step'));
    const stepsShown = (await table.locator('tbody tr').evaluateAll((trs, c) => trs.map((tr) => Number(tr.children[c as number].textContent)), col));
    expect(stepsShown).toEqual([...stepsShown].sort((a, b) => b - a));
    await table.screenshot({ path: 'test-artifacts/opensir-pool-table.png' });

    const map = page.getByTestId('chart-pool-map');
    await map.scrollIntoViewIfNeeded();
    expect(Number(await map.getAttribute('data-points'))).toBe(rows);
    expect(await map.locator('.recharts-symbols').count()).toBe(rows);
    await map.screenshot({ path: 'test-artifacts/opensir-pool-map.png' });
    const curve = page.getByTestId('chart-solvability');
    expect(await curve.getAttribute('data-dots')).toBe('5');
    await expect(page.getByTestId('curve-caption-solvability').textContent()).resolves.toBe('window [0.5, 0.9], 4 answers a problem');
    expect(errors).toEqual([]);
  });
});
