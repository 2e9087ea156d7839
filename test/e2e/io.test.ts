// Files in and out of the run page, in headless Chromium (WebGPU on SwiftShader): a run's JSON
// export is imported back (a malformed one is refused and the run list is left as it was), and so is
// the export of a run trained here with a saved checkpoint; a
// malformed checkpoint upload is refused with what is wrong, the shipped tiny checkpoint becomes
// the selectable base policy `upload:model`, trains a step in the worker and is back after a
// reload; a chart downloads as a PNG (light and dark); a lesson link hides parts of the page and
// locks fields; nothing breaks the Content-Security-Policy. Screenshots: test-artifacts/io-*.png.
// Run with `npx vite build --outDir dist-io && RLVR_DIST=dist-io npx vitest run --project e2e test/e2e/io.test.ts`.
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson } from './fixtures';
import { ARTIFACTS, chartsDrawn, closeLab, gotoLab, openLab, requireAdapter, ROOT, shot, type Lab } from './harness';

/** One RL step of the tiny policy, evaluated before and after on 2 problems × 2 samples. */
const SETUP = 'seed=3&steps=1&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=1&evalProblems=2&evalN=2&samplesPerStep=2';
const RUN_TIMEOUT_MS = 180_000;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const TINY_DIR = path.join(ROOT, 'public', 'models', 'tiny');

const json = (name: string, text: string) => ({ name, mimeType: 'application/json', buffer: Buffer.from(text) });

async function runCount(page: Page): Promise<number> {
  return page.getByTestId('run-item').count();
}

async function policyOptions(page: Page): Promise<string[]> {
  return page.getByTestId('launcher-policy').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
}

/** Clicks a chart's PNG button; returns the downloaded bytes (a copy is kept in test-artifacts). */
async function downloadPng(page: Page, id: string, copyAs: string): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`chart-png-${id}`).click()]);
  expect(download.suggestedFilename()).toBe(`rlvr-lab-chart-${id}.png`);
  const file = await download.path();
  copyFileSync(file, path.join(ARTIFACTS, copyAs));
  return readFileSync(file);
}

describe('import, upload, PNG export and lesson links (built app, headless Chromium)', () => {
  let lab: Lab, base: string, page: Page, errors: string[];
  beforeAll(async () => {
    ({ base, page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('imports a run exported as JSON, and refuses a malformed one without touching the list', async () => {
    const before = await runCount(page);
    await page.getByTestId('run-import').setInputFiles(json('good-run.json', runJson()));
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=run-item]').length === n + 1, before, { timeout: 10_000 });
    const item = page.getByTestId('run-item').last();
    expect(await item.getAttribute('data-state')).toBe('done');
    await expect(item.locator('.run-label').textContent()).resolves.toMatch(/^#\d+ GRPO · small \(imported\)$/);
    await page.waitForFunction(() => document.querySelector('[data-testid=chart-reward]')?.getAttribute('data-points') === '3', null, { timeout: 10_000 });
    await chartsDrawn(page);
    expect(await page.getByTestId('chart-pass1').getAttribute('data-points')).toBe('2');
    expect(await page.getByTestId('run-import-error').count()).toBe(0);

    const labels = await page.getByTestId('run-item').allTextContents();
    const bad = JSON.parse(runJson()) as { metrics: { step: unknown[] } };
    bad.metrics.step[1] = 'two';
    await page.getByTestId('run-import').setInputFiles(json('bad-run.json', JSON.stringify(bad)));
    const error = page.getByTestId('run-import-error');
    await error.waitFor({ timeout: 10_000 });
    await expect(error.textContent()).resolves.toBe('bad-run.json: metrics.step[1]: expected number, got "two"');
    expect(await page.getByTestId('run-item').allTextContents()).toEqual(labels);
    await page.getByTestId('run-import').setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('not json') });
    await page.waitForFunction(() => document.querySelector('[data-testid=run-import-error]')?.textContent?.startsWith('notes.json: not JSON'), null, { timeout: 10_000 });
    expect(await runCount(page)).toBe(before + 1);
    await page.getByTestId('run-list').scrollIntoViewIfNeeded();
    await shot(page, 'io-import');
    await page.locator('section.runs').screenshot({ path: path.join(ARTIFACTS, 'io-import-runs.png') });
  });

  it('saves a chart as a PNG picture, light and dark, titled with the run it shows', async () => {
    await expect(page.getByTestId('chart-reward').getAttribute('data-png-title')).resolves.toMatch(/^Reward · #\d+ GRPO · small \(imported\)$/);
    const light = await downloadPng(page, 'reward', 'io-chart-reward.png');
    expect([...light.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    // IHDR: width and height (big-endian) at bytes 16 and 20; drawn at twice the chart's size
    const shown = await page.getByTestId('chart-reward').locator('svg.recharts-surface').boundingBox();
    expect(light.readUInt32BE(16)).toBeGreaterThanOrEqual(2 * Math.floor(shown!.width));
    expect(light.readUInt32BE(20)).toBeGreaterThan(2 * Math.floor(shown!.height));
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await downloadPng(page, 'passk', 'io-chart-passk-dark.png');
    expect([...dark.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('refuses a malformed checkpoint with what is wrong, and offers a good one as a base policy', async (ctx) => {
    const options = await policyOptions(page);
    const st = readFileSync(path.join(TINY_DIR, 'model.safetensors'));
    const cfg = readFileSync(path.join(TINY_DIR, 'config.json'));
    const upload = page.getByTestId('policy-upload');
    const error = page.getByTestId('policy-upload-error');
    await upload.setInputFiles([{ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: st.subarray(0, st.length - 64) }, { name: 'config.json', mimeType: 'application/json', buffer: cfg }]);
    await error.waitFor({ timeout: 10_000 });
    const message = (await error.textContent()) ?? '';
    console.log(`truncated checkpoint: ${message}`);
    expect(message).toMatch(/^model\.safetensors: /);
    await upload.setInputFiles([{ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: st }]);
    await page.waitForFunction(() => /also choose its config\.json/.test(document.querySelector('[data-testid=policy-upload-error]')?.textContent ?? ''), null, { timeout: 10_000 });
    expect(await policyOptions(page)).toEqual(options);
    await page.getByTestId('launcher-policy').scrollIntoViewIfNeeded();
    await shot(page, 'io-upload-error');
    await page.locator('.launcher-top').screenshot({ path: path.join(ARTIFACTS, 'io-upload-error-picker.png') });

    await upload.setInputFiles([path.join(TINY_DIR, 'model.safetensors'), path.join(TINY_DIR, 'config.json')]);
    await page.waitForFunction(() => (document.querySelector('[data-testid=launcher-policy]') as HTMLSelectElement | null)?.value === 'upload:model', null, { timeout: 10_000 });
    expect(await policyOptions(page)).toEqual([...options, 'upload:model']);
    expect(await error.count()).toBe(0);
    expect(new URL(page.url()).searchParams.has('policy')).toBe(false);
    await shot(page, 'io-upload');
    await page.locator('.launcher-top').screenshot({ path: path.join(ARTIFACTS, 'io-upload-picker.png') });

    // the worker trains from the uploaded weights
    requireAdapter(ctx, lab);
    const before = await runCount(page);
    await page.getByTestId('run-start').click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=run-item]').length === n + 1 && ['done', 'failed'].includes(document.querySelector('[data-testid=run-status]')?.getAttribute('data-state') ?? ''),
      before, { timeout: RUN_TIMEOUT_MS },
    );
    const status = page.getByTestId('run-status');
    expect(await status.getAttribute('data-state'), (await status.textContent()) ?? '').toBe('done');
    await expect(page.getByTestId('run-item').last().locator('.run-label').textContent()).resolves.toMatch(/upload:model$/);

    // the run's own safetensors export carries its config: it uploads back alone
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=run-item].selected').getByTestId('run-export-safetensors').click()]);
    const exported = download.suggestedFilename();
    await upload.setInputFiles([{ name: exported, mimeType: 'application/octet-stream', buffer: readFileSync((await download.path())!) }]);
    const name = `upload:${exported.replace(/\.safetensors$/, '')}`;
    await page.waitForFunction((n) => (document.querySelector('[data-testid=launcher-policy]') as HTMLSelectElement | null)?.value === n, name, { timeout: 10_000 });
    expect(await error.count()).toBe(0);
    expect(await policyOptions(page)).toEqual([...options, 'upload:model', name]);

    // kept in IndexedDB: offered again after a reload (the link itself does not name it)
    await gotoLab(page, `${base}?${SETUP}`);
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=launcher-policy] option')].some((o) => (o as HTMLOptionElement).value === 'upload:model'), null, { timeout: 10_000 });
  });

  it('imports back the JSON export of a finished run that saved a checkpoint (the page once refused its own export)', async (ctx) => {
    requireAdapter(ctx, lab);
    // the run the test above trained from the uploaded weights, restored after its reload
    const trained = page.getByTestId('run-item').filter({ has: page.locator('.run-label', { hasText: /upload:model$/ }) }).last();
    expect(await trained.getAttribute('data-state')).toBe('done');
    await trained.locator('.run-pick').click();
    const [download] = await Promise.all([page.waitForEvent('download'), trained.getByTestId('run-export-json').click()]);
    const text = readFileSync((await download.path())!, 'utf8');
    const exported = JSON.parse(text) as { run: { status: { checkpointStep?: number } }; metrics: { step: number[] } };
    expect(exported.run.status.checkpointStep).toBe(1);
    const steps = await page.getByTestId('chart-reward').getAttribute('data-points');

    const before = await runCount(page);
    await page.getByTestId('run-import').setInputFiles(json(download.suggestedFilename(), text));
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=run-item]').length === n + 1 || document.querySelector('[data-testid=run-import-error]') !== null, before, { timeout: 10_000 });
    expect(await page.getByTestId('run-import-error').count(), (await page.getByTestId('run-import-error').allTextContents()).join()).toBe(0);
    const item = page.getByTestId('run-item').last();
    expect(await item.getAttribute('data-state')).toBe('done');
    await expect(item.locator('.run-label').textContent()).resolves.toMatch(/upload:model \(imported\)$/);
    // selected, it draws the same steps as the run it came from
    await page.waitForFunction((n) => document.querySelector('[data-testid=chart-reward]')?.getAttribute('data-points') === n, steps, { timeout: 10_000 });
    expect(exported.metrics.step.length).toBe(Number(steps));
    await shot(page, 'io-roundtrip');
  });

  it('opens a lesson link: the parts it hides are gone and the fields it locks are disabled', async () => {
    await gotoLab(page, `${base}?${SETUP}&lr=0.0003&hide=knobs,selftest,demo,samples&lock=lr,seed,policy`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=run-item]').length > 0, null, { timeout: 10_000 });
    for (const id of ['selftest-run', 'demo-start', 'run-knobs', 'sample']) expect(await page.getByTestId(id).count(), id).toBe(0);
    expect(await page.getByTestId('adapter-info').count()).toBe(1);
    for (const f of ['lr', 'seed']) {
      const field = page.getByTestId(`field-${f}`);
      expect(await field.locator('input').isDisabled(), f).toBe(true);
      expect(await field.getAttribute('data-locked')).toBe('true');
    }
    await expect(page.getByTestId('field-lr').locator('input').inputValue()).resolves.toBe('0.0003');
    expect(await page.getByTestId('field-steps').locator('input').isDisabled()).toBe(false);
    expect(await page.getByTestId('launcher-policy').isDisabled()).toBe(true);
    expect(await page.getByTestId('policy-upload').isDisabled()).toBe(true);
    expect(await page.getByTestId('launcher-warnings').count()).toBe(0);
    // a reset keeps the locked values
    await page.getByRole('button', { name: 'Reset to defaults' }).click();
    await expect(page.getByTestId('field-lr').locator('input').inputValue()).resolves.toBe('0.0003');
    expect(new URL(page.url()).searchParams.get('lock')).toBe('lr,seed,policy');
    await shot(page, 'io-lesson');

    // without the launcher the run list takes the width; unknown parts are reported, not fatal
    await page.goto(`${base}?hide=launcher,adapter,sidebar`);
    await page.getByTestId('run-list').waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByTestId('run-start').count()).toBe(0);
    expect(await page.getByTestId('adapter-info').count()).toBe(0);
    await expect(page.getByTestId('launcher-warnings').textContent()).resolves.toMatch(/hide=sidebar: no such part of the page/);
    await shot(page, 'io-lesson-no-launcher');
  });

  it('logs no console errors (CSP violations included)', () => {
    expect(errors).toEqual([]);
  });
});
