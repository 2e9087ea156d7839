// The page at a laptop's and a phone's size (1440×900, 390×844): nothing is wider than the
// screen (run items, their export links, the panels), a run's name is not cut into one word per
// line, and screenshots of the first load, a finished run and a comparison are saved for a look.
// Runs are imported (as exported by the page), so no GPU is needed.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, closeLab, gotoLab, openLab, type Lab } from './harness';
import { runJson } from './fixtures';
import path from 'node:path';

const SIZES = [[1440, 900], [390, 844]] as const;

/** Elements (by test id or class) whose box reaches past the viewport's right edge. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > w) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const el of document.querySelectorAll<HTMLElement>('main *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > w + 0.5 && getComputedStyle(el).position !== 'fixed') {
        out.push(`${el.dataset.testid ?? el.className ?? el.tagName} ends at ${Math.round(r.right)} px`);
      }
    }
    return out.slice(0, 10);
  });
}

async function save(page: Page, name: string, w: number, h: number): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `layout-${name}-${w}x${h}.png`) });
}

describe('the page at 1440×900 and 390×844 (built app, headless Chromium)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab('?seed=3', { webgpu: false });
  });
  afterAll(() => closeLab(lab));

  it.each(SIZES)('at %i×%i: nothing wider than the screen; first load, a finished run and a comparison', async (w, h) => {
    const { page, base } = lab;
    await page.setViewportSize({ width: w, height: h });
    await gotoLab(page, `${base}?seed=3`);
    await page.getByTestId('run-import').waitFor();
    await save(page, 'first-load', w, h);
    expect(await overflowing(page)).toEqual([]);
    // a field's help is one line; a tap opens all of it (touch screens have no hover), another closes it
    const help = page.getByTestId('field-seed').getByTestId('help-toggle');
    const oneLine = (await help.boundingBox())!.height;
    await help.tap().catch(() => help.click());
    await expect(help.getAttribute('aria-expanded')).resolves.toBe('true');
    if (w < 600) expect((await help.boundingBox())!.height).toBeGreaterThan(oneLine * 1.5);
    expect(await overflowing(page)).toEqual([]);
    await help.click();
    await expect(help.getAttribute('aria-expanded')).resolves.toBe('false');

    const before = await page.getByTestId('run-item').count();
    for (const seed of [9, 11]) {
      await page.getByTestId('run-import').setInputFiles({ name: `run-${seed}.json`, mimeType: 'application/json', buffer: Buffer.from(runJson(seed)) });
    }
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=run-item]').length === n + 2, before, { timeout: 10_000 });
    await page.getByTestId('run-list').scrollIntoViewIfNeeded();
    await save(page, 'finished-run', w, h);
    expect(await overflowing(page)).toEqual([]);
    // the selected run's export links are on screen, and its name has room for words side by side
    const item = page.locator('[data-testid=run-item].selected');
    for (const id of ['run-export-json', 'run-export-csv']) {
      const box = (await item.getByTestId(id).boundingBox())!;
      expect(box.x + box.width, id).toBeLessThanOrEqual(w);
    }
    expect((await item.locator('.run-label').boundingBox())!.width).toBeGreaterThan(120);
    // a finished run's summary
    await expect(page.getByTestId('run-summary').textContent()).resolves.toMatch(/^Summary: 3 steps in 6 s of compute; reward 0\.200 → 0\.500 \(first and last 1 of 3 steps\); .*held-out pass@1 10\.0 % → 30\.0 % \(step 0 → 3\); pass@4 30\.0 % → 50\.0 %\.$/);

    const boxes = page.getByTestId('run-compare');
    const n = await boxes.count();
    await boxes.nth(n - 2).check();
    await boxes.nth(n - 1).check();
    await page.getByTestId('compare-legend').first().waitFor();
    await page.getByTestId('compare-legend').first().scrollIntoViewIfNeeded();
    await save(page, 'comparison', w, h);
    expect(await overflowing(page)).toEqual([]);
  });
});
