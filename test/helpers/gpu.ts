// One shared Gpu per test file. A missing adapter fails the file: the GPU tier never skips
// silently (DESIGN: with CI=true a missing adapter is a failure).
import { createNodeGpu } from '../../src/gpu/node';
import type { Gpu } from '../../src/gpu/runtime';

let shared: Promise<Gpu> | null = null;

export function testGpu(): Promise<Gpu> {
  shared ??= createNodeGpu();
  return shared;
}
