// The metrics of one RL update, gathered over its optimiser steps (μ epochs × mini-batches).
// Token means (clip ratios, KL, entropy, ratio) are weighted by each step's tokens, as TRL and
// veRL weigh them: a plain mean of per-mini-batch means would over-weight short mini-batches.
// Aggregated losses and the gradient norm are plain means over the optimiser steps.
import { combineClipStats } from '../metrics/entropy';
import type { PgMetrics } from './hyper';

/** One optimiser step's loss-head metrics and its gradient norm (before clipping). */
export type OptimiserStepMetrics = PgMetrics & { grad_norm: number };

const TOKEN_MEANS = ['kl', 'entropy', 'ratio/mean'] as const;
const STEP_MEANS = ['loss', 'loss/pg', 'loss/kl', 'loss/entropy', 'grad_norm'] as const;

/**
 * The update's metrics from its optimiser steps, `epochs` passes over the same tokens:
 * `tokens` is the number of response tokens in the loss (one pass), the rest as above.
 */
export function combineUpdateMetrics(parts: readonly OptimiserStepMetrics[], epochs: number): Record<string, number> {
  if (parts.length === 0) return {};
  const clip = combineClipStats(parts);
  const out: Record<string, number> = { ...clip, tokens: clip.tokens / epochs };
  const t = Math.max(clip.tokens, 1);
  for (const k of TOKEN_MEANS) out[k] = parts.reduce((a, p) => a + p.tokens * p[k], 0) / t;
  for (const k of STEP_MEANS) out[k] = parts.reduce((a, p) => a + p[k], 0) / parts.length;
  return out;
}
