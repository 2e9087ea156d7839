// The introduction a newcomer sees first (built app, headless Chromium, no GPU needed): a worked
// example computed by the world's solver, set-ups that each show one thing as links that set the
// launcher, and a Hide that lasts across reloads until "What is this?" brings it back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { ARTIFACTS, closeLab, gotoLab, openLab, type Lab } from './harness';

describe('the introduction (built app, headless Chromium)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab('', { webgpu: false });
  });
  afterAll(() => closeLab(lab));

  it('explains the task with a worked example and offers set-ups that set the launcher', async () => {
    const { page, base } = lab;
    const intro = page.getByTestId('intro');
    await intro.waitFor();
    await expect(page.getByTestId('intro-example').textContent()).resolves.toBe('max(7,2)=7;7*3=21;21+4=25;#25');
    const links = page.getByTestId('intro-outcome');
    expect(await links.allTextContents()).toEqual(['Quick demo', 'See entropy fall', 'Watch pass@k narrow']);
    await intro.screenshot({ path: path.join(ARTIFACTS, 'intro.png') });
    await links.first().click();
    await page.waitForURL(/\?setup=lab$/);
    await expect(page.getByTestId('launcher-setup').inputValue()).resolves.toBe('lab');
    // the start bar above the fold shows the same set-up, with Start
    await expect(page.getByTestId('startbar-setup').inputValue()).resolves.toBe('lab');
    const start = (await page.getByTestId('startbar-start').boundingBox())!;
    expect(start.y + start.height).toBeLessThan(900);
    await page.getByTestId('startbar-setup').selectOption('paper');
    await expect(page.getByTestId('launcher-setup').inputValue()).resolves.toBe('paper');
    await gotoLab(page, `${base}?steps=60&evalEvery=20`);
    await links.nth(2).click();
    await page.waitForURL(/seed=1/);
    await expect(page.getByTestId('field-evalN').locator('input').inputValue()).resolves.toBe('64');
  });

  it('hides on request, stays hidden after a reload, and comes back from the masthead', async () => {
    const { page, base } = lab;
    await page.getByTestId('intro-close').click();
    expect(await page.getByTestId('intro').count()).toBe(0);
    await gotoLab(page, base);
    await page.getByTestId('intro-open').waitFor();
    expect(await page.getByTestId('intro').count()).toBe(0);
    await page.getByTestId('intro-open').click();
    await page.getByTestId('intro').waitFor();
    expect(await page.getByTestId('intro-open').count()).toBe(0);
  });
});
