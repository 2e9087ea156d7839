// The page's main thread while a run trains, measured in headless Chromium on the built app: how
// long its longest task took and how many tasks took over 50 ms (the Long Tasks API), from
// Start to the run's end. A figure, never a test bound (durations depend on the machine). The
// GPU process, where SwiftShader runs the kernels on the CPU, gets the lowest priority, so the
// figure times the page's own work as on a machine with a GPU.
import { lowerGpuProcessPriority, withBuiltPage } from './browser';

/** Tasks longer than this count as long (the W3C Long Tasks threshold). */
export const LONG_TASK_MS = 50;

/** A GRPO run of the tiny policy small enough for SwiftShader, with an evaluation every step. */
export const PAGE_RUN = 'policy=tiny&seed=3&steps=3&problemsPerStep=2&groupSize=4&maxNewTokens=16&trainProblems=16&evalEvery=1&evalProblems=4&evalN=4&samplesPerStep=3';

export interface PageResult {
  adapter: string;
  runSeconds: number;
  longTasks: number;
  longestTaskMs: number;
  tasksOver50: number;
}

export async function benchPage(log: (s: string) => void): Promise<PageResult> {
  return withBuiltPage(`?${PAGE_RUN}`, 'index.html', async (page) => {
    await page.waitForSelector('[data-testid=adapter-info][data-status=ready]', { timeout: 60_000 });
    const adapter = ((await page.getByTestId('adapter-name').textContent()) ?? '').trim();
    await page.evaluate(() => {
      const w = window as unknown as { longTasks: number[] };
      w.longTasks = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: 'longtask' });
    });
    lowerGpuProcessPriority();
    log('page: a 3-step GRPO run of tiny in headless Chromium');
    const t0 = performance.now();
    await page.getByTestId('run-start').click();
    await page.waitForSelector('[data-testid=run-status][data-state=done]', { timeout: 600_000 });
    const runSeconds = (performance.now() - t0) / 1000;
    // the last batch's charts draw after the status says done: let them
    await page.waitForFunction(() => !document.querySelector('[data-waiting]'), null, { timeout: 20_000, polling: 50 });
    const tasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
    return { adapter, runSeconds, longTasks: tasks.length, longestTaskMs: Math.max(0, ...tasks), tasksOver50: tasks.filter((t) => t > LONG_TASK_MS).length };
  });
}
