// The page in a Chromium without WebGPU: it explains why (never a blank page) and offers CPU
// mode; in CPU mode a two-step GRPO run of the tiny policy trains on the float64 reference
// engine in its own worker, labelled CPU, and fills the training and evaluation charts. The
// self-test and the demo say they need WebGPU. Screenshots: test-artifacts/cpu-*.png.
// Run with `npx vite build && npx vitest run --project e2e test/e2e/cpu.test.ts`.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { ARTIFACTS, chartsDrawn, closeLab, gotoLab, openLab, points, shot, waitRunStatus, type Lab } from './harness';

/** lab.test.ts's small set-up, two steps: 2 problems × 4 samples a step, evaluation every step on 4 problems × 4 samples. */
const SETUP = 'policy=tiny&seed=3&steps=2&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=1&evalProblems=4&evalN=4&samplesPerStep=3';
const RUN_TIMEOUT_MS = 120_000;

describe('the page without WebGPU (CPU mode)', () => {
  let lab: Lab, base: string, page: Page, errors: string[];
  beforeAll(async () => {
    ({ base, page, errors } = lab = await openLab(`?${SETUP}`, { webgpu: false }));
  });
  afterAll(() => closeLab(lab));

  it('really has no WebGPU adapter, says why and offers CPU mode', async () => {
    const gpu = await page.evaluate(async () => {
      const g = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
      if (!g) return 'no navigator.gpu';
      return (await g.requestAdapter().catch(() => null)) ? 'adapter' : 'no adapter';
    });
    expect(gpu).not.toBe('adapter');
    expect(await page.getAttribute('[data-testid=adapter-info]', 'data-status')).toBe('unavailable');
    await expect(page.getByTestId('adapter-info').textContent()).resolves.toMatch(/WebGPU/);
    const offer = page.getByTestId('cpu-mode-offer');
    await expect(offer.textContent()).resolves.toMatch(/CPU mode runs GRPO on the tiny policy/);
    expect(await page.getByTestId('cpu-mode').textContent()).toBe('Use CPU mode');
    expect(await page.getByTestId('run-start').isDisabled()).toBe(true);
    expect(await page.getByTestId('cpu-mode-banner').count()).toBe(0);
    await shot(page, 'cpu-offer');
  });

  it('switches to CPU mode: a banner says so, only tiny is offered, the GPU panels say they need WebGPU', async () => {
    await page.getByTestId('cpu-mode').click();
    const banner = page.getByTestId('cpu-mode-banner');
    await banner.waitFor({ timeout: 30_000 });
    await expect(banner.textContent()).resolves.toContain('CPU mode (reference engine, tiny policy)');
    expect(await page.getByTestId('cpu-mode-offer').count()).toBe(0);
    const policies = await page.getByTestId('launcher-policy').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(policies).toEqual(['tiny']);
    expect(await page.getByTestId('run-start').isEnabled()).toBe(true);
    await expect(page.getByTestId('selftest-status').textContent()).resolves.toMatch(/Needs a working WebGPU device/);
    expect(await page.getByTestId('selftest-run').isDisabled()).toBe(true);
    await expect(page.getByTestId('demo-status').textContent()).resolves.toMatch(/Needs a working WebGPU device/);
    // the adapter panel keeps explaining why
    await expect(page.getByTestId('adapter-info').textContent()).resolves.toMatch(/does not offer WebGPU|no GPU adapter/);
  });

  it('trains a two-step GRPO run of tiny on the CPU to the end, labelled CPU, with charts', async () => {
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 2, RUN_TIMEOUT_MS, 200);
    const item = page.getByTestId('run-item').first();
    expect(await item.getAttribute('data-state')).toBe('done');
    await expect(item.locator('.run-label').textContent()).resolves.toBe('#1 GRPO · tiny · CPU');
    // the charts draw the last batch on a later frame than the status shows it, one chart per task
    await page.waitForFunction(() => document.querySelector('[data-testid=chart-reward]')?.getAttribute('data-points') === '2', null, { timeout: 10_000 });
    await chartsDrawn(page);
    expect(await points(page, 'entropy')).toBe(2);
    expect(await points(page, 'passk')).toBeGreaterThan(0);
    expect(await page.getByTestId('sample').count()).toBeGreaterThan(0);
    await shot(page, 'cpu-done');
    // what a visitor sees: the banner stays at the top of the window while the page scrolls
    await page.evaluate(() => window.scrollTo(0, 600));
    await page.screenshot({ path: path.join(ARTIFACTS, 'cpu-scrolled.png') });
    expect(await page.getByTestId('cpu-mode-banner').evaluate((el) => Math.round(el.getBoundingClientRect().top))).toBe(0);
    // the page explains the missing GPU; nothing else may fail
    expect(errors.filter((e) => !/webgpu|adapter/i.test(e))).toEqual([]);
  });

  it('a CPU run cut off by a reload resumes from its checkpoint in CPU mode', async () => {
    // long enough to be mid-run at the reload; evaluation only at the end keeps steps short
    const setup = SETUP.replace('steps=2', 'steps=30').replace('evalEvery=1', 'evalEvery=0') + '&checkpointEvery=1';
    await gotoLab(page, `${base}?${setup}`);
    await page.getByTestId('cpu-mode').click();
    await page.getByTestId('cpu-mode-banner').waitFor({ timeout: 30_000 });
    const count = await page.getByTestId('run-item').count();
    await page.getByTestId('run-start').click();
    // wait for the first step's checkpoint (the run status carries its step once saved)
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=run-item]').length === n && Number(document.querySelector('[data-testid=run-status]')?.getAttribute('data-step')) >= 2,
      count + 1,
      { timeout: RUN_TIMEOUT_MS, polling: 100 },
    );
    const runId = await page.locator('[data-testid=run-item].selected').getAttribute('data-run-id');

    await gotoLab(page, `${base}?${setup}`);
    const item = page.locator(`[data-testid=run-item][data-run-id="${runId}"]`);
    await item.waitFor({ timeout: 10_000 });
    expect(await item.getAttribute('data-interrupted')).toBe('true');
    // without a GPU the run resumes only once CPU mode is on
    await page.getByTestId('cpu-mode').click();
    await page.getByTestId('cpu-mode-banner').waitFor({ timeout: 30_000 });
    await item.click();
    const resume = page.getByTestId('run-resume');
    await expect(resume.textContent()).resolves.toMatch(/Resume from checkpoint/);
    await resume.click();
    await waitRunStatus(page, 'done', 30, RUN_TIMEOUT_MS, 200);
    await page.waitForFunction(() => document.querySelector('[data-testid=chart-reward]')?.getAttribute('data-points') === '30', null, { timeout: 10_000 });
    await shot(page, 'cpu-resumed');
    expect(errors.filter((e) => !/webgpu|adapter/i.test(e))).toEqual([]);
  });
});
