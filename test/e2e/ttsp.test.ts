// TTSP in the page (built app, headless Chromium, WebGPU on SwiftShader): the launcher offers the
// base's shipped targets (a pick sets the target and its base mean@512) and a typed one; a short
// run of the shipped `small` base trains its two adapter sets and every view the loop declares
// draws: the target against the frozen base, proposer mean and top-4, entropy per role, the
// replay buffer, the gate's rejections by category, relatedness, the cumulative Vendi score, the
// reward-shape curve and the proposal browser.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { chartsDrawn, closeLab, openLab, points, requireAdapter, shot, waitRunStatus, type Lab } from './harness';
import { decodeSafetensors } from '../../src/model/safetensors';

/** Two steps of 2 contexts × 4 proposals, 4 solver attempts, the target every step. */
/** The shipped list the launcher offers (re-measured with each new base). */
const TARGETS = JSON.parse(readFileSync('public/models/small/ttsp_targets.json', 'utf8')) as { midHard: { text: string; passRate: number }[]; veryHard: { text: string; passRate: number }[] };
const SETUP = 'loop=ttsp&policy=small&seed=4&steps=2&checkpointEvery=1&proposalsPerContext=4&solverAttempts=4&replay=2&targetEvalEvery=1&targetEvalN=4&evalEvery=0&evalProblems=2&evalN=2&samplesPerStep=2&lr=0.003';

describe('TTSP in the page', () => {
  let lab: Lab, page: Page, errors: string[];
  let solverFile: { name: string; mimeType: string; buffer: Buffer } | null = null;
  beforeAll(async () => {
    ({ page, errors } = lab = await openLab(`?${SETUP}`));
  });
  afterAll(() => closeLab(lab));

  it('offers the shipped targets of the base and a typed one', async () => {
    await expect(page.getByTestId('launcher-loop').inputValue()).resolves.toBe('ttsp');
    const setups = await page.getByTestId('launcher-setup').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(setups).toEqual(['paper', 'lab', 'answer-only-gate', 'no-replay', 'threshold', 'generic-control']);
    const pick = page.getByTestId('target-pick');
    await page.waitForFunction((n) => (document.querySelector('[data-testid=target-pick]') as HTMLSelectElement | null)?.options.length === n, TARGETS.midHard.length + TARGETS.veryHard.length + 1, { timeout: 20_000 });
    // the default is the first MidHard target
    await expect(pick.inputValue()).resolves.toBe('midhard:1');
    await pick.selectOption('veryhard:1');
    await expect(page.getByTestId('target-text').inputValue()).resolves.toBe(TARGETS.veryHard[0].text);
    await expect(page.getByTestId('field-targetBaseRate').locator('input').inputValue()).resolves.toBe(String(TARGETS.veryHard[0].passRate));
    // a typed problem the list did not measure: no reference rate; a bad one is named
    await page.getByTestId('target-text').fill('3*(4+');
    await page.getByTestId('launcher-error').waitFor();
    await expect(page.getByTestId('launcher-error').textContent()).resolves.toMatch(/target = "3\*\(4\+": not a problem of the world/);
    await page.waitForSelector('[data-testid=field-target].cfg-invalid');
    await page.getByTestId('target-text').fill('7*(2+3)');
    await expect(page.getByTestId('field-targetBaseRate').locator('input').inputValue()).resolves.toBe('-1');
    await expect(pick.inputValue()).resolves.toBe('');
    await pick.selectOption('midhard:5');
    await expect(page.getByTestId('target-text').inputValue()).resolves.toBe(TARGETS.midHard[4].text);
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
    await shot(page, 'ttsp-launcher');
  });

  it('trains the adapter sets to the end and draws every TTSP view', async (ctx) => {
    requireAdapter(ctx, lab);
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 2, 600_000);
    await chartsDrawn(page);
    for (const id of ['vendi', 'entropy', 'target', 'target-maj', 'proposer', 'entropy-roles', 'replay']) expect(await points(page, id), `chart-${id}`).toBe(2);
    expect(await page.getByTestId('chart-rejections').locator('.recharts-bar').count()).toBeGreaterThan(0);
    await shot(page, 'ttsp-done');
    const curve = page.getByTestId('chart-reward-shape');
    await curve.scrollIntoViewIfNeeded();
    expect(await curve.getAttribute('data-dots')).toBe('5');
    await expect(page.getByTestId('curve-caption-reward-shape').textContent()).resolves.toBe('gaussian (τ = 0.01), G_S = 4; a rejected proposal is paid 0');
    const browser = page.getByTestId('browser-proposal-browser');
    await browser.scrollIntoViewIfNeeded();
    // 2 contexts × 4 proposals of the latest step, each context headed by the target
    expect(Number(await browser.getAttribute('data-rows'))).toBe(8);
    for (const d of await browser.locator('.browser-head dd').allTextContents()) expect(d.startsWith(TARGETS.midHard[4].text), d).toBe(true);
    await browser.screenshot({ path: 'test-artifacts/ttsp-proposal-browser.png' });
    expect(errors).toEqual([]);
  });

  it('downloads each adapter set (PEFT names, its LoraConfig inside) and the adapted solver as a policy', async (ctx) => {
    requireAdapter(ctx, lab);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('run-export-adapter-solver').first().click()]);
    expect(download.suggestedFilename()).toMatch(/^rlvr-lab-ttsp-small-.*-step2-adapter_solver\.safetensors$/);
    const bytes = new Uint8Array(readFileSync((await download.path())!));
    const file = decodeSafetensors(bytes);
    expect(JSON.parse(file.metadata.adapter_config)).toMatchObject({ adapter_name: 'solver', r: 8, lora_alpha: 8, target_modules: ['c_attn', 'c_proj', 'c_fc'] });
    expect(file.tensors.has('h.0.attn.c_attn.lora_A.weight')).toBe(true);
    expect(await page.getByTestId('run-export-adapter-proposer').count()).toBeGreaterThan(0);
    const [policy] = await Promise.all([page.waitForEvent('download'), page.getByTestId('run-export-safetensors').first().click()]);
    const merged = decodeSafetensors(new Uint8Array(readFileSync((await policy.path())!)));
    expect(merged.metadata.adapter_merged).toBe('solver');
    solverFile = { name: download.suggestedFilename(), mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) };
    expect(errors).toEqual([]);
  });

  it('starts a new run from a downloaded adapter set, checked against the set-up in the worker', async (ctx) => {
    requireAdapter(ctx, lab);
    expect(solverFile).not.toBeNull();
    const upload = page.getByTestId('adapter-start-upload');
    await expect(page.getByTestId('adapter-start-what').textContent()).resolves.toBe('fresh adapters (proposer, solver)');
    const what = (text: string) => page.waitForFunction((t) => document.querySelector('[data-testid=adapter-start-what]')?.textContent === t, text, { timeout: 10_000 });
    await upload.setInputFiles(solverFile!);
    await what(`solver: ${solverFile!.name}`);
    // a file that is no adapter set: refused by name, the choice kept
    await upload.setInputFiles({ name: 'policy.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from('not a safetensors file') });
    await page.getByTestId('adapter-start-error').waitFor();
    await expect(page.getByTestId('adapter-start-error').textContent()).resolves.toMatch(/^policy\.safetensors: .*the adapters chosen before are kept$/);
    await what(`solver: ${solverFile!.name}`);
    // a set-up of another rank: the worker refuses the set, saying what to change
    await page.getByTestId('field-steps').locator('input').fill('1');
    await page.getByTestId('field-loraRank').locator('input').fill('4');
    await page.getByTestId('run-start').click();
    await page.waitForSelector('[data-testid=run-status][data-state=failed]', { timeout: 120_000 });
    await expect(page.getByTestId('run-error').textContent()).resolves.toMatch(/saved adapter "solver" has rank 8.*the run's set rank 4.*set the config's rank, α and targets to the saved ones/);
    // the same rank: the run starts from it and trains
    await page.getByTestId('field-loraRank').locator('input').fill('8');
    await page.getByTestId('run-start').click();
    await waitRunStatus(page, 'done', 1, 600_000);
    await expect(page.locator('[data-testid=run-item].selected').textContent()).resolves.toContain('from solver');
  });
});
