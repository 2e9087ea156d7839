// Comparing runs on the charts (imported runs, no GPU needed): a seed group's mean is drawn under
// the runs' own lines; a run changed live is not "differing only by seed"; a run evaluated once
// shows as a point; the pass@k overlay says when the runs' latest evaluations are at different steps.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, closeLab, gotoLab, openLab, type Lab } from './harness';
import { runJson } from './fixtures';
import path from 'node:path';

/** Imports runs, ticks exactly them for comparison, and waits for the legend. */
async function compare(page: Page, files: { name: string; text: string }[]): Promise<string[]> {
  const before = await page.getByTestId('run-item').count();
  for (const f of files) await page.getByTestId('run-import').setInputFiles({ name: f.name, mimeType: 'application/json', buffer: Buffer.from(f.text) });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=run-item]').length === n, before + files.length, { timeout: 10_000 });
  const boxes = page.getByTestId('run-compare');
  for (let i = 0; i < before + files.length; i++) {
    if (i < before) await boxes.nth(i).uncheck();
    else await boxes.nth(i).check();
  }
  const legend = page.getByTestId('compare-legend').first();
  await legend.waitFor();
  return legend.getByTestId('compare-label').allTextContents();
}

describe('comparing runs (built app, headless Chromium, imported runs)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab('?seed=3', { webgpu: false });
  });
  afterAll(() => closeLab(lab));

  it('a seed group: the mean is dashed and drawn under both runs\' own lines', async () => {
    const { page } = lab;
    const labels = await compare(page, [{ name: 'a.json', text: runJson(9) }, { name: 'b.json', text: runJson(11) }]);
    expect(labels).toEqual(['#1 GRPO · small (imported) · first ticked', '#2: seed 11']);
    await expect(page.getByTestId('compare-legend').first().textContent()).resolves.toMatch(/differ only by seed/);
    // in document order (recharts draws by layer: later is on top)
    const order = await page.getByTestId('chart-reward').locator('.recharts-line').evaluateAll((ls) => ls.map((l) => (l.getAttribute('class') ?? '').split(' ').find((c) => c.startsWith('series-'))));
    expect(order.indexOf('series-mean')).toBe(0);
    expect([...order].sort()).toEqual(['series-c0', 'series-c1', 'series-mean']);
    await page.getByTestId('chart-reward').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare-seeds.png') });
    // a click on a run's legend entry hides its lines on every chart (colours stay); another shows them
    const drawn = (id: string, cls: string) => page.getByTestId(id).locator(`.recharts-line.${cls} path.recharts-curve`).evaluateAll((ps) => ps.filter((p) => (p.getAttribute('d') ?? '').length > 0).length);
    expect(await drawn('chart-reward', 'series-c1')).toBe(1);
    const second = page.getByTestId('compare-legend').first().getByTestId('compare-label').nth(1).locator('button');
    await second.click();
    await expect(second.getAttribute('aria-pressed')).resolves.toBe('false');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=chart-reward] .recharts-line.series-c1 path.recharts-curve')].every((p) => !(p.getAttribute('d') ?? '')), null, { timeout: 10_000 });
    expect(await drawn('chart-reward', 'series-c0')).toBe(1);
    expect(await drawn('chart-entropy', 'series-c1')).toBe(0);
    expect(await page.getByTestId('chart-pass1').locator('.dot-series-c1').count()).toBe(0);
    await second.click();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=chart-reward] .recharts-line.series-c1 path.recharts-curve')].some((p) => (p.getAttribute('d') ?? '').length > 0), null, { timeout: 10_000 });
    expect(await drawn('chart-entropy', 'series-c1')).toBe(1);
  });

  it('a run whose learning rate was changed live is labelled so, and gets no seed mean', async () => {
    const { page, base } = lab;
    await gotoLab(page, `${base}?seed=3`);
    const labels = await compare(page, [{ name: 'a.json', text: runJson(21) }, { name: 'b.json', text: runJson(23, { lr: [1e-4, 5e-5, 5e-5] }) }]);
    expect(labels[labels.length - 1]).toMatch(/^#\d+: seed 23; changed live: lr → 5(\.0+)?e-5 at step 2$/);
    await expect(page.getByTestId('compare-legend').first().textContent()).resolves.not.toMatch(/differ only by seed/);
    expect(await page.getByTestId('chart-reward').locator('.series-mean').count()).toBe(0);
  });

  it('a run evaluated once is a point; the pass@k overlay says the runs\' evaluations are at different steps', async () => {
    const { page, base } = lab;
    await gotoLab(page, `${base}?seed=3`);
    await compare(page, [{ name: 'a.json', text: runJson(31) }, { name: 'b.json', text: runJson(33, { evalSteps: [0] }) }]);
    const pass1 = page.getByTestId('chart-pass1');
    await pass1.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=chart-pass1] .dot-series-c1').length > 0, null, { timeout: 10_000 });
    expect(await pass1.locator('.dot-series-c1').count()).toBe(1);
    expect(await pass1.locator('.dot-series-c0').count()).toBe(2);
    await expect(page.getByTestId('chart-passk').textContent()).resolves.toMatch(/pass@k at each run's latest evaluation: steps differ/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare-one-eval.png') });
  });
});
