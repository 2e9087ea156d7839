// Browser (and worker) entry to WebGPU. Shader sources are bundled by Vite from shaders/.
import { createGpuFromAdapter, summarizeAdapter, type AdapterSummary } from './device';
import { GpuError, type Gpu } from './runtime';

const files = import.meta.glob('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export const SHADER_SOURCES: Record<string, string> = Object.fromEntries(
  Object.entries(files).map(([p, src]) => [p.slice(p.lastIndexOf('/') + 1), src]),
);

export async function requestBrowserAdapter(): Promise<{ adapter: GPUAdapter; summary: AdapterSummary }> {
  if (typeof navigator === 'undefined' || !('gpu' in navigator) || !navigator.gpu) {
    throw new GpuError('WebGPU is not available in this browser (navigator.gpu is missing). Use a recent Chrome or Edge, or enable WebGPU.');
  }
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new GpuError('WebGPU is present but no adapter was found (the GPU may be blocklisted or disabled).');
  return { adapter, summary: summarizeAdapter(adapter) };
}

export async function createBrowserGpu(): Promise<Gpu> {
  const { adapter } = await requestBrowserAdapter();
  return createGpuFromAdapter(adapter, SHADER_SOURCES);
}
