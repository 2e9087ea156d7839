// Seeded randomness for the world. Every generator takes an `Rng` so that a seed fixes the
// output exactly: data sets, documents and pretraining examples are reproducible.

export type { Rng } from '../util/rng';
import { mulberry32, type Rng } from '../util/rng';

/** The world's generators all take an `Rng`; `makeRng(seed)` is the project's mulberry32. */
export const makeRng: (seed: number) => Rng = mulberry32;

/** Uniform integer in [lo, hi], both ends included. */
export function randInt(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick: empty list');
  return items[Math.floor(rng() * items.length)];
}

/** Picks an item with probability proportional to its weight. */
export function pickWeighted<T>(rng: Rng, items: readonly T[], weights: readonly number[]): T {
  const total = weights.reduce((s, w) => s + w, 0);
  let r = rng() * total;
  for (let i = 0; i < items.length; i++) {
    r -= weights[i];
    if (r < 0) return items[i];
  }
  return items[items.length - 1];
}

/** Fisher-Yates on a copy. */
export function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
