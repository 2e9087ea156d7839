// Node entry to WebGPU through Dawn (npm `webgpu`). On a machine without a GPU driver we fall
// back, loudly, to the SwiftShader Vulkan driver that Debian's `chromium` package ships.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createGpuFromAdapter } from './device';
import { GpuUnavailableError, type Gpu } from './runtime';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const SHADER_DIR = fileURLToPath(new URL('../../shaders/', import.meta.url));

/** Every WGSL file of shaders/, by file name. */
export function loadShaderSourcesNode(dir = SHADER_DIR): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir)) if (f.endsWith('.wgsl')) out[f] = readFileSync(path.join(dir, f), 'utf8');
  return out;
}

let dawn: typeof import('webgpu') | null = null;
// Dawn frees a device whose GPU instance is garbage-collected ("Owner died"): keep them alive.
const instances: GPU[] = [];

// Dawn zero-fills workgroup memory itself instead of through the Vulkan extension: same WGSL
// semantics, but SwiftShader compiles the extension's fill at ~0.2 ms per byte (seconds per kernel).
const DAWN_FLAGS = ['disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension'];

function newInstance(): GPU {
  const gpu = dawn!.create(DAWN_FLAGS);
  instances.push(gpu);
  return gpu;
}

async function requestAdapterNode(): Promise<GPUAdapter | null> {
  dawn ??= await import('webgpu');
  Object.assign(globalThis, dawn.globals);
  let adapter = await newInstance().requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter && !process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) {
    process.stderr.write(`rlvr-lab: no GPU adapter found; using the SwiftShader CPU driver (${SWIFTSHADER_ICD})\n`);
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    adapter = await newInstance().requestAdapter();
  }
  return adapter;
}

/** A Gpu on Node, or a GpuUnavailableError that says why there is none. */
export async function createNodeGpu(): Promise<Gpu> {
  const adapter = await requestAdapterNode();
  if (!adapter) {
    throw new GpuUnavailableError(
      'no WebGPU adapter: install a Vulkan driver, or Debian\'s chromium and libvulkan1 packages for the SwiftShader CPU driver ' +
        `(${SWIFTSHADER_ICD}), or set VK_ICD_FILENAMES`,
    );
  }
  return createGpuFromAdapter(adapter, loadShaderSourcesNode());
}
