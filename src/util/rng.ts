// The one seeded generator of the project (mulberry32: tiny, fast, good enough for sampling
// problems, initialising weights and making test inputs): same seed, same stream.

/** A source of uniform floats in [0, 1). */
export type Rng = () => number;

export function mulberry32(seed: number): Rng {
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
export function randArray(rand: Rng, n: number, scale = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rand() * 2 - 1) * scale;
  return out;
}

/** A generator that counts its draws, so a resumed run can skip exactly as many. */
export interface CountedRng extends Rng {
  readonly draws: number;
}

/** mulberry32(seed), advanced by `skip` draws, counting every draw after. */
export function countedRng(seed: number, skip = 0): CountedRng {
  const next = mulberry32(seed);
  let draws = 0;
  const rng = (() => {
    draws++;
    return next();
  }) as CountedRng;
  Object.defineProperty(rng, 'draws', { get: () => draws });
  for (let i = 0; i < skip; i++) rng();
  return rng;
}
