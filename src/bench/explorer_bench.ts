// The explorer drawing a big grid, measured in headless Chromium on the built app (issue 26 §6):
// `?explore=synthetic` shows a synthetic sweep of 48 runs (12 arms × 4 seeds) × 300 steps × 20
// metrics (src/explore/synthetic.ts). Time to first draw: navigation start to the first explorer
// chart drawn (its `explorer-first-draw` mark); then every chart is scrolled into view, so each
// draws as it would for a reader; the longest main-thread task over both (the Long Tasks API,
// from before the page's first script). Figures, never a test bound. The goal (issue 26): first
// draw under 1 s, no task over 100 ms on this machine.
//   npx tsx src/bench/explorer_bench.ts   (after `npx vite build --mode bench`; also part of `npm run bench`)
import { withBuiltPage } from './browser';
import { LONG_TASK_MS } from './page_bench';

export interface ExplorerBenchResult {
  runs: number;
  steps: number;
  metrics: number;
  charts: number;
  firstDrawMs: number;
  /** navigation start to every chart drawn, scrolled through one by one */
  allDrawnMs: number;
  longestTaskMs: number;
  tasksOver50: number;
}

export async function benchExplorer(log: (s: string) => void): Promise<ExplorerBenchResult> {
  return withBuiltPage('index.html', 'index.html', async (page) => {
    await page.addInitScript(() => {
      const w = window as unknown as { longTasks: number[] };
      w.longTasks = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: 'longtask', buffered: true });
    });
    log('explorer: a synthetic grid of 48 runs × 300 steps × 20 metrics in headless Chromium');
    await page.goto(page.url().replace(/\/index\.html.*$|\/?$/, '/?explore=synthetic'));
    await page.waitForFunction(() => performance.getEntriesByName('explorer-first-draw').length > 0, null, { timeout: 60_000, polling: 50 });
    const firstDrawMs = await page.evaluate(() => performance.getEntriesByName('explorer-first-draw')[0].startTime);
    // the metrics no loop view draws are folded away: opened, so every one of the 20 is drawn
    await page.locator('[data-testid=explorer-more-metrics] summary').click();
    const ids = await page.locator('[data-testid^=explorer-chart-]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') as string));
    for (const id of ids) {
      await page.getByTestId(id).scrollIntoViewIfNeeded();
      await page.waitForFunction((t) => {
        const el = document.querySelector(`[data-testid="${t}"]`);
        return el?.getAttribute('data-drawn') === 'true' && !el.hasAttribute('data-waiting');
      }, id, { timeout: 20_000, polling: 20 });
    }
    const allDrawnMs = await page.evaluate(() => performance.now());
    const tasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
    return { runs: 48, steps: 300, metrics: 20, charts: ids.length, firstDrawMs, allDrawnMs, longestTaskMs: Math.max(0, ...tasks), tasksOver50: tasks.filter((t) => t > LONG_TASK_MS).length };
  });
}

export function explorerSection(r: ExplorerBenchResult | null): string {
  if (!r) return 'Explorer drawing a big grid: not measured (--skip-page)';
  return [
    `Explorer drawing a synthetic grid of ${r.runs} runs × ${r.steps} steps × ${r.metrics} metrics (${r.charts} charts; headless Chromium; figures, not bounds; goal: first draw < 1 s, no task > 100 ms)`,
    `  time to first draw (navigation start to the first chart drawn): ${r.firstDrawMs.toFixed(0)} ms`,
    `  every chart drawn, scrolled through: ${r.allDrawnMs.toFixed(0)} ms`,
    `  longest main-thread task: ${r.longestTaskMs.toFixed(0)} ms; tasks over ${LONG_TASK_MS} ms: ${r.tasksOver50}`,
  ].join('\n');
}

// run alone: npx tsx src/bench/explorer_bench.ts
if (import.meta.url === `file://${process.argv[1]}`) {
  benchExplorer((s) => process.stderr.write(`${s}\n`)).then((r) => process.stdout.write(`${explorerSection(r)}\n${JSON.stringify(r)}\n`), (e: Error) => {
    process.stderr.write(`${e.stack ?? e.message}\n`);
    process.exitCode = 1;
  });
}
