// A teacher's lessons in the built app (issue 28 §1, §2): an intro link under a lesson keeps the
// lesson's parameters, the intro follows the chosen loop, changing loop keeps the set-up, a
// lesson that hides the launcher can still start its run, and each paper's lesson starts its runs
// (shortened by the address: tiny policy, one step) and marks the charts it asks to watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { closeLab, gotoLab, openLab, requireAdapter, shot, waitRunStatus, type Lab } from './harness';
import { PAPER_LESSONS } from '../../src/state/lessons';

/** What shortens every run here: the tiny policy, one step, an evaluation of 2 × 2 at both ends. */
const SHORT = 'policy=tiny&seed=2&steps=1&evalProblems=2&evalN=2&samplesPerStep=1';

const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

/** Waits until `n` runs of the list have finished. */
async function runsDone(page: Page, before: readonly string[], n: number, timeout = 240_000): Promise<void> {
  // only the runs this lesson started count: a run of an earlier test whose last status write a
  // reload cut off comes back interrupted, not done, and must not hold this lesson up
  const ok = await page
    .waitForFunction(({ before, n }) => {
      const items = [...document.querySelectorAll('[data-testid=run-item]')].filter((e) => !before.includes(e.getAttribute('data-run-id') ?? ''));
      if (items.some((e) => e.getAttribute('data-state') === 'failed')) return 'failed';
      return items.filter((e) => e.getAttribute('data-state') === 'done').length >= n;
    }, { before, n }, { timeout, polling: 250 })
    .then((h) => h.jsonValue(), () => 'timeout');
  if (ok !== true) throw new Error(`waiting for ${n} finished runs: ${String(ok)}; ${await page.getByTestId('run-list').textContent()}`);
}

/**
 * Opens an address in place, as the page's own links do (history entry and popstate, no reload):
 * the runs of the lesson before keep their final state, however soon the next lesson opens.
 */
async function openInPage(page: Page, search: string): Promise<void> {
  await page.evaluate((search) => {
    history.pushState(null, '', `${location.pathname}${search}`);
    dispatchEvent(new PopStateEvent('popstate'));
  }, search);
}

describe('lessons (built app, headless Chromium)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab('?loop=svs&setup=lab&seed=2&hide=demo,selftest&lock=seed');
  });
  afterAll(() => closeLab(lab));

  it('the intro follows the chosen loop, and its links keep the lesson\'s parameters', async () => {
    const { page } = lab;
    await page.getByTestId('intro').waitFor();
    await expect(page.getByTestId('intro-loop').getAttribute('data-loop')).resolves.toBe('svs');
    await expect(page.getByTestId('intro-loop').textContent()).resolves.toMatch(/^SvS trains on the original problems/);
    const links = page.getByTestId('intro-outcome');
    expect(await links.allTextContents()).toEqual(['Quick demo', 'The hackable reward']);
    await links.nth(1).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('setup') === 'naive');
    expect(query(page)).toEqual({ loop: 'svs', setup: 'naive', seed: '2', hide: 'demo,selftest', lock: 'seed' });
    await expect(page.getByTestId('launcher-setup').inputValue()).resolves.toBe('naive');
    // a lesson link inside the page: the lesson opens in place, the page's parameters stay
    await page.getByTestId('intro-lesson').first().click();
    await page.getByTestId('lesson').waitFor();
    expect(query(page)).toMatchObject({ loop: 'svs', seed: '2', hide: 'demo,selftest', lock: 'seed', lesson: 'grpo-vs-svs' });
    // back leaves the lesson
    await page.goBack();
    await page.waitForFunction(() => !document.querySelector('[data-testid=lesson]'));
  });

  it('picking another loop keeps the chosen set-up, and the intro follows it', async () => {
    const { page, base } = lab;
    await gotoLab(page, `${base}?setup=lab`);
    await page.getByTestId('startbar-loop').selectOption('opensir');
    await expect(page.getByTestId('startbar-setup').inputValue()).resolves.toBe('lab');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('loop') === 'opensir');
    expect(query(page)).toEqual({ loop: 'opensir', setup: 'lab' });
    await expect(page.getByTestId('intro-loop').getAttribute('data-loop')).resolves.toBe('opensir');
    // the registry's own spelling in the Start bar
    expect(await page.getByTestId('startbar-loop').locator('option').allTextContents()).toEqual(['GRPO', 'SvS', 'SPICE', 'OpenSIR', 'DATPO', 'TTSP']);
  });

  it('a lesson that hides the launcher still starts its run, with its set-up shown', async (ctx) => {
    requireAdapter(ctx, lab);
    const { page, base } = lab;
    await gotoLab(page, `${base}?${SHORT}&problemsPerStep=2&hide=launcher,demo,selftest&lock=seed,policy`);
    expect(await page.getByTestId('launcher-setup').count()).toBe(0);
    await expect(page.getByTestId('startbar-fixed').textContent()).resolves.toBe('GRPO · paper · tiny');
    await expect(page.getByTestId('intro').textContent()).resolves.toMatch(/lesson fixes the set-up: press Start run at the top/);
    expect(await page.getByTestId('intro-outcome').count()).toBe(0);
    await page.getByTestId('startbar-start').click();
    await waitRunStatus(page, 'done', 1, 180_000);
  });

  it('hide=newrun hides the launcher\'s knobs and keeps the Start bar', async () => {
    const { page, base } = lab;
    await gotoLab(page, `${base}?setup=lab&hide=newrun`);
    expect(await page.getByTestId('launcher-setup').count()).toBe(0);
    await expect(page.getByTestId('startbar-setup').inputValue()).resolves.toBe('lab');
    expect(await page.getByTestId('startbar-why').count()).toBe(0);
  });

  for (const lesson of PAPER_LESSONS) {
    it(`the ${lesson.id} lesson starts its runs side by side and marks its charts`, async (ctx) => {
      requireAdapter(ctx, lab);
      const { page } = lab;
      await openInPage(page, `?lesson=${lesson.id}&${SHORT}`);
      const banner = page.getByTestId('lesson');
      await expect(banner.getByRole('heading').textContent()).resolves.toBe(`Lesson: ${lesson.title}`);
      await expect(page.getByTestId('lesson-measured').textContent()).resolves.toContain(lesson.source);
      expect(await page.getByTestId('lesson-runs').locator('li').count()).toBe(lesson.runs.length);
      const before = await page.getByTestId('run-item').evaluateAll((es) => es.map((e) => e.getAttribute('data-run-id') ?? ''));
      await page.getByTestId('lesson-start').click();
      await runsDone(page, before, lesson.runs.length);
      if (lesson.runs.length > 1) expect(await page.getByTestId('compare-legend').first().getByTestId('compare-label').count()).toBe(lesson.runs.length);
      // the lesson's first chart is drawn and marked; so is every other one its runs report (a
      // one-step tiny run may report no question at SPICE's frontier yet)
      const first = lesson.charts[0].id;
      await page.locator(`[data-testid="chart-${first}"][data-lesson-focus]`).first().waitFor({ timeout: 20_000 }).catch(async (e: unknown) => {
        await shot(page, `lesson-${lesson.id}-failed`);
        const ids = await page.locator('figure[data-testid^=chart-]').evaluateAll((es) => es.map((e) => e.getAttribute('data-testid')));
        throw new Error(`${String(e)}; charts on the page: ${ids.join(' ')}`);
      });
      for (const c of lesson.charts) {
        const charts = page.locator(`figure[data-testid="chart-${c.id}"]`);
        const n = await charts.count();
        for (let i = 0; i < n; i++) expect(await charts.nth(i).getAttribute('data-lesson-focus'), c.id).toBe('true');
      }
      expect(await page.locator('figure[data-lesson-focus]').count()).toBeGreaterThanOrEqual(1);
      if (lesson.xAxis) await expect(page.getByTestId('chart-xaxis').inputValue()).resolves.toBe(lesson.xAxis);
      if (lesson.id === 'grpo-vs-svs') {
        await page.locator('[data-testid="chart-entropy"][data-lesson-focus]').waitFor();
        // SvS's own charts draw one run: they say which, in its legend colour
        await expect(page.getByTestId('chart-mix').getByTestId('chart-run').textContent()).resolves.toMatch(/^#\d+ SvS · tiny only$/);
        expect(await page.getByTestId('chart-mix').getByTestId('chart-run').locator('.swatch').getAttribute('class')).toBe('swatch series-c1');
        await page.setViewportSize({ width: 1440, height: 900 });
        await shot(page, 'lesson-1440');
        await page.getByTestId('lesson').screenshot({ path: 'test-artifacts/lesson-1440-banner.png' });
        await page.getByTestId('chart-mix').screenshot({ path: 'test-artifacts/lesson-1440-mix.png' });
        await page.setViewportSize({ width: 390, height: 844 });
        await shot(page, 'lesson-390');
        // phones: a sample's response has the card's width, not a column of two characters
        const response = page.locator('.sample-response').first();
        if (await response.count()) expect((await response.boundingBox())!.width).toBeGreaterThan(250);
        // the run list is as tall as its runs (no inner scroll box)
        expect(await page.getByTestId('run-list').evaluate((e) => e.scrollHeight - e.clientHeight)).toBe(0);
        // a wide table says it scrolls: edge shadows
        const table = page.locator('.table-scroll').first();
        if (await table.count()) expect(await table.evaluate((e) => getComputedStyle(e).backgroundImage)).toMatch(/gradient/);
        await page.locator('.samples-panel').screenshot({ path: 'test-artifacts/lesson-390-samples.png' }).catch(() => undefined);
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });
  }
});
