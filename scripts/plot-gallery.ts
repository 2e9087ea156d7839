// The PNG plots of docs/results.md: a gallery entry opened in the explorer (the built app, headless
// Chromium, nothing trained) and photographed from its legend to its held-out charts, the results
// table left out: pass@k by k at the start and the end, then held-out pass@1, pass@K and entropy over
// training, each arm's mean over seeds with a band of ± 1 standard error.
//   npx vite build && npx tsx scripts/build-gallery.ts && npx tsx scripts/plot-gallery.ts grpo-failure [more ids] [--x tokens] [--metrics a,b]
// writes docs/img/<id>.png (with --metrics, those step metrics' charts instead of the held-out ones,
// into docs/img/<id>-<metrics>.png); with --x tokens (or time) the curves are drawn against generated tokens
// (or compute time), as the explorer's x-axis menu draws them, into docs/img/<id>-tokens.png (or
// -time.png). The entries are read from public/gallery (copied over the build's, so a rebuilt gallery
// needs no rebuilt app).
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { scriptArgs } from './args';
import { CHROMIUM, CHROMIUM_ARGS_NO_WEBGPU, DIST, ROOT, freePort, startPreview, stopPreview } from '../src/bench/browser';

const USAGE = 'usage: npx tsx scripts/plot-gallery.ts <gallery id> [more ids] [--x step|tokens|time] [--metrics target/mean,…]  (ids: public/gallery/index.json)';
const { flags, positionals: ids } = scriptArgs({
  x: { type: 'string', default: 'step', help: 'the curves\' x-axis: step, tokens or time' },
  // those step metrics' charts instead of the held-out ones (runs evaluated only at their start and
  // end, as TTSP's: its target curve is a step metric)
  metrics: { type: 'string', default: '', help: 'step metrics to photograph instead of the held-out charts, comma-separated' },
}, USAGE);
const xMode = flags.x;
if (!['step', 'tokens', 'time'].includes(xMode)) throw new Error(`--x ${xMode}: give step, tokens or time`);
const metrics = flags.metrics ? flags.metrics.split(',').filter(Boolean) : undefined;
if (ids.length === 0) throw new Error(USAGE);
for (const id of ids) if (!existsSync(path.join(ROOT, 'public', 'gallery', `${id}.json`))) throw new Error(`public/gallery/${id}.json not found: run npx tsx scripts/build-gallery.ts, or see public/gallery/index.json for the ids`);
if (!existsSync(path.join(ROOT, DIST, 'index.html'))) throw new Error(`no build in ${DIST}/: run npx vite build first`);
cpSync(path.join(ROOT, 'public', 'gallery'), path.join(ROOT, DIST, 'gallery'), { recursive: true });
const out = path.join(ROOT, 'docs', 'img');
mkdirSync(out, { recursive: true });

/** The charts photographed: pass@k by k and the held-out charts over training, or the named step metrics' (their ids as draw.ts makes them). */
const metricIds = metrics?.map((k) => `explorer-chart-${k.replace(/[^\w-]+/g, '-')}`);
const CHARTS = metricIds ? metricIds.map((t) => `[data-testid=${t}]`).join(', ') : '[data-testid=explorer-heldout] [data-testid^=explorer-chart-], [data-testid=explorer-chart-passk]';

const port = await freePort();
const server = await startPreview(port);
// no WebGPU needed to draw a file: Chromium without the GPU process
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS_NO_WEBGPU });
try {
  for (const id of ids) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(`http://127.0.0.1:${port}/?explore=gallery/${id}.json`);
    await page.getByTestId('explorer-file').waitFor({ timeout: 30_000 });
    const wanted = metricIds ?? ['explorer-chart-passk', 'explorer-heldout'];
    for (const t of wanted) if ((await page.getByTestId(t).count()) === 0) throw new Error(`${id}: no ${t} chart${metricIds ? ' (no such step metric in its runs)' : ' (the entry\'s runs evaluated only at the start and the end: name step metrics with --metrics)'}`);
    // the results table is wider than the page (it scrolls sideways there) and results.md prints its
    // numbers: the plot leaves it and its heading out rather than cut it at the right edge
    await page.locator('.explorer-table-wrap').evaluate((wrap) => {
      const heading = wrap.previousElementSibling;
      if (!(heading instanceof HTMLElement) || !/results at the end/i.test(heading.textContent ?? '')) throw new Error('plot-gallery: the results table is no longer after its "Results at the end" heading');
      heading.style.display = 'none';
      (wrap as HTMLElement).style.display = 'none';
    });
    if (metricIds) {
      // only the named charts: the others, the section headings and a closed "more metrics" list
      // hidden (one opened where a named chart is in it), so the crop holds the legend and those
      await page.evaluate((keep) => {
        for (const d of document.querySelectorAll<HTMLDetailsElement>('[data-testid=explorer-more-metrics]')) {
          if (keep.some((t) => d.querySelector(`[data-testid="${t}"]`))) d.open = true;
          else d.style.display = 'none';
        }
        for (const f of document.querySelectorAll<HTMLElement>('figure.explorer-chart')) if (!keep.includes(f.dataset.testid ?? '')) f.style.display = 'none';
        for (const h of document.querySelectorAll<HTMLElement>('h3.explorer-h')) h.style.display = 'none';
      }, metricIds);
    }
    // always chosen: an entry may open on another axis (its xAxis)
    await page.getByTestId('explorer-xaxis').selectOption(xMode);
    // charts draw once scrolled near the viewport: each scrolled to, then all waited for
    for (const c of await page.locator(CHARTS).all()) await c.scrollIntoViewIfNeeded();
    await page.waitForFunction((sel) => {
      const els = [...document.querySelectorAll(sel)];
      return els.length > 0 && els.every((el) => el.getAttribute('data-drawn') === 'true' && !el.hasAttribute('data-waiting'));
    }, CHARTS, { timeout: 30_000 });
    const boxes = await Promise.all(['explorer-legend', ...wanted].map((t) => page.getByTestId(t).first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height };
    })));
    const x = Math.min(...boxes.map((b) => b.x)) - 8;
    const y = Math.min(...boxes.map((b) => b.y)) - 8;
    const right = Math.max(...boxes.map((b) => b.x + b.w)) + 8;
    const bottom = Math.max(...boxes.map((b) => b.y + b.h)) + 8;
    const file = path.join(out, `${id}${metrics ? `-${metrics.map((k) => k.replace(/[^\w-]+/g, '-')).join('-')}` : ''}${xMode === 'step' ? '' : `-${xMode}`}.png`);
    await page.screenshot({ path: file, fullPage: true, clip: { x: Math.max(0, x), y: Math.max(0, y), width: right - x, height: bottom - y } });
    console.log(`wrote ${path.relative(ROOT, file)}`);
    await page.close();
  }
} finally {
  await browser.close();
  await stopPreview(server);
}
