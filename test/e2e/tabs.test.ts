// A second tab follows a run the first computes (issue 28 §4; built app, WebGPU on SwiftShader):
// live, step by step, to its end, without a reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeLab, gotoLab, openLab, requireAdapter, waitRunStatus, type Lab } from './harness';

const SETUP = 'policy=tiny&seed=3&steps=4&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=0&evalProblems=2&evalN=2&samplesPerStep=1';

describe('two tabs (built app, headless Chromium)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab(`?${SETUP}`);
  });
  afterAll(() => closeLab(lab));

  it('the second tab follows the first tab\'s run to its end', async (ctx) => {
    requireAdapter(ctx, lab);
    const { page, base } = lab;
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-start]')?.hasAttribute('disabled'), null, { timeout: 10_000 });
    await page.getByTestId('run-start').click();
    // paused while the second tab opens, so the run is surely the first tab's then: paused at once
    // (a short run could end before a pause sent after its first step), then one single step
    await page.getByTestId('run-pause').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.getAttribute('data-state') === 'paused', null, { timeout: 60_000 });
    await page.getByTestId('run-step').click();
    await waitRunStatus(page, 'paused', 1, 120_000, 20);
    const tab2 = await page.context().newPage();
    await gotoLab(tab2, `${base}?${SETUP}`);
    await tab2.getByTestId('run-elsewhere').waitFor({ timeout: 10_000 });
    await expect(tab2.locator('[data-testid=run-item] .badge').textContent()).resolves.toBe('Running in another tab');
    await page.getByTestId('run-resume').click();
    // no reload: the owner's steps and its end arrive over the channel
    await waitRunStatus(tab2, 'done', 4, 180_000);
    await expect(tab2.locator('[data-testid=run-item] .badge').textContent()).resolves.toBe('Finished');
    expect(await tab2.getByTestId('run-elsewhere').count()).toBe(0);
    // the chart takes the steps at the next animation frame, which may come after the status on a
    // busy machine: waited for, so a step lost in the follower still fails here (after 10 s)
    await tab2.waitForFunction(() => document.querySelector('[data-testid=chart-reward]')?.getAttribute('data-points') === '4', null, { timeout: 10_000 }).catch(async () => {
      throw new Error(`the follower's reward chart has ${await tab2.getByTestId('chart-reward').getAttribute('data-points')} points after the run's end, not 4`);
    });
    await tab2.close();
  });
});
