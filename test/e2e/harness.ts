// Shared by the browser tests: the built app served by `vite preview`, headless Chromium with
// WebGPU on SwiftShader, and pages that collect their console errors (worker's included).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestContext } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, CHROMIUM_ARGS_NO_WEBGPU, DIST, ROOT, freePort, startPreview, stopPreview } from '../../src/bench/browser';

export { DIST, ROOT, lowerGpuProcessPriority } from '../../src/bench/browser';
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');

/** Watches a page's console errors and uncaught exceptions, its workers' included. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(`worker console: ${m.text()}`)));
  return errors;
}

/** Navigates and waits until the worker has looked for an adapter. */
export async function gotoLab(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('[data-testid=adapter-info]:not([data-status=idle]):not([data-status=detecting])', { timeout: 60_000 });
}

export async function newPage(browser: Browser): Promise<Page> {
  // a context of its own, so a test can open a second tab sharing its storage (context.newPage)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Checks the build and the browser, then starts `vite preview` on a free port and Chromium (with
 * WebGPU on SwiftShader unless `webgpu: false`).
 */
export async function startLab(opts: { webgpu?: boolean } = {}): Promise<{ server: ChildProcess; browser: Browser; base: string }> {
  if (!existsSync(path.join(ROOT, DIST, 'index.html'))) throw new Error(`no build in ${DIST}/: run \`npm run test:e2e\`, which builds first`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium package`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  const server = await startPreview(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: opts.webgpu === false ? CHROMIUM_ARGS_NO_WEBGPU : CHROMIUM_ARGS });
  return { server, browser, base: `http://127.0.0.1:${port}/` };
}

/** A started lab: the preview server, the browser, and one page opened on it. */
export interface Lab {
  server: ChildProcess;
  browser: Browser;
  base: string;
  page: Page;
  /** the page's console errors and uncaught exceptions, its workers' included */
  errors: string[];
  /** the adapter panel's data-status once the worker has looked for an adapter */
  adapterStatus: string | null;
}

/** A new page that collects its console errors, navigated to `url` (see gotoLab). */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await newPage(browser);
  const errors = collectErrors(page);
  await gotoLab(page, url);
  return { page, errors };
}

/**
 * Starts the lab (startLab) and opens a page on `${base}${query}`; what a file's beforeAll does.
 * If the page does not open, the browser and server are closed again before the error is thrown.
 */
export async function openLab(query: string, opts: { webgpu?: boolean } = {}): Promise<Lab> {
  const { server, browser, base } = await startLab(opts);
  try {
    const { page, errors } = await openPage(browser, `${base}${query}`);
    const adapterStatus = await page.getAttribute('[data-testid=adapter-info]', 'data-status');
    return { server, browser, base, page, errors, adapterStatus };
  } catch (e) {
    await closeLab({ server, browser });
    throw e;
  }
}

/** Closes what openLab started (nothing if it failed). */
export async function closeLab(lab: Pick<Lab, 'server' | 'browser'> | undefined): Promise<void> {
  await lab?.browser.close();
  await stopPreview(lab?.server ?? null);
}

/** Without an adapter the GPU checks cannot run: a failure on CI, a visible skip elsewhere. */
export function requireAdapter(ctx: TestContext, lab: Pick<Lab, 'adapterStatus'>): void {
  const status = lab.adapterStatus;
  if (status === 'ready') return;
  if (process.env.CI === 'true') throw new Error(`no WebGPU adapter in Chromium (adapter panel status: ${status})`);
  ctx.skip(`no WebGPU adapter in this Chromium (status ${status}); CI=true makes this a failure`);
}

/** How many points a chart draws (its data-points). */
export async function points(page: Page, id: string): Promise<number> {
  return Number(await page.getByTestId(`chart-${id}`).getAttribute('data-points'));
}

/** Charts draw new data one per task (src/ui/charts/stagger.ts): waits until none is waiting for its turn. */
export async function chartsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('[data-waiting]'), null, { timeout: 20_000, polling: 50 });
}

/**
 * Waits until the selected run's status is `state` at exactly `step`; a run error fails at once
 * (not that of a run shown with its restore hint: an interrupted run until Resume takes effect),
 * and either failure throws with the status text.
 */
export async function waitRunStatus(page: Page, state: string, step: number, timeoutMs: number, polling = 100): Promise<void> {
  const ok = await page
    .waitForFunction(
      ([state, step]) => {
        const el = document.querySelector('[data-testid=run-status]');
        if (document.querySelector('[data-testid=run-error]') && !document.querySelector('[data-testid=run-restore-hint]')) return 'error';
        return el?.getAttribute('data-state') === state && el.getAttribute('data-step') === String(step) ? 'ok' : false;
      },
      [state, step] as const,
      { timeout: timeoutMs, polling },
    )
    .then((h) => h.jsonValue(), () => 'timeout');
  if (ok !== 'ok') {
    const status = await page.getByTestId('run-status').textContent();
    throw new Error(`waiting for ${state} at step ${step}: ${ok}; status: ${status}`);
  }
}

/** Drops the errors a lost GPU device logs on its own (expected after a device-loss test). */
export function dropDeviceLossErrors(errors: string[]): void {
  errors.splice(0, errors.length, ...errors.filter((e) => !/device|lost|destroyed/i.test(e)));
}

