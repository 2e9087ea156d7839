// The built app in headless Chromium: the worker finds a WebGPU adapter (SwiftShader here), the
// kernel self-test passes in the browser, the demo's loss curve falls, device loss is shown,
// and the page logs no console errors under its Content-Security-Policy.
// Run with `npm run test:e2e` (builds first). Screenshots go to test-artifacts/.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SELF_TESTS } from '../../src/selftest/selftest';
import { closeLab, openLab, openPage, requireAdapter, shot, type Lab } from './harness';

/** A training run on SwiftShader is slow; give the demo this long to show a falling curve. */
const DEMO_TIMEOUT_MS = 240_000;

describe('RLVR Lab page (built app, headless Chromium)', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(''));
    await shot(page, 'page-initial');
  });
  afterAll(() => closeLab(lab));

  it('shows the WebGPU adapter the worker found, or says why there is none', async (ctx) => {
    const info = page.getByTestId('adapter-info');
    if (lab.adapterStatus !== 'ready') {
      await expect(info.textContent()).resolves.toMatch(/WebGPU|adapter/);
      requireAdapter(ctx, lab);
    }
    const name = (await page.getByTestId('adapter-name').textContent())?.trim() ?? '';
    expect(name.length).toBeGreaterThan(0);
    await expect(info.textContent()).resolves.toContain('maxStorageBuffersPerShaderStage');
  });

  it('runs every kernel self-test in the worker, all passing', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('selftest-run').click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=selftest-result]').length >= n, SELF_TESTS.length, { timeout: 120_000 });
    await page.waitForSelector('[data-testid=selftest-run]:not([disabled])');
    const rows = page.getByTestId('selftest-result');
    expect(await rows.count()).toBe(SELF_TESTS.length);
    const failed = await rows.evaluateAll((els) => els.filter((e) => e.getAttribute('data-ok') !== 'true').map((e) => e.textContent));
    await shot(page, 'page-selftest');
    expect(failed, `failing checks:\n${failed.join('\n')}`).toEqual([]);
  });

  it("memorise demo: the live loss curve of the tiny policy falls", async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('demo-start').click();
    const chart = page.getByTestId('chart-loss');
    const outcome = await page
      .waitForFunction(
        () => {
          if (document.querySelector('[data-testid=demo-error]')) return 'error';
          const c = document.querySelector('[data-testid=chart-loss]');
          const n = Number(c?.getAttribute('data-points'));
          const first = Number(c?.getAttribute('data-first-loss'));
          const last = Number(c?.getAttribute('data-last-loss'));
          return n >= 5 && last < first ? 'falling' : false;
        },
        null,
        { timeout: DEMO_TIMEOUT_MS, polling: 250 },
      )
      .then((h) => h.jsonValue(), () => 'timeout');
    await shot(page, 'page-demo');
    const error = outcome === 'error' ? await page.getByTestId('demo-error').locator('code').textContent() : null;
    const points = await chart.getAttribute('data-points');
    if (await page.getByTestId('demo-stop').isEnabled()) await page.getByTestId('demo-stop').click();
    if (error !== null) throw new Error(`the demo panel shows an engine error: ${error}`);
    expect(outcome, `chart after ${DEMO_TIMEOUT_MS / 1000} s: ${points} points`).toBe('falling');
  });

  it('logs no console errors (CSP violations included)', () => {
    expect(errors).toEqual([]);
  });

  // Runs after the console check: the refused script below logs a violation by design.
  it('enforces its Content-Security-Policy (an injected inline script is refused)', async () => {
    const result = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (e) => resolve(`refused by ${e.effectiveDirective}`), { once: true });
          const s = document.createElement('script');
          s.textContent = 'document.body.dataset.cspProbe = "ran"';
          document.head.append(s);
          setTimeout(() => resolve(document.body.dataset.cspProbe === 'ran' ? 'ran' : 'no violation event'), 2000);
        }),
    );
    expect(result).toBe('refused by script-src-elem');
  });

  it('shows device loss reported by the worker', async (ctx) => {
    requireAdapter(ctx, lab);
    const { page: debugPage, errors: debugErrors } = await openPage(lab.browser, `${lab.base}?debug`);
    await debugPage.getByTestId('debug-lose-device').click();
    const banner = debugPage.getByTestId('device-lost');
    await banner.waitFor({ timeout: 30_000 });
    await expect(banner.textContent()).resolves.toMatch(/device was lost \(destroyed\)/);
    await debugPage.emulateMedia({ colorScheme: 'dark' });
    await shot(debugPage, 'page-device-lost-dark');
    expect(debugErrors).toEqual([]);
    await debugPage.close();
  });
});
