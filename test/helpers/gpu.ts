// One shared Gpu per test file. A missing adapter fails the file: the GPU tier never skips
// silently (DESIGN: with CI=true a missing adapter is a failure).
import { createNodeGpu } from '../../src/gpu/node';
import type { Gpu, TensorRef } from '../../src/gpu/runtime';

let shared: Promise<Gpu> | null = null;

export function testGpu(): Promise<Gpu> {
  shared ??= createNodeGpu();
  return shared;
}

/** Uploads, runs the dispatches in one submit, and reads the float output back. */
export async function readF32(gpu: Gpu, ref: GPUBuffer | TensorRef): Promise<Float32Array> {
  return gpu.readF32(ref);
}
