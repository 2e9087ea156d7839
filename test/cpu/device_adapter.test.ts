// Which adapters get the CPU-adapter kernel designs (and the layered decode blocks): the software
// rasterisers by the names their drivers report, and any adapter flagged as a fallback.
import { describe, expect, it } from 'vitest';
import { isSoftwareAdapter } from '../../src/gpu/device';

const adapter = (info: Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean }): GPUAdapter =>
  ({ info: { vendor: '', architecture: '', device: '', description: '', ...info } }) as unknown as GPUAdapter;

describe('isSoftwareAdapter', () => {
  it('knows SwiftShader, llvmpipe, lavapipe and WARP, and a fallback adapter', () => {
    expect(isSoftwareAdapter(adapter({ vendor: 'google', architecture: 'swiftshader', device: 'swiftshader-device-subzero-' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ description: 'Mesa lavapipe' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ vendor: 'microsoft', description: 'Microsoft Basic Render Driver' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ vendor: 'intel', isFallbackAdapter: true }))).toBe(true);
  });

  it('leaves GPUs as GPUs', () => {
    expect(isSoftwareAdapter(adapter({ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H200' }))).toBe(false);
    expect(isSoftwareAdapter(adapter({ vendor: 'apple', architecture: 'metal-3' }))).toBe(false);
    expect(isSoftwareAdapter(adapter({ vendor: 'intel', architecture: 'gen-12lp', description: 'Intel(R) UHD Graphics' }))).toBe(false);
  });
});
