// The intro's "See what the lab measured" (built app, headless Chromium, no GPU needed): the
// gallery's entries listed with the paper's claim and what was measured, those a newer entry replaces
// after the rest, collapsed; one click on the first DATPO entry keeps the page's parameters, adds explore=gallery/datpo-vs-grpo.json without a reload,
// scrolls to the explorer and draws it from the file with nothing trained: one table row per arm
// with ± values, and the pass@k chart with every arm. Screenshots at 1440 px:
// test-artifacts/gallery-intro-1440.png and gallery-explorer-1440.png. The GRPO failure entry (evaluated
// every 50 steps) draws its held-out pass@1, pass@64 and entropy over training (gallery-heldout-1440.png);
// an arm whose seeds ran different numbers of steps (TTSP's generic control) draws its tail dashed.
// Run with `npx vite build && npx vitest run --project e2e test/e2e/gallery.test.ts`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, closeLab, openLab, ROOT, type Lab } from './harness';

const INDEX = JSON.parse(readFileSync(path.join(ROOT, 'public/gallery/index.json'), 'utf8')) as { entries: { id: string; title: string; claim: string; measured: string; arms: number; superseded?: string; verdict?: string }[] };
const DATPO = INDEX.entries.find((e) => e.id === 'datpo-vs-grpo')!;
const FAILURE = INDEX.entries.find((e) => e.id === 'grpo-failure')!;

/** Waits until every chart named is drawn and waits for no newer data. */
const chartsDrawn = (page: Lab['page'], ids: readonly string[]) =>
  page.waitForFunction((want) => want.every((t) => {
    const el = document.querySelector(`[data-testid=${t}]`);
    return el?.getAttribute('data-drawn') === 'true' && !el.hasAttribute('data-waiting');
  }), ids, { timeout: 10_000 });

describe('the gallery in the intro (built app, headless Chromium)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab('?setup=lab&seed=7', { webgpu: false });
  });
  afterAll(() => closeLab(lab));

  it('lists the measured ablations and opens one in the explorer, drawn from its file', async () => {
    const { page, errors } = lab;
    await page.setViewportSize({ width: 1440, height: 900 });
    const entries = page.getByTestId('gallery-entry');
    await entries.first().waitFor({ timeout: 10_000 });
    // the current entries first; those a newer entry replaces after them, collapsed (DATPO's first
    // measurement is one of them: opened below)
    const current = INDEX.entries.filter((e) => !e.superseded), earlier = INDEX.entries.filter((e) => e.superseded);
    expect(earlier.map((e) => e.id)).toContain(DATPO.id);
    expect(await entries.allTextContents()).toEqual([...current, ...earlier].map((e) => e.title));
    const datpoLink = page.locator('[data-testid=gallery-entry][data-id=datpo-vs-grpo]');
    expect(await datpoLink.isVisible()).toBe(false);
    expect(await page.locator(`[data-testid=gallery-entry][data-id=${current[0].id}]`).isVisible()).toBe(true);
    await expect(page.getByTestId('gallery-earlier').locator('summary').textContent()).resolves.toContain(`(${earlier.length}): ${DATPO.superseded}`);
    // a current entry answers first, its numbers folded
    const first = page.locator(`[data-testid=gallery-entry][data-id=${current[0].id}]`).locator('..');
    expect(await first.getByTestId('gallery-verdict').isVisible()).toBe(true);
    expect(await first.locator('.gallery-measured').isVisible()).toBe(false);
    await first.locator('.gallery-numbers > summary').click();
    expect(await first.locator('.gallery-measured').isVisible()).toBe(true);
    await page.getByTestId('gallery-earlier').locator('summary').click();
    expect(await datpoLink.isVisible()).toBe(true);
    const gallery = page.getByTestId('intro-gallery');
    await expect(gallery.textContent()).resolves.toContain(DATPO.claim);
    await expect(gallery.textContent()).resolves.toContain(DATPO.measured);
    await page.getByTestId('intro').screenshot({ path: path.join(ARTIFACTS, 'gallery-intro-1440.png') });

    // no reload: a marker set on the page survives the click
    await page.evaluate(() => ((window as unknown as { galleryMarker: number }).galleryMarker = 1));
    await datpoLink.click();
    await page.getByTestId('explorer-file').waitFor({ timeout: 10_000 });
    const url = new URL(page.url());
    expect(url.searchParams.get('explore')).toBe('gallery/datpo-vs-grpo.json');
    expect(url.searchParams.get('setup')).toBe('lab');
    expect(url.searchParams.get('seed')).toBe('7');
    expect(await page.evaluate(() => (window as unknown as { galleryMarker?: number }).galleryMarker)).toBe(1);
    expect(await page.getByTestId('explorer-file').getAttribute('data-gallery')).toBe('gallery/datpo-vs-grpo.json');

    // scrolled to the explorer
    await page.waitForFunction(() => {
      const top = document.querySelector('[data-testid=explorer]')?.getBoundingClientRect().top;
      return top !== undefined && Math.abs(top) < 50;
    }, null, { timeout: 5_000 });

    // the table: one row per arm, each with ± values
    const rows = page.getByTestId('explorer-row');
    await rows.first().waitFor({ timeout: 10_000 });
    const text = await rows.allTextContents();
    expect(text).toHaveLength(DATPO.arms);
    for (const r of text) expect(r).toMatch(/±.*±/);

    // the pass@k chart draws every arm, from the file's evaluations
    const passk = page.getByTestId('explorer-chart-passk');
    await passk.scrollIntoViewIfNeeded();
    await chartsDrawn(page, ['explorer-chart-passk']);
    expect(Number(await passk.getAttribute('data-arms'))).toBe(DATPO.arms);
    expect(Number(await passk.getAttribute('data-points'))).toBeGreaterThan(0);
    // nothing trained: the run list is empty, the live button is offered
    expect(await page.getByTestId('run-item').count()).toBe(0);
    expect(await page.getByTestId('explorer-run-live').isVisible()).toBe(true);
    await page.getByTestId('explorer').screenshot({ path: path.join(ARTIFACTS, 'gallery-explorer-1440.png') });
    // its runs evaluated at the start and the end only: no held-out curves over training
    expect(await page.getByTestId('explorer-heldout').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('an entry whose runs evaluated every 50 steps draws the held-out set over training: pass@1, pass@64 and entropy, every arm', async () => {
    const { page, errors } = lab;
    await page.goto(`${lab.base}?explore=gallery/${FAILURE.id}.json`);
    await page.getByTestId('explorer-file').waitFor({ timeout: 10_000 });
    const held = page.getByTestId('explorer-heldout');
    await held.scrollIntoViewIfNeeded();
    const ids = ['explorer-chart-heldout-pass1', 'explorer-chart-heldout-pass64', 'explorer-chart-heldout-entropy'];
    await chartsDrawn(page, ids);
    for (const id of ids) {
      const c = page.getByTestId(id);
      expect(Number(await c.getAttribute('data-arms')), id).toBe(FAILURE.arms);
      // 7 evaluations a seed (steps 0, 50, …, 300): 7 points an arm
      expect(Number(await c.getAttribute('data-points')), id).toBe(7 * FAILURE.arms);
    }
    await held.screenshot({ path: path.join(ARTIFACTS, 'gallery-heldout-1440.png') });
    expect(errors).toEqual([]);
  });

  it('an arm whose seeds ran different numbers of steps draws its tail dashed with no band (the mean over fewer seeds) and a ring at its end over every seed, the others whole', async () => {
    const { page, errors } = lab;
    // TTSP's generic control stops at its token budget: 14, 15 and 15 steps; the loop's arms run 40 each
    await page.goto(`${lab.base}?explore=gallery/ttsp-exp6.json`);
    await page.getByTestId('explorer-file').waitFor({ timeout: 10_000 });
    // what its runs cost, beside the button that runs them again
    expect(await page.getByTestId('explorer-file-cost').textContent()).toMatch(/^\(12 runs; \d+ h \d+ min of compute in all where they were measured\)$/);
    // the entry's answer above its numbers
    expect(await page.getByTestId('explorer-verdict').textContent()).toBe(`Verdict: ${INDEX.entries.find((e) => e.id === 'ttsp-exp6')!.verdict}`);
    // its question first: the target's charts lead, and the table has the target's end value
    const lead = page.getByTestId('explorer-lead');
    expect(await lead.locator('figure.explorer-chart').evaluateAll((fs) => fs.map((f) => f.getAttribute('data-testid')))).toEqual(['explorer-chart-target-mean', 'explorer-chart-target-base_mean', 'explorer-chart-target-maj']);
    // the table: the question's columns, then held-out pass@1 against the control, before the rest
    const heads = await page.getByTestId('explorer-table').locator('thead th').allTextContents();
    expect(heads.slice(0, 7)).toEqual(['Arm ▲', 'Seeds', 'target/mean (end)', 'target/base_mean (end)', 'target/maj (end)', 'held-out pass@1 vs generic control', 'pass@1 change']);
    // compared at equal tokens, it opens on the tokens axis; by step first here
    expect(await page.getByTestId('explorer-xaxis').inputValue()).toBe('tokens');
    await page.getByTestId('explorer-xaxis').selectOption('step');
    const chart = page.getByTestId('explorer-chart-reward');
    await chart.scrollIntoViewIfNeeded();
    await chartsDrawn(page, ['explorer-chart-reward']);
    expect(await chart.locator('[data-arm=arm2] [data-testid=explorer-tail]').count()).toBe(1);
    // its end: a ring at the mean of every seed's last value; the arms whose seeds end together have none
    expect(await chart.locator('[data-arm=arm2] [data-testid=explorer-end] title').textContent()).toMatch(/the mean of every seed's last value \(n = 3\)/);
    expect(await chart.locator('[data-testid=explorer-end]').count()).toBe(1);
    for (const arm of ['arm1', 'arm3', 'arm4']) expect(await chart.locator(`[data-arm=${arm}] [data-testid=explorer-tail]`).count(), arm).toBe(0);
    expect(await chart.locator('[data-arm=arm2] [data-testid=explorer-tail] title').textContent()).toMatch(/fewer than the arm's 3 seeds/);
    expect(await page.getByTestId('explorer-band-kind').textContent()).toMatch(/dashed, with no band, where only some of an arm.s seeds count.*a ring/);
    // by tokens the seeds are read at the same tokens: the control's three seeds span all but its last few
    await page.getByTestId('explorer-xaxis').selectOption('tokens');
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid=explorer-chart-reward]');
      return el?.getAttribute('data-drawn') === 'true' && !el.hasAttribute('data-waiting') && el.querySelector('[data-arm=arm2] [data-testid=explorer-end]') !== null;
    }, null, { timeout: 10_000 });
    expect(await chart.locator('[data-testid=explorer-end]').count()).toBeGreaterThanOrEqual(1);
    expect(errors).toEqual([]);
  });
});
