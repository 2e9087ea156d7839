// The page does no training work on its main thread, checked without a clock: the built page's
// main chunk (the script index.html loads, and every chunk it imports statically) holds no WGSL
// and no GPU compute calls, while the GPU worker's chunk does. The long-task figure of a run
// is printed by lab.test.ts and `npm run bench`, not asserted (durations depend on the machine).
// Run after `vite build` (npm run test:e2e builds first).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIST, ROOT } from './harness';

/** Text only the engine has: WGSL entry points, and the WebGPU calls that compile and dispatch. */
const ENGINE_MARKERS = ['@compute', 'createComputePipeline', 'dispatchWorkgroups', 'var<storage'];

const dist = path.join(ROOT, DIST);
const read = (rel: string): string => readFileSync(path.join(dist, rel), 'utf8');

/** The chunks loaded with the page: its entry script and everything it imports statically. */
function mainChunks(): Map<string, string> {
  const html = read('index.html');
  const entry = /<script[^>]*type="module"[^>]*src="\/?([^"]+)"/.exec(html)?.[1];
  if (!entry) throw new Error(`${DIST}/index.html loads no module script`);
  const chunks = new Map<string, string>();
  const visit = (rel: string): void => {
    if (chunks.has(rel)) return;
    const text = read(rel);
    chunks.set(rel, text);
    // static imports between chunks: `import … from "./x.js"` and `import "./x.js"`
    for (const m of text.matchAll(/\bimport\s*(?:[\w$*{}\s,]+from\s*)?["'`](\.\/[^"'`]+\.js)["'`]/g)) visit(path.posix.join(path.posix.dirname(rel), m[1]));
  };
  visit(entry);
  return chunks;
}

/** Chunks started as workers by the page (`new Worker(new URL("…", import.meta.url))` once built). */
function workerChunks(main: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of main.values()) {
    for (const m of text.matchAll(/["'`]\/?(assets\/[\w.-]*worker[\w.-]*\.js)["'`]/g)) out.set(m[1], read(m[1]));
  }
  return out;
}

describe('the page bundle', () => {
  it('keeps the engine out of the main thread: no WGSL or GPU dispatch in the page\'s chunks, all of it in the GPU worker', () => {
    expect(existsSync(path.join(dist, 'index.html')), `${DIST}/ is not built: run vite build first`).toBe(true);
    const main = mainChunks();
    expect(main.size).toBeGreaterThan(0);
    for (const [name, text] of main) {
      for (const marker of ENGINE_MARKERS) expect(text.includes(marker), `${name} (main thread) contains ${marker}`).toBe(false);
    }
    const workers = workerChunks(main);
    const gpuChunk = [...workers].filter(([name]) => name.includes('gpu.worker'));
    expect(gpuChunk.length, `worker chunks found: ${[...workers.keys()].join(', ')}`).toBe(1);
    // the markers are real: the GPU worker's chunk holds every one of them
    for (const marker of ENGINE_MARKERS) expect(gpuChunk[0][1].includes(marker), `GPU worker lacks ${marker}`).toBe(true);
  });

  it('loads onnxruntime-web only for the ORT check: a chunk of its own that the GPU worker imports dynamically', () => {
    const main = mainChunks();
    const gpuChunk = [...workerChunks(main)].find(([name]) => name.includes('gpu.worker'));
    expect(gpuChunk).toBeDefined();
    // ORT's API name: in no chunk a visit loads, neither the page's nor the GPU worker's
    for (const [name, text] of [...main, gpuChunk!]) expect(text.includes('InferenceSession'), `${name} holds onnxruntime-web`).toBe(false);
    const ort = /["'`]\.\/(ort_runtime-[\w-]+\.js)["'`]/.exec(gpuChunk![1])?.[1];
    expect(ort, 'the GPU worker names the ORT check\'s runtime chunk').toBeDefined();
    expect(read(`assets/${ort}`).includes('InferenceSession')).toBe(true);
  });

  it('ships no benchmark page: bench.html and its chunk are built only by `vite build --mode bench` (npm run bench, dist-bench/)', () => {
    expect(existsSync(path.join(dist, 'bench.html')), `${DIST}/bench.html exists`).toBe(false);
    // the sampling page's entry point (src/bench/sampling_page.ts) is in no shipped chunk
    const chunks = readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));
    expect(chunks.length).toBeGreaterThan(0);
    for (const f of chunks) expect(read(`assets/${f}`).includes('rlvrSamplingBench'), `${f} holds the bench page`).toBe(false);
  });
});
