// An uploaded corpus and long addresses in the page (built app, headless Chromium; issue 30 §1):
// a 20 KB corpus is kept in the browser and named in the address (`corpus=upload:<hash>`), so a
// reload keeps it; a file over 16 MB is refused by its size; another browser opening that address is told it holds no such corpus; a
// parameter past a link's cap is ignored with a warning; and `npm start`'s own server answers an
// address over Node's 16 KB limit (a 100 KB target=) with a page that says why, not a bare 431.
import type { Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../scripts/start.mjs';
import { closeLab, gotoLab, openLab, openPage, ROOT, shot, type Lab } from './harness';
import { freePort } from '../../src/bench/browser';

const LINES = 1500;
const CORPUS = Array.from({ length: LINES }, (_, i) => `a=${i % 300};b=a+${i % 7};c=b*3`).join('\n');

describe('an uploaded corpus named in the address', () => {
  let lab: Lab, page: Page;
  beforeAll(async () => {
    ({ page } = lab = await openLab('?loop=spice'));
  });
  afterAll(() => closeLab(lab));

  it('is named, not carried, and a reload keeps it', async () => {
    expect(CORPUS.length).toBeGreaterThan(20_000);
    await page.getByTestId('corpus-upload').setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.from(CORPUS) });
    await page.waitForSelector('[data-testid=corpus-input][data-corpus=file]', { state: 'attached' });
    await page.waitForFunction(() => location.search.includes('corpus=upload'));
    const url = new URL(page.url());
    expect(url.searchParams.get('corpus')).toMatch(/^upload:[0-9a-f]{16}$/);
    expect(url.search.length).toBeLessThan(200);

    await gotoLab(page, url.href);
    await page.waitForSelector('[data-testid=corpus-input][data-corpus=file]', { state: 'attached' });
    await expect(page.getByTestId('corpus-what').textContent()).resolves.toBe(`big.txt: ${LINES} documents (first: a=0;b=a+0;c=b*3)`);
    await expect(page.getByTestId('corpus-input').getAttribute('data-documents')).resolves.toBe(String(LINES));
    expect(await page.getByTestId('launcher-warnings').count()).toBe(0);
    expect(await page.getByTestId('launcher-error').count()).toBe(0);
    expect(page.url()).toBe(url.href);
    await shot(page, 'corpus-link-reloaded');
  });

  it('a file over 16 MB is refused by its size, before it is read, and the corpus in use stays', async () => {
    await page.getByTestId('corpus-upload').setInputFiles({ name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(17_000_000, 'a=1;b=a+1\n') });
    await page.getByTestId('corpus-error').waitFor({ state: 'attached' });
    await expect(page.getByTestId('corpus-error').textContent()).resolves.toBe('huge.txt is 17 MB; a corpus file is at most 16 MB; the corpus in use is unchanged');
    await expect(page.getByTestId('corpus-input').getAttribute('data-documents')).resolves.toBe(String(LINES));
  });

  it('in another browser (its own storage), says it holds no such corpus and uses the generated one', async () => {
    const url = page.url();
    const other = await openPage(lab.browser, url);
    try {
      await other.page.getByTestId('launcher-warnings').waitFor({ state: 'attached' });
      await expect(other.page.getByTestId('launcher-warnings').textContent()).resolves.toMatch(/corpus=upload:[0-9a-f]{16}: this browser holds no uploaded corpus of that name/);
      await expect(other.page.getByTestId('corpus-input').getAttribute('data-corpus')).resolves.toBe('generated');
    } finally {
      await other.page.context().close();
    }
  });

  it('a parameter past a link\'s 2,000 characters is ignored with a warning', async () => {
    const other = await openPage(lab.browser, `${lab.base}?loop=ttsp&target=${'1%2B'.repeat(3000)}1`);
    try {
      await other.page.getByTestId('launcher-warnings').waitFor({ state: 'attached' });
      await expect(other.page.getByTestId('launcher-warnings').textContent()).resolves.toMatch(/target: its value is 6001 characters, more than a link's 2000; ignored/);
    } finally {
      await other.page.context().close();
    }
  });

  it('npm start answers a 100 KB target= with a page that says why', async () => {
    const server: PreviewServer = await serve({ root: ROOT, port: await freePort(), configFile: false });
    const other = await lab.browser.newPage();
    try {
      const base = server.resolvedUrls?.local[0] ?? '';
      const res = await other.goto(`${base}?loop=ttsp&target=${'1%2B'.repeat(25_000)}1`);
      expect(res?.status()).toBe(414);
      await expect(other.locator('h1').textContent()).resolves.toBe('This address is too long for the lab');
      await other.getByText('Open the lab without these settings').click();
      await other.waitForSelector('[data-testid=adapter-info]', { timeout: 60_000 });
      expect(new URL(other.url()).search).toBe('');
    } finally {
      await other.context().close();
      await server.close();
    }
  });
});
