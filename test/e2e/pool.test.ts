// Each run in a GPU worker of its own (built app, headless Chromium, WebGPU on SwiftShader):
// two runs train at once, each in a worker with its own device beside the page's main
// worker; losing one run's device halts that run alone while the other keeps training, and the
// halted run resumes from its checkpoint in a new worker; a worker closes when its run ends;
// losing the page's own device (no run active) shows the reconnect banner, and reconnecting
// clears it. Screenshots: test-artifacts/pool-*.png.
// Run with `npx vite build --outDir dist-x && RLVR_DIST=dist-x npx vitest run --project e2e test/e2e/pool.test.ts`.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, closeLab, dropDeviceLossErrors, openLab, requireAdapter, shot, type Lab } from './harness';

/** Long runs of 2 problems × 4 samples, a checkpoint after every step, evaluation only at the start and the end. */
const SETUP = 'policy=tiny&seed=3&steps=400&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=0&evalProblems=4&evalN=4&samplesPerStep=3&checkpointEvery=1';
const STEP_TIMEOUT_MS = 120_000;

/** The page's GPU workers (gpu.worker.ts): the main one and one per run not yet ended. */
const gpuWorkers = (page: Page) => page.workers().filter((w) => w.url().includes('gpu.worker')).length;

async function waitWorkers(page: Page, n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (gpuWorkers(page) !== n) {
    if (Date.now() > deadline) throw new Error(`expected ${n} GPU workers, found ${gpuWorkers(page)}`);
    await page.waitForTimeout(100);
  }
}

const item = (page: Page, index: number) => page.getByTestId('run-item').nth(index);

/** Each listed run's state and step, in list order. */
async function runs(page: Page): Promise<{ state: string; step: number }[]> {
  return page.getByTestId('run-item').evaluateAll((els) =>
    els.map((e) => ({ state: e.getAttribute('data-state') ?? '', step: Number(/step (\d+) \//.exec(e.querySelector('.run-step')?.textContent ?? '')?.[1] ?? NaN) })),
  );
}

/** Waits until every listed run satisfies its condition (null: anything). */
async function waitRuns(page: Page, what: string, want: ({ state?: string; minStep?: number } | null)[]): Promise<void> {
  const ok = await page
    .waitForFunction(
      (want) => {
        const els = [...document.querySelectorAll('[data-testid=run-item]')];
        if (els.length !== want.length) return false;
        return els.every((e, i) => {
          const w = want[i];
          const step = Number(/step (\d+) \//.exec(e.querySelector('.run-step')?.textContent ?? '')?.[1] ?? NaN);
          return !w || ((w.state === undefined || e.getAttribute('data-state') === w.state) && (w.minStep === undefined || step >= w.minStep));
        });
      },
      want,
      { timeout: STEP_TIMEOUT_MS, polling: 100 },
    )
    .then(() => 'ok', (e: Error) => e.message.split('\n')[0]);
  if (ok !== 'ok') throw new Error(`waiting for ${what}: ${ok}; runs: ${JSON.stringify(await runs(page))}`);
}

describe('a worker per run (built app, headless Chromium)', () => {
  let lab: Lab, page: Page, errors: string[];
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?debug&${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('trains two runs at once, each in a GPU worker of its own', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-start]')?.hasAttribute('disabled'), null, { timeout: 10_000 });
    expect(gpuWorkers(page)).toBe(1);
    const t0 = Date.now();
    await page.getByTestId('run-start').click();
    await page.getByTestId('field-seed').locator('input').fill('4');
    await page.getByTestId('run-start').click();
    await waitRuns(page, 'both runs to train', [{ state: 'running', minStep: 1 }, { state: 'running', minStep: 1 }]);
    console.log(`two runs from Start to step 1 each: ${Date.now() - t0} ms`);
    expect(gpuWorkers(page)).toBe(3);
    await waitRuns(page, 'both runs to train on', [{ state: 'running', minStep: 2 }, { state: 'running', minStep: 2 }]);
    await shot(page, 'pool-two-runs');
    await page.locator('.runs').first().screenshot({ path: path.join(ARTIFACTS, 'pool-two-runs-panel.png') });
  });

  it('a device lost in one run\'s worker halts that run alone; it resumes from its checkpoint in a new worker', async (ctx) => {
    requireAdapter(ctx, lab);
    await item(page, 0).locator('.run-pick').click();
    await page.getByTestId('debug-lose-device').click();
    const lost = page.getByTestId('run-device-lost');
    await lost.waitFor({ timeout: 30_000 });
    await expect(lost.textContent()).resolves.toMatch(/The GPU device of run #1 GRPO · tiny was lost.*halted only this run/);
    await waitRuns(page, 'the first run to halt', [{ state: 'failed' }, null]);
    const [first, second] = await runs(page);
    expect(await page.getByTestId('run-halt').getAttribute('data-kind')).toBe('device-lost');
    // the other run, its worker and the page's engine carry on
    await waitRuns(page, 'the second run to train on', [{ state: 'failed' }, { state: 'running', minStep: second.step + 1 }]);
    expect(await page.getByTestId('device-lost').count()).toBe(0);
    await expect(page.getByTestId('adapter-info').locator('.badge').first().textContent()).resolves.toBe('WebGPU ready');
    await waitWorkers(page, 2);
    await shot(page, 'pool-run-lost');
    await page.locator('.alerts').screenshot({ path: path.join(ARTIFACTS, 'pool-run-lost-alert.png') });
    await page.locator('.runs').first().screenshot({ path: path.join(ARTIFACTS, 'pool-run-lost-panel.png') });

    await page.getByTestId('run-resume').click();
    await lost.waitFor({ state: 'detached', timeout: 10_000 });
    await waitRuns(page, 'the first run to go on from its checkpoint', [{ state: 'running', minStep: first.step + 1 }, { state: 'running' }]);
    expect(gpuWorkers(page)).toBe(3);
    for (const i of [0, 1]) {
      await item(page, i).locator('.run-pick').click();
      await page.getByTestId('run-stop').click();
    }
    await waitRuns(page, 'both runs to stop', [{ state: 'stopped' }, { state: 'stopped' }]);
    // a run's worker closes when the run ends
    await waitWorkers(page, 1);
  });

  it('losing the page\'s own device (no run active) asks to reconnect; reconnecting clears it', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('debug-lose-device').click();
    const banner = page.getByTestId('device-lost');
    await banner.waitFor({ timeout: 30_000 });
    await expect(banner.textContent()).resolves.toMatch(/device was lost \(destroyed\)/);
    expect(await page.getByTestId('run-start').isDisabled()).toBe(true);
    expect(await page.getByTestId('run-device-lost').count()).toBe(0);
    await page.getByTestId('device-reconnect').click();
    await banner.waitFor({ state: 'detached', timeout: 60_000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-start]')?.hasAttribute('disabled'), null, { timeout: 10_000 });
    // the GPU's own errors after the losses are expected here
    dropDeviceLossErrors(errors);
  });

  it('logs no console errors', () => {
    expect(errors).toEqual([]);
  });
});
