// Seeded random inputs for tests (mulberry32): same seed, same tensors.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n floats uniform in [-scale, scale). */
export function randArray(rand: () => number, n: number, scale = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rand() * 2 - 1) * scale;
  return out;
}

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
