// Runs survive reloads and device loss (built app, headless Chromium, WebGPU on SwiftShader): a
// GRPO run of the tiny policy checkpointing every step shows in a second tab as running in the
// first (read-only), is cut off by a reload, comes back interrupted, resumes ("Resume it") from
// its checkpoint under its own id and finishes with its charts gaining points; a second run's worker loses its GPU device, and the run resumes from its
// checkpoint in a new worker on a new device to the end; its checkpoint downloads as safetensors whose header parses (Hugging
// Face GPT-2 names, config inside) and as ONNX. Screenshots: test-artifacts/persist-*.png.
// Run with `npx vite build --outDir dist-x && RLVR_DIST=dist-x npx vitest run --project e2e test/e2e/persist.test.ts`.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { ARTIFACTS, closeLab, dropDeviceLossErrors, gotoLab, openLab, points, requireAdapter, shot, type Lab } from './harness';
import { decodeSafetensors } from '../../src/model/safetensors';

/** 3 steps of 2 problems × 4 samples, a checkpoint after every step, evaluation only at the start and the end. */
const SETUP = 'policy=tiny&seed=3&steps=3&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=0&evalProblems=4&evalN=4&samplesPerStep=3&checkpointEvery=1';
const STEP_TIMEOUT_MS = 120_000;

interface Want {
  state?: string;
  /** at least this step */
  step?: number;
  /** the selected run has a checkpoint (its export is offered) */
  checkpoint?: boolean;
  /** this many runs in the list */
  items?: number;
}

/** Waits until the selected run is as wanted; a run error fails at once with the status text. */
async function waitRun(page: Page, what: string, want: Want): Promise<void> {
  const ok = await page
    .waitForFunction(
      (w: Want) => {
        const el = document.querySelector('[data-testid=run-status]');
        if (document.querySelector('[data-testid=run-error]') && !document.querySelector('[data-testid=run-restore-hint]')) return 'error';
        const exp = document.querySelector<HTMLButtonElement>('[data-testid=run-item].selected [data-testid=run-export-safetensors]');
        return (w.state === undefined || el?.getAttribute('data-state') === w.state) &&
          (w.step === undefined || Number(el?.getAttribute('data-step')) >= w.step) &&
          (!w.checkpoint || (exp !== null && !exp.disabled)) &&
          (w.items === undefined || document.querySelectorAll('[data-testid=run-item]').length === w.items)
          ? 'ok'
          : false;
      },
      want,
      { timeout: STEP_TIMEOUT_MS, polling: 100 },
    )
    .then((h) => h.jsonValue(), (e: Error) => `failed (${e.message.split('\n')[0]})`);
  if (ok !== 'ok') throw new Error(`waiting for ${what}: ${ok}; status: ${await page.getByTestId('run-status').textContent()}`);
}

/** The whole page, and the runs panel alone (easier to read). */
async function shots(page: Page, name: string): Promise<void> {
  await shot(page, name);
  await page.locator('.runs').first().screenshot({ path: path.join(ARTIFACTS, `${name}-runs.png`) });
}

const selectedItem = (page: Page) => page.locator('[data-testid=run-item].selected');

describe('runs survive reloads and device loss (built app, headless Chromium)', () => {
  let lab: Lab, base: string, page: Page, errors: string[];
  beforeAll(async () => {
    ({ base, page, errors } = lab = await openLab(`?debug&${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('a run cut off by a reload comes back interrupted and resumes from its checkpoint to the end', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-start]')?.hasAttribute('disabled'), null, { timeout: 10_000 });
    await page.getByTestId('run-start').click();
    // paused before its first step, then one single step: paused after step 1, so it is still
    // this tab's run while a second tab opens (a checkpoint exists once its export is offered)
    await page.getByTestId('run-pause').click();
    await waitRun(page, 'the pause before step 1', { state: 'paused' });
    await page.getByTestId('run-step').click();
    await waitRun(page, 'the first checkpoint', { state: 'paused', step: 1, checkpoint: true });
    const runId = await selectedItem(page).getAttribute('data-run-id');

    // a second tab of the same browser shows it as running there: read-only, no resume offered
    const tab2 = await page.context().newPage();
    await gotoLab(tab2, `${base}?debug&${SETUP}`);
    const there = tab2.locator(`[data-testid=run-item][data-run-id="${runId}"]`);
    await there.waitFor({ timeout: 10_000 });
    await expect(there.locator('.badge').textContent()).resolves.toBe('Running in another tab');
    expect(await there.getAttribute('data-interrupted')).toBeNull();
    await tab2.getByTestId('run-elsewhere').waitFor({ timeout: 10_000 });
    for (const id of ['run-restore-hint', 'runs-interrupted']) expect(await tab2.getByTestId(id).count(), id).toBe(0);
    expect(await tab2.getByTestId('run-resume').isDisabled()).toBe(true);
    await tab2.screenshot({ path: path.join(ARTIFACTS, 'persist-second-tab.png') });
    await tab2.close();

    await gotoLab(page, `${base}?debug&${SETUP}`);
    const item = page.locator(`[data-testid=run-item][data-run-id="${runId}"]`);
    await item.waitFor({ timeout: 10_000 });
    expect(await item.getAttribute('data-interrupted')).toBe('true');
    await expect(item.locator('.badge').textContent()).resolves.toBe('Interrupted');
    const before = await points(page, 'reward');
    expect(before).toBeGreaterThanOrEqual(1);
    await page.getByTestId('run-restore-hint').waitFor({ timeout: 10_000 });
    await shots(page, 'persist-interrupted');

    const resume = page.getByTestId('run-resume');
    await expect(resume.textContent()).resolves.toMatch(/Resume from checkpoint/);
    // one button resumes every run the reload cut off
    await expect(page.getByTestId('runs-interrupted').textContent()).resolves.toMatch(/cut off when this page was last closed or reloaded/);
    await page.getByTestId('runs-resume-all').click();
    await waitRun(page, 'the resumed run to finish', { state: 'done', step: 3 });
    expect(await item.getAttribute('data-interrupted')).toBeNull();
    expect(await points(page, 'reward')).toBe(3);
    expect(await points(page, 'reward')).toBeGreaterThan(before);
    // evaluations at steps 0 and 3, none repeated (the last batch travels on its own message
    // channel and may land just after the run's final status)
    await page.waitForFunction(() => document.querySelector('[data-testid=chart-pass1]')?.getAttribute('data-points') === '2', null, { timeout: 5_000 }).catch(() => undefined);
    expect(await points(page, 'pass1')).toBe(2);
    await shots(page, 'persist-resumed');
  });

  it('a run whose GPU device is lost resumes from its checkpoint on a new device', async (ctx) => {
    requireAdapter(ctx, lab);
    const count = await page.getByTestId('run-item').count();
    // 8 steps: long enough that the loss lands mid-run, whatever the machine's load (3 steps of tiny can end first)
    await page.getByTestId('field-steps').locator('input').fill('8');
    await page.getByTestId('run-start').click();
    await waitRun(page, 'the new run\'s first checkpoint', { items: count + 1, step: 1, checkpoint: true });
    // the run's own worker loses its device; the page's engine keeps its own
    await page.getByTestId('debug-lose-device').click();
    await page.getByTestId('run-device-lost').waitFor({ timeout: 30_000 });
    await waitRun(page, 'the run to halt', { state: 'failed' });
    expect(await page.getByTestId('run-halt').getAttribute('data-kind')).toBe('device-lost');
    expect(await page.getByTestId('device-lost').count()).toBe(0);
    await shots(page, 'persist-device-lost');

    // resuming opens a new worker with a new device
    await page.getByTestId('run-resume').click();
    await page.getByTestId('run-device-lost').waitFor({ state: 'detached', timeout: 10_000 });
    await waitRun(page, 'the run to finish on the new device', { state: 'done', step: 8 });
    expect(await points(page, 'reward')).toBe(8);
    // the loss stays on record, marked on the charts; its advice (reconnect, resume) is gone
    expect(await page.getByTestId('run-halt').count()).toBe(0);
    await expect(page.getByTestId('run-halt-history').textContent()).resolves.toMatch(/stopped on its own once, at step \d+ .*resumed to the end/);
    await shots(page, 'persist-reconnected');
    // the GPU's own errors after the loss are expected here
    dropDeviceLossErrors(errors);
  });

  it('downloads the checkpoint as safetensors (Hugging Face names, config inside) and as ONNX', async (ctx) => {
    requireAdapter(ctx, lab);
    const [download] = await Promise.all([page.waitForEvent('download'), selectedItem(page).getByTestId('run-export-safetensors').click()]);
    expect(download.suggestedFilename()).toMatch(/^rlvr-lab-grpo-tiny-.*-step8\.safetensors$/);
    const file = decodeSafetensors(new Uint8Array(readFileSync((await download.path())!)), download.suggestedFilename());
    expect(file.tensors.get('wte.weight')?.shape).toEqual([64, 32]);
    expect(file.tensors.has('h.0.attn.c_attn.weight')).toBe(true);
    expect(JSON.parse(file.metadata.config_json)).toMatchObject({ model_type: 'gpt2' });
    expect(file.metadata.step).toBe('8');
    const [onnx] = await Promise.all([page.waitForEvent('download'), selectedItem(page).getByTestId('run-export-onnx').click()]);
    expect(onnx.suggestedFilename()).toMatch(/\.onnx$/);
    expect(readFileSync((await onnx.path())!).length).toBeGreaterThan(100_000);
  });

  it('logs no console errors', () => {
    expect(errors).toEqual([]);
  });
});
