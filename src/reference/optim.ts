// Float64 CPU references of the optimiser (shaders/grad_norm_sq.wgsl, shaders/adamw.wgsl,
// src/gpu/ops/optim.ts).
import type { AdamWHyper } from '../rl/hyper';

type Arr = ArrayLike<number>;

/** Σ grads[i]² */
export function gradNormSqRef(grads: Arr): number {
  let s = 0;
  for (let i = 0; i < grads.length; i++) s += grads[i] * grads[i];
  return s;
}

/**
 * One AdamW step in place on params, m, v with the semantics of `adamw`: returns the status
 * (1 = normSq not finite, nothing updated; 0 = updated).
 */
export function adamwRef(params: Float64Array, m: Float64Array, v: Float64Array, grads: Arr, flags: Arr, normSq: number, h: AdamWHyper): 0 | 1 {
  if (!Number.isFinite(normSq)) return 1;
  const s = h.maxGradNorm > 0 ? Math.min(1, h.maxGradNorm / (Math.sqrt(normSq) + 1e-6)) : 1;
  const bc1 = 1 - h.beta1 ** h.step;
  const bc2 = 1 - h.beta2 ** h.step;
  for (let i = 0; i < params.length; i++) {
    if ((flags[i] & 1) === 0) continue;
    const g = s * grads[i];
    m[i] = h.beta1 * m[i] + (1 - h.beta1) * g;
    v[i] = h.beta2 * v[i] + (1 - h.beta2) * g * g;
    const decay = flags[i] & 2 ? h.weightDecay * params[i] : 0;
    params[i] -= h.lr * (m[i] / bc1 / (Math.sqrt(v[i] / bc2) + h.eps) + decay);
  }
  return 0;
}
