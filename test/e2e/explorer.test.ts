// The ablation explorer in the built app (headless Chromium, WebGPU on SwiftShader): a grid of GRPO
// on the small base, 2 arms (lr 1e-4, 3e-5) × 2 seeds at tiny sizes, given by its address; the
// form says 4 runs before anything starts and refuses a bad value naming the arm and the field; a
// reload mid-grid resumes the queue without recomputing the finished run; every explorer chart
// draws both arms, the table has both rows with ± values (the grid paused mid-run, then reloaded); the sweep exported and imported again
// draws the same numbers; a sweep given by address (explore=gallery/…) opens read-only, drawn
// from the file with no training. Screenshots at 1440 and 390 px: test-artifacts/explorer-*.png.
// Run with `npx vite build && npx vitest run --project e2e test/e2e/explorer.test.ts`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, closeLab, gotoLab, openLab, requireAdapter, type Lab } from './harness';

/** The base set-up (the launcher's): 2 steps of 2 problems × 2 samples, a 4 × 4 evaluation at the start and the end, a checkpoint every step. */
const SETUP = 'seed=3&setup=lab&steps=2&problemsPerStep=2&groupSize=2&trainProblems=16&evalEvery=0&evalProblems=4&evalN=4&samplesPerStep=0&checkpointEvery=1';
const GRID = { knobs: [{ key: 'lr', values: '1e-4, 3e-5' }], seeds: '1, 2', control: null, concurrency: 1 };
const GRID_TIMEOUT_MS = 900_000;

const entry = (page: Page, key: string) => page.locator(`[data-testid=explorer-entry][data-key="${key}"]`);

/** Waits until the grid's entry `key` is in `state` (a failed or halted run fails at once). */
async function waitEntry(page: Page, key: string, state: string, timeout = GRID_TIMEOUT_MS): Promise<void> {
  const r = await page
    .waitForFunction(
      ([k, s]) => {
        const all = [...document.querySelectorAll('[data-testid=explorer-entry]')];
        const bad = all.find((e) => ['failed', 'halted', 'stopped'].includes(e.getAttribute('data-state') ?? ''));
        if (bad) return `${bad.getAttribute('data-key')} ${bad.getAttribute('data-state')}: ${bad.getAttribute('title')}`;
        return document.querySelector(`[data-testid=explorer-entry][data-key="${k}"]`)?.getAttribute('data-state') === s ? 'ok' : false;
      },
      [key, state] as const,
      { timeout, polling: 250 },
    )
    .then((h) => h.jsonValue(), (e: Error) => `timeout (${e.message.split('\n')[0]})`);
  if (r !== 'ok') throw new Error(`waiting for ${key} to be ${state}: ${r}; progress: ${await page.getByTestId('explorer-progress').textContent()}`);
}

/** Every explorer chart scrolled into view and drawn: its id, arms drawn and points. */
async function charts(page: Page): Promise<{ id: string; arms: number; points: number }[]> {
  // the metrics no loop view draws are folded away: opened, so that every chart is checked
  const more = page.locator('[data-testid=explorer-more-metrics]');
  if ((await more.count()) > 0 && (await more.getAttribute('open')) === null) await more.locator('summary').click();
  const ids = await page.locator('[data-testid^=explorer-chart-]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') as string));
  const out: { id: string; arms: number; points: number }[] = [];
  for (const id of ids) {
    const c = page.getByTestId(id);
    await c.scrollIntoViewIfNeeded();
    await page.waitForFunction((t) => {
      const el = document.querySelector(`[data-testid="${t}"]`);
      return el?.getAttribute('data-drawn') === 'true' && !el.hasAttribute('data-waiting');
    }, id, { timeout: 10_000 });
    out.push({ id, arms: Number(await c.getAttribute('data-arms')), points: Number(await c.getAttribute('data-points')) });
  }
  return out;
}

const tableText = (page: Page) => page.getByTestId('explorer-row').allTextContents();

async function shots(page: Page, name: string): Promise<void> {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    await page.getByTestId('explorer').screenshot({ path: path.join(ARTIFACTS, `explorer-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the ablation explorer (built app, headless Chromium)', () => {
  let lab: Lab, base: string, page: Page, errors: string[];
  beforeAll(async () => {
    lab = await openLab(`?${SETUP}&grid=${encodeURIComponent(JSON.stringify(GRID))}`);
    ({ base, page, errors } = lab);
  });
  afterAll(() => closeLab(lab));

  it('runs a 2 × 2 grid given by its address, resumes it after a reload mid-grid, and draws both arms everywhere', { timeout: GRID_TIMEOUT_MS + 120_000 }, async (ctx) => {
    requireAdapter(ctx, lab);
    const count = page.getByTestId('explorer-runs-count');
    await page.waitForFunction(() => document.querySelector('[data-testid=explorer-runs-count]')?.getAttribute('data-runs') === '4', null, { timeout: 20_000 });
    await expect(count.textContent()).resolves.toMatch(/^2 arms × 2 seeds = 4 runs, 1 at a time; /);

    // a bad value is refused naming the arm and the field; nothing starts
    const values = page.getByTestId('explorer-knob-values-0');
    await values.fill('1e-4, 0');
    const refusal = page.getByTestId('explorer-refusal');
    await refusal.waitFor({ timeout: 5_000 });
    expect(await refusal.getAttribute('data-field')).toBe('lr');
    await expect(refusal.textContent()).resolves.toMatch(/^arm lr 0 \(seed 1\): grpo\.lr = 0/);
    expect(await page.getByTestId('explorer-start').isDisabled()).toBe(true);
    await values.fill('1e-4, 3e-5');
    await refusal.waitFor({ state: 'detached', timeout: 5_000 });
    // the address keeps the grid
    expect(new URL(page.url()).searchParams.get('grid')).toBe(JSON.stringify(GRID));

    await page.waitForFunction(() => !document.querySelector('[data-testid=explorer-start]')?.hasAttribute('disabled'), null, { timeout: 30_000 });
    await page.getByTestId('explorer-start').click();
    await waitEntry(page, 'arm1/1', 'done');
    await waitEntry(page, 'arm2/1', 'running');
    const finished = await entry(page, 'arm1/1').getAttribute('data-run-id');
    const cut = await entry(page, 'arm2/1').getAttribute('data-run-id');
    // every run of the grid is an ordinary run of the run list
    await page.locator(`[data-testid=run-item][data-run-id="${finished}"]`).waitFor({ timeout: 5_000 });
    // paused mid-grid: arm 2's first seed pauses where it is, nothing new starts
    await page.getByTestId('explorer-pause').click();
    await page.locator(`[data-testid=run-item][data-run-id="${cut}"][data-state=paused]`).waitFor({ timeout: 120_000 });
    expect(await entry(page, 'arm1/2').getAttribute('data-state')).toBe('queued');
    await shots(page, 'running');

    // the reload cuts arm 2's first seed off; the grid comes back paused, its finished run as it was
    await page.reload();
    await page.waitForSelector('[data-testid=adapter-info]:not([data-status=idle]):not([data-status=detecting])', { timeout: 60_000 });
    await page.locator(`[data-testid=run-item][data-run-id="${cut}"][data-interrupted=true]`).waitFor({ state: 'attached', timeout: 20_000 }).catch(async (e) => {
      const items = await page.locator('[data-testid=run-item]').evaluateAll((els) => els.map((x) => `${x.getAttribute('data-run-id')} ${x.getAttribute('data-state')} ${x.getAttribute('data-interrupted')} ${x.textContent?.slice(0, 120)}`));
      const entries = await page.locator('[data-testid=explorer-entry]').evaluateAll((els) => els.map((x) => `${x.getAttribute('data-key')} ${x.getAttribute('data-state')} ${x.getAttribute('data-run-id')}`));
      throw new Error(`${(e as Error).message.split('\n')[0]}\nruns: ${items.join('\n')}\nentries: ${entries.join(', ')}`);
    });
    expect(await page.getByTestId('explorer-progress').getAttribute('data-paused')).toBe('true');
    expect(await entry(page, 'arm1/1').getAttribute('data-state')).toBe('done');
    expect(await entry(page, 'arm2/1').getAttribute('data-state')).toBe('running');
    await page.getByTestId('explorer-resume').click();
    await waitEntry(page, 'arm2/1', 'done');
    expect(await entry(page, 'arm1/1').getAttribute('data-run-id')).toBe(finished);
    expect(await entry(page, 'arm2/1').getAttribute('data-run-id')).toBe(cut);
    await page.waitForFunction(() => document.querySelector('[data-testid=explorer-progress]')?.getAttribute('data-ended') === '4', null, { timeout: GRID_TIMEOUT_MS, polling: 500 });
    // four runs in all: the finished one was not computed again, the cut-off one resumed under its id
    const ids = await page.locator('[data-testid=explorer-entry]').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));
    expect(new Set(ids).size).toBe(4);
    expect(await page.getByTestId('run-item').count()).toBe(4);

    const drawn = await charts(page);
    expect(drawn.map((c) => c.id)).toEqual(expect.arrayContaining(['explorer-chart-reward', 'explorer-chart-entropy', 'explorer-chart-passk', 'explorer-chart-majk']));
    for (const c of drawn) {
      expect(c.arms, c.id).toBe(2);
      expect(c.points, c.id).toBeGreaterThan(0);
    }
    const rows = await tableText(page);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r).toMatch(/n = 2 of 2.*±.*±/);
    await expect(page.getByTestId('explorer-legend').textContent()).resolves.toMatch(/lr 1e-4 n = 2 of 2.*lr 3e-5 n = 2 of 2.*1 standard error/);
    await shots(page, 'done');

    // export → import: the same numbers drawn from the file
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('explorer-export-json').click()]);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ format: 'rlvr-lab.sweep', arms: [{ id: 'arm1' }, { id: 'arm2' }] });
    const [cmds] = await Promise.all([page.waitForEvent('download'), page.getByTestId('explorer-export-commands').click()]);
    expect(readFileSync((await cmds.path())!, 'utf8')).toMatch(/npm run ablate -- --loop grpo --preset small --seeds 1,2 --steps 2 --eval-n 4 --eval-problems 4 --config arm2\.config\.json --json arm2\.json/);
    await page.getByTestId('explorer-import').setInputFiles({ name: 'grid.sweep.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForFunction(() => document.querySelector('[data-testid=explorer]')?.getAttribute('data-source') === 'file', null, { timeout: 10_000 });
    expect(await tableText(page)).toEqual(rows);
    expect(await charts(page)).toEqual(drawn);

    // a malformed file is refused with the field, and what is shown stays
    const bad = JSON.parse(text) as { arms: { ablation: { results: { seed: number }[] } }[] };
    bad.arms[1].ablation.results[0].seed = -1;
    await page.getByTestId('explorer-import').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await expect(page.getByTestId('explorer-import-error').textContent()).resolves.toMatch(/^bad\.json: arms\[1\]\.ablation\.results\[0\]\.seed: expected >=0, got -1$/);
    expect(await tableText(page)).toEqual(rows);

    // a sweep by address (a gallery entry): read-only, drawn from the file, nothing trains
    await page.route('**/gallery/explorer-test.json', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: text }));
    await gotoLab(page, `${base}?explore=gallery/explorer-test.json`);
    await page.getByTestId('explorer-file').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('explorer-file').getAttribute('data-gallery')).toBe('gallery/explorer-test.json');
    expect(await tableText(page)).toEqual(rows);
    expect(await charts(page)).toEqual(drawn);
    expect(await page.getByTestId('explorer-run-live').isVisible()).toBe(true);
    await shots(page, 'gallery');
    expect(errors).toEqual([]);
  });
});
