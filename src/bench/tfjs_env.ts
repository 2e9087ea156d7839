// TF.js 4.22 with its WebGPU backend in Node, as the benchmark's anchor (see NOTES.md, "The
// TF.js anchor"). Three things the browser gives TF.js have to be supplied by hand:
//  - `navigator.gpu`, read once when the backend module loads (so set it before importing);
//  - the gradient registry: the Node build of tfjs-core registers no gradients and the ESM
//    file that does (`dist/register_all_gradients.js`) uses directory imports Node cannot
//    resolve, so it is bundled here with esbuild (a dependency of tsx) into one CommonJS file.
//    Registries and the engine live on a global namespace, so that copy fills the same
//    registry the Node build reads;
//  - `dataSync` needs OffscreenCanvas: callers use `await data()`.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as TF from '@tensorflow/tfjs-core';

export type Tfjs = typeof TF;

export interface TfjsWebGpu {
  tf: Tfjs;
  /** The adapter TF.js runs on, as `adapter.info.device || description` (compare with Gpu.adapterName). */
  adapterName: string;
  /** TF.js's own GPUDevice (a second device on the same adapter as ours). */
  device: GPUDevice;
}

const require = createRequire(import.meta.url);
// Dawn frees a device whose GPU instance is garbage-collected: keep ours alive.
let instance: GPU | null = null;

async function registerGradients(): Promise<void> {
  const esbuild = await import('esbuild');
  const entry = require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const out = await esbuild.build({ entryPoints: [entry], bundle: true, format: 'cjs', platform: 'node', write: false, logLevel: 'silent' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rlvr-bench-'));
  try {
    const file = path.join(dir, 'tfjs_gradients.cjs');
    writeFileSync(file, out.outputFiles[0].text);
    require(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Loads TF.js on a new Dawn instance (after `createNodeGpu()` chose the driver, so the same
 * Vulkan ICD is visible) and checks that it picked the adapter named `expectAdapter`.
 */
export async function loadTfjsWebGpu(expectAdapter: string): Promise<TfjsWebGpu> {
  const dawn = await import('webgpu');
  instance = dawn.create([]);
  // Node 20 has no navigator; a later Node defines a read-only one, hence defineProperty.
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: instance }, configurable: true, writable: true });
  const tf = (await import('@tensorflow/tfjs-core')) as Tfjs;
  await import('@tensorflow/tfjs-backend-webgpu');
  await registerGradients();
  if (!(await tf.setBackend('webgpu'))) throw new Error('TF.js could not initialise its WebGPU backend');
  await tf.ready();
  const device = (tf.backend() as unknown as { device: GPUDevice }).device;
  const info = device.adapterInfo;
  if (!info) throw new Error('TF.js\'s GPUDevice has no adapterInfo: cannot check that it runs on the same adapter as ours');
  const adapterName = info.device || info.description || info.vendor;
  if (adapterName !== expectAdapter) {
    throw new Error(`TF.js chose adapter '${adapterName}', ours is '${expectAdapter}': the comparison would not be on the same adapter`);
  }
  return { tf, adapterName, device };
}
