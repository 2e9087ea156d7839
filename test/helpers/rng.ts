// Seeded random inputs for tests: the project's mulberry32 (src/util/rng.ts) plus test-only shapes.
export { mulberry32, randArray } from '../../src/util/rng';

/** n floats approximately N(0, std^2) (Box-Muller). */
export function randn(rand: () => number, n: number, std = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = Math.max(rand(), 1e-12);
    out[i] = std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  }
  return out;
}

export function randInts(rand: () => number, n: number, hi: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * hi);
  return out;
}

export const toF64 = (a: ArrayLike<number>): Float64Array => Float64Array.from(a);
