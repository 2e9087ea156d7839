// Seeded GPT-2 initialisation (as transformers' GPT2PreTrainedModel._init_weights and
// nanoGPT): the same seed gives the same bits under one JS engine (Math.log / Math.cos are
// not required to round identically across engines, so Firefox may differ in the last bit).
import type { GPTConfig } from './config';
import { tensorData, type TensorTable } from './params';

export const INIT_STD = 0.02;

import { mulberry32 } from '../util/rng';

export { mulberry32 };

/** Fills out with N(0, std^2) draws (Box-Muller, both values of each pair used). */
export function fillNormal(out: Float32Array, rand: () => number, std: number): void {
  for (let i = 0; i < out.length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rand())); // 1 - u in (0, 1]: log never sees 0
    const theta = 2 * Math.PI * rand();
    out[i] = std * r * Math.cos(theta);
    if (i + 1 < out.length) out[i + 1] = std * r * Math.sin(theta);
  }
}

/** Fills out with U(-bound, bound) draws. */
export function fillUniform(out: Float32Array, rand: () => number, bound: number): void {
  for (let i = 0; i < out.length; i++) out[i] = (2 * rand() - 1) * bound;
}

/**
 * A fresh parameter buffer: weights and embeddings N(0, 0.02^2); the residual projections
 * (attn.c_proj, mlp.c_proj weights) N(0, (0.02 / sqrt(2L))^2) so the residual stream's variance
 * does not grow with depth; biases 0; LayerNorm weight 1, bias 0; padding 0. Tensors draw
 * from one stream in table order.
 */
export function initParams(cfg: GPTConfig, table: TensorTable, seed: number): Float32Array {
  const buf = new Float32Array(table.totalFloats);
  const rand = mulberry32(seed);
  const residualStd = INIT_STD / Math.sqrt(2 * cfg.nLayer);
  for (const t of table.tensors) {
    const data = tensorData(buf, t);
    if (/\.ln_\d\.weight$|^ln_f\.weight$/.test(t.name)) data.fill(1);
    else if (t.shape.length === 1) data.fill(0);
    else if (/\.c_proj\.weight$/.test(t.name)) fillNormal(data, rand, residualStd);
    else fillNormal(data, rand, INIT_STD);
  }
  return buf;
}
