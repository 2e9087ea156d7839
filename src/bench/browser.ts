// Headless Chromium on the built app, for the browser tests (test/e2e/harness.ts) and the
// benchmark's page measurements (src/bench/page_bench.ts): `vite preview` on a free port, Chromium
// with WebGPU on SwiftShader (never a downloaded browser), and the GPU process's priority. Node only.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';
/** The build to serve: `dist/` unless RLVR_DIST names another (parallel builds of one tree). */
export const DIST = process.env.RLVR_DIST ?? 'dist';
/**
 * The benchmark's build: the app plus the sampling page bench.html, which dist/ does not ship
 * (`vite build --mode bench` writes it, vite.config.ts; npm run bench builds it first).
 */
export const BENCH_DIST = 'dist-bench';
// Enough for a WebGPU adapter on a machine without a GPU (Chromium's SwiftShader adapter);
// the last flag only speeds SwiftShader's shader compiles (see src/gpu/node.ts).
export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension',
];

/** Chromium without WebGPU (CPU mode's tests, drawing a file): no unsafe-WebGPU flag and no GPU process. */
export const CHROMIUM_ARGS_NO_WEBGPU = [...CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu'), '--disable-gpu'];

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

/**
 * Serves the build with `vite preview`. `isolated` adds the COOP/COEP headers that make the page
 * cross-origin isolated (vite.config.ts reads RLVR_PREVIEW_ISOLATED), which onnxruntime-web's wasm
 * backend needs for its worker threads.
 */
export async function startPreview(port: number, opts: { isolated?: boolean; dist?: string } = {}): Promise<ChildProcess> {
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'preview', '--outDir', opts.dist ?? DIST, '--port', String(port), '--strictPort', '--host', '127.0.0.1'];
  const env = { ...process.env, RLVR_PREVIEW_ISOLATED: opts.isolated ? '1' : '' };
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The pids of this process's descendants whose command line contains `marker`. */
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

/**
 * Serves the benchmark's build (BENCH_DIST) and opens headless Chromium on it for `f` (the page at
 * `pathAndQuery`), then closes both, also when `f` throws. Checks the build page and the browser first.
 */
export async function withBuiltPage<T>(
  pathAndQuery: string, buildFile: string, f: (page: import('playwright-core').Page) => Promise<T>, opts: { isolated?: boolean } = {},
): Promise<T> {
  if (!existsSync(path.join(ROOT, BENCH_DIST, buildFile))) throw new Error(`no ${buildFile} in ${BENCH_DIST}/: run \`vite build --mode bench\` first (npm run bench does)`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium package`);
  const { chromium } = await import('playwright-core');
  const port = await freePort();
  const server = await startPreview(port, { ...opts, dist: BENCH_DIST });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/${pathAndQuery}`);
    return await f(page);
  } finally {
    await browser.close();
    await stopPreview(server);
  }
}
