// Device creation shared by the browser and Node: ask the adapter for the limits our kernels
// need (storage buffers per stage above the default 8, the adapter's largest buffers) and the
// optional features we use.
import { Gpu, GpuUnavailableError } from './runtime';

export interface AdapterSummary {
  name: string;
  vendor: string;
  architecture: string;
  description: string;
  features: string[];
  limits: Record<string, number>;
}

const LIMITS_WE_RAISE = [
  'maxStorageBuffersPerShaderStage',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
] as const;

// 'subgroups' is newer than some @webgpu/types releases, hence the cast.
const OPTIONAL_FEATURES = ['timestamp-query', 'subgroups', 'shader-f16'] as GPUFeatureName[];

/** The storage-buffer count the largest kernel needs (attention backward). */
export const MIN_STORAGE_BUFFERS = 10;

export function summarizeAdapter(adapter: GPUAdapter): AdapterSummary {
  const info = adapter.info;
  const limits: Record<string, number> = {};
  for (const k of LIMITS_WE_RAISE) limits[k] = Number(adapter.limits[k]);
  return {
    name: info.device || info.description || info.vendor || 'unknown adapter',
    vendor: info.vendor,
    architecture: info.architecture,
    description: info.description,
    features: [...adapter.features].map(String).sort(),
    limits,
  };
}

/** SwiftShader (Chromium's and Dawn's CPU Vulkan), Mesa's llvmpipe/lavapipe, Windows' WARP (Microsoft Basic Render Driver) or any adapter flagged as a fallback. */
export function isSoftwareAdapter(adapter: GPUAdapter): boolean {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`.toLowerCase();
  return Boolean(info.isFallbackAdapter) || text.includes('swiftshader') || text.includes('llvmpipe') || text.includes('lavapipe') || text.includes('basic render');
}

export async function createGpuFromAdapter(adapter: GPUAdapter, sources: Readonly<Record<string, string>>): Promise<Gpu> {
  const requiredLimits: Record<string, number> = {};
  for (const k of LIMITS_WE_RAISE) requiredLimits[k] = Number(adapter.limits[k]);
  if (requiredLimits.maxStorageBuffersPerShaderStage < MIN_STORAGE_BUFFERS) {
    throw new GpuUnavailableError(
      `this adapter allows ${requiredLimits.maxStorageBuffersPerShaderStage} storage buffers per shader stage; RLVR Lab's kernels need ${MIN_STORAGE_BUFFERS}`,
    );
  }
  const requiredFeatures = OPTIONAL_FEATURES.filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures, label: 'rlvr-lab' });
  const s = summarizeAdapter(adapter);
  return new Gpu(device, s.name, sources, isSoftwareAdapter(adapter));
}
