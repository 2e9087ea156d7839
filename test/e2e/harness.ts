// Shared by the browser tests: the built app served by `vite preview`, headless Chromium with
// WebGPU on SwiftShader, and pages that collect their console errors (worker's included).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestContext } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const CHROMIUM = '/usr/bin/chromium';
/** The build to serve: `dist/` unless RLVR_DIST names another (parallel builds of one tree). */
export const DIST = process.env.RLVR_DIST ?? 'dist';
// Enough for a WebGPU adapter on a machine without a GPU (Chromium's SwiftShader adapter);
// the last flag only speeds SwiftShader's shader compiles (see src/gpu/node.ts).
export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension',
];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function startPreview(port: number): Promise<ChildProcess> {
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'preview', '--outDir', DIST, '--port', String(port), '--strictPort', '--host', '127.0.0.1'];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited (${child.exitCode}):\n${log}`);
    const ok = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error(`vite preview did not answer on port ${port} within 30 s:\n${log}`);
}

export async function stopPreview(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Watches a page's console errors and uncaught exceptions, its workers' included. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(`worker console: ${m.text()}`)));
  return errors;
}

/** Navigates and waits until the worker has looked for an adapter. */
export async function gotoLab(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('[data-testid=adapter-info]:not([data-status=idle]):not([data-status=detecting])', { timeout: 60_000 });
}

export async function newPage(browser: Browser): Promise<Page> {
  return browser.newPage({ viewport: { width: 1280, height: 900 } });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Chromium without WebGPU (CPU mode's tests): no unsafe-WebGPU flag and no GPU process. */
export const CHROMIUM_ARGS_NO_WEBGPU = [...CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu'), '--disable-gpu'];

/**
 * Checks the build and the browser, then starts `vite preview` on a free port and Chromium (with
 * WebGPU on SwiftShader unless `webgpu: false`).
 */
export async function startLab(opts: { webgpu?: boolean } = {}): Promise<{ server: ChildProcess; browser: Browser; base: string }> {
  if (!existsSync(path.join(ROOT, DIST, 'index.html'))) throw new Error(`no build in ${DIST}/: run \`npm run test:e2e\`, which builds first`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium package`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  const server = await startPreview(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: opts.webgpu === false ? CHROMIUM_ARGS_NO_WEBGPU : CHROMIUM_ARGS });
  return { server, browser, base: `http://127.0.0.1:${port}/` };
}

/** A started lab: the preview server, the browser, and one page opened on it. */
export interface Lab {
  server: ChildProcess;
  browser: Browser;
  base: string;
  page: Page;
  /** the page's console errors and uncaught exceptions, its workers' included */
  errors: string[];
  /** the adapter panel's data-status once the worker has looked for an adapter */
  adapterStatus: string | null;
}

/** A new page that collects its console errors, navigated to `url` (see gotoLab). */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await newPage(browser);
  const errors = collectErrors(page);
  await gotoLab(page, url);
  return { page, errors };
}

/**
 * Starts the lab (startLab) and opens a page on `${base}${query}`; what a file's beforeAll does.
 * If the page does not open, the browser and server are closed again before the error is thrown.
 */
export async function openLab(query: string, opts: { webgpu?: boolean } = {}): Promise<Lab> {
  const { server, browser, base } = await startLab(opts);
  try {
    const { page, errors } = await openPage(browser, `${base}${query}`);
    const adapterStatus = await page.getAttribute('[data-testid=adapter-info]', 'data-status');
    return { server, browser, base, page, errors, adapterStatus };
  } catch (e) {
    await closeLab({ server, browser });
    throw e;
  }
}

/** Closes what openLab started (nothing if it failed). */
export async function closeLab(lab: Pick<Lab, 'server' | 'browser'> | undefined): Promise<void> {
  await lab?.browser.close();
  await stopPreview(lab?.server ?? null);
}

/** Without an adapter the GPU checks cannot run: a failure on CI, a visible skip elsewhere. */
export function requireAdapter(ctx: TestContext, lab: Pick<Lab, 'adapterStatus'>): void {
  const status = lab.adapterStatus;
  if (status === 'ready') return;
  if (process.env.CI === 'true') throw new Error(`no WebGPU adapter in Chromium (adapter panel status: ${status})`);
  ctx.skip(`no WebGPU adapter in this Chromium (status ${status}); CI=true makes this a failure`);
}

/** How many points a chart draws (its data-points). */
export async function points(page: Page, id: string): Promise<number> {
  return Number(await page.getByTestId(`chart-${id}`).getAttribute('data-points'));
}

/** Charts draw new data one per task (src/ui/charts/stagger.ts): waits until none is waiting for its turn. */
export async function chartsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('[data-waiting]'), null, { timeout: 20_000, polling: 50 });
}

/**
 * Waits until the selected run's status is `state` at exactly `step`; a run error fails at once
 * (not that of a run shown with its restore hint: an interrupted run until Resume takes effect),
 * and either failure throws with the status text.
 */
export async function waitRunStatus(page: Page, state: string, step: number, timeoutMs: number, polling = 100): Promise<void> {
  const ok = await page
    .waitForFunction(
      ([state, step]) => {
        const el = document.querySelector('[data-testid=run-status]');
        if (document.querySelector('[data-testid=run-error]') && !document.querySelector('[data-testid=run-restore-hint]')) return 'error';
        return el?.getAttribute('data-state') === state && el.getAttribute('data-step') === String(step) ? 'ok' : false;
      },
      [state, step] as const,
      { timeout: timeoutMs, polling },
    )
    .then((h) => h.jsonValue(), () => 'timeout');
  if (ok !== 'ok') {
    const status = await page.getByTestId('run-status').textContent();
    throw new Error(`waiting for ${state} at step ${step}: ${ok}; status: ${status}`);
  }
}

/** Drops the errors a lost GPU device logs on its own (expected after a device-loss test). */
export function dropDeviceLossErrors(errors: string[]): void {
  errors.splice(0, errors.length, ...errors.filter((e) => !/device|lost|destroyed/i.test(e)));
}

/** The pids of this test process's descendants whose command line contains `marker`. */
function descendantsWith(marker: string): number[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // the process ended while we looked
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...cmd].filter(([pid, c]) => c.includes(marker) && mine(pid)).map(([pid]) => pid);
}

/**
 * Gives Chromium's GPU process (where SwiftShader runs WebGPU on the CPU) the lowest CPU priority,
 * every thread of it. On a machine with a GPU the kernels run on the GPU and leave the cores to
 * the page; here SwiftShader takes them, and a main-thread measurement would time its waiting
 * for a core, not the page's work. Threads started later inherit the priority of their creator.
 * Linux only (it reads /proc); throws when there is no GPU process to lower.
 */
export function lowerGpuProcessPriority(): number {
  const pids = descendantsWith('--type=gpu-process');
  if (pids.length === 0) throw new Error('lowerGpuProcessPriority: no Chromium GPU process under this test process');
  let threads = 0;
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        setPriority(Number(tid), 19);
        threads++;
      } catch (e) {
        // the thread ended while we looked; anything else is a real failure
        if ((e as { info?: { code?: string } }).info?.code !== 'ESRCH') throw e;
      }
    }
  }
  return threads;
}
