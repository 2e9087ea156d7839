// Float64 CPU reference of the whole GPT-2 policy (forward and backward), composed from the
// per-op references exactly as src/model/gpt.ts composes the kernels. It is the oracle of the
// whole-model GPU tests, the `inspect` command's cross-check, and the engine of CPU mode.
import type { GPTConfig } from '../model/config';
import type { TensorTable } from '../model/params';
import { matmulBackwardRef, matmulForwardRef, matmulRef } from './matmul';
import { encoderBackwardRef, encoderForwardRef, geluBackwardRef, geluForwardRef, layernormBackwardRef, layernormForwardRef } from './layers';
import { attentionBackwardRef, attentionForwardRef } from './attention';
import { residualForwardRef } from './elementwise';
import { softmaxLogpRef } from './loss';

type Views = Record<string, Float64Array>;

/** Float64 views of every tensor of `table` inside `flat`, keyed by checkpoint name. */
export function tensorViews(flat: Float64Array, table: TensorTable): Views {
  const out: Views = {};
  for (const t of table.tensors) out[t.name] = flat.subarray(t.offset, t.offset + t.size);
  return out;
}

interface LayerCache {
  residual: Float64Array; ln1: Float64Array; ln1Mean: Float64Array; ln1Rstd: Float64Array;
  qkv: Float64Array; atty: Float64Array; lse: Float64Array; attproj: Float64Array; residual2: Float64Array;
  ln2: Float64Array; ln2Mean: Float64Array; ln2Rstd: Float64Array; fch: Float64Array; fchGelu: Float64Array; fcproj: Float64Array;
}

export interface RefBatch {
  B: number;
  T: number;
  tokens: ArrayLike<number>; // [B*T]
  targets: ArrayLike<number>; // [B*T]
  w: ArrayLike<number>; // [B*T]
  e?: ArrayLike<number>; // [B*T]
  temperature?: number;
}

export interface RefForward {
  logits: Float64Array; // [BT,V]
  logp: Float64Array; // [BT]
  entropy: Float64Array; // [BT]
  dlogits: Float64Array; // [BT,V] dJ/dlogits
  /** J = Σ w·logp + e·H */
  objective: number;
  layers: LayerCache[];
  out: Float64Array; lnf: Float64Array; lnfMean: Float64Array; lnfRstd: Float64Array;
}

export function gptForwardRef(cfg: GPTConfig, table: TensorTable, params: Float64Array, batch: RefBatch): RefForward {
  const { B, T } = batch;
  const C = cfg.nEmbd, V = cfg.vocabSize, NH = cfg.nHead, BT = B * T;
  const p = tensorViews(params, table);
  const f = (n: number) => new Float64Array(n);
  const layers: LayerCache[] = [];
  let x = f(BT * C);
  encoderForwardRef(x, batch.tokens, p['wte.weight'], p['wpe.weight'], B, T, C);
  for (let l = 0; l < cfg.nLayer; l++) {
    const h = `h.${l}.`;
    const c: LayerCache = {
      residual: x, ln1: f(BT * C), ln1Mean: f(BT), ln1Rstd: f(BT), qkv: f(BT * 3 * C), atty: f(BT * C), lse: f(BT * NH),
      attproj: f(BT * C), residual2: f(BT * C), ln2: f(BT * C), ln2Mean: f(BT), ln2Rstd: f(BT), fch: f(BT * 4 * C), fchGelu: f(BT * 4 * C), fcproj: f(BT * C),
    };
    layernormForwardRef(c.ln1, c.ln1Mean, c.ln1Rstd, x, p[h + 'ln_1.weight'], p[h + 'ln_1.bias'], BT, C);
    matmulForwardRef(c.qkv, c.ln1, p[h + 'attn.c_attn.weight'], p[h + 'attn.c_attn.bias'], { M: BT, K: C, N: 3 * C });
    attentionForwardRef(c.atty, c.lse, c.qkv, { B, T, C, NH });
    matmulForwardRef(c.attproj, c.atty, p[h + 'attn.c_proj.weight'], p[h + 'attn.c_proj.bias'], { M: BT, K: C, N: C });
    residualForwardRef(c.residual2, x, c.attproj);
    layernormForwardRef(c.ln2, c.ln2Mean, c.ln2Rstd, c.residual2, p[h + 'ln_2.weight'], p[h + 'ln_2.bias'], BT, C);
    matmulForwardRef(c.fch, c.ln2, p[h + 'mlp.c_fc.weight'], p[h + 'mlp.c_fc.bias'], { M: BT, K: C, N: 4 * C });
    geluForwardRef(c.fchGelu, c.fch, BT * 4 * C);
    matmulForwardRef(c.fcproj, c.fchGelu, p[h + 'mlp.c_proj.weight'], p[h + 'mlp.c_proj.bias'], { M: BT, K: 4 * C, N: C });
    x = f(BT * C);
    residualForwardRef(x, c.residual2, c.fcproj);
    layers.push(c);
  }
  const lnf = f(BT * C), lnfMean = f(BT), lnfRstd = f(BT);
  layernormForwardRef(lnf, lnfMean, lnfRstd, x, p['ln_f.weight'], p['ln_f.bias'], BT, C);
  const logits = f(BT * V);
  matmulRef(logits, lnf, p['wte.weight'], null, { M: BT, K: C, N: V }, { transB: true });
  const sm = { logp: f(BT), entropy: f(BT), dlogits: f(BT * V) };
  const e = batch.e ?? new Float64Array(BT);
  softmaxLogpRef(sm, logits, batch.targets, batch.w, e, { R: BT, V }, { temperature: batch.temperature ?? 1 });
  let objective = 0;
  for (let i = 0; i < BT; i++) objective += batch.w[i] * sm.logp[i] + e[i] * sm.entropy[i];
  return { logits, logp: sm.logp, entropy: sm.entropy, dlogits: sm.dlogits, objective, layers, out: x, lnf, lnfMean, lnfRstd };
}

/** dJ/dparams in the table's flat layout (padding stays zero). */
export function gptBackwardRef(cfg: GPTConfig, table: TensorTable, params: Float64Array, batch: RefBatch, fw: RefForward): Float64Array {
  const { B, T } = batch;
  const C = cfg.nEmbd, V = cfg.vocabSize, NH = cfg.nHead, BT = B * T;
  const p = tensorViews(params, table);
  const gradsFlat = new Float64Array(table.totalFloats);
  const g = tensorViews(gradsFlat, table);
  const f = (n: number) => new Float64Array(n);
  const dlnf = f(BT * C);
  matmulRef(dlnf, fw.dlogits, p['wte.weight'], null, { M: BT, K: V, N: C });
  matmulRef(g['wte.weight'], fw.dlogits, fw.lnf, null, { M: V, K: BT, N: C }, { transA: true, accumulate: true });
  const dres = f(BT * C);
  layernormBackwardRef(dres, g['ln_f.weight'], g['ln_f.bias'], dlnf, fw.out, p['ln_f.weight'], fw.lnfMean, fw.lnfRstd, BT, C);
  for (let l = cfg.nLayer - 1; l >= 0; l--) {
    const h = `h.${l}.`;
    const c = fw.layers[l];
    const dfchGelu = f(BT * 4 * C), dfch = f(BT * 4 * C), dln = f(BT * C), datty = f(BT * C), dqkv = f(BT * 3 * C);
    matmulBackwardRef(dfchGelu, g[h + 'mlp.c_proj.weight'], g[h + 'mlp.c_proj.bias'], dres, c.fchGelu, p[h + 'mlp.c_proj.weight'], { M: BT, K: 4 * C, N: C });
    geluBackwardRef(dfch, c.fch, dfchGelu, BT * 4 * C);
    matmulBackwardRef(dln, g[h + 'mlp.c_fc.weight'], g[h + 'mlp.c_fc.bias'], dfch, c.ln2, p[h + 'mlp.c_fc.weight'], { M: BT, K: C, N: 4 * C });
    layernormBackwardRef(dres, g[h + 'ln_2.weight'], g[h + 'ln_2.bias'], dln, c.residual2, p[h + 'ln_2.weight'], c.ln2Mean, c.ln2Rstd, BT, C);
    matmulBackwardRef(datty, g[h + 'attn.c_proj.weight'], g[h + 'attn.c_proj.bias'], dres, c.atty, p[h + 'attn.c_proj.weight'], { M: BT, K: C, N: C });
    attentionBackwardRef(dqkv, datty, c.qkv, c.atty, c.lse, { B, T, C, NH });
    const dln1 = f(BT * C);
    matmulBackwardRef(dln1, g[h + 'attn.c_attn.weight'], g[h + 'attn.c_attn.bias'], dqkv, c.ln1, p[h + 'attn.c_attn.weight'], { M: BT, K: C, N: 3 * C });
    layernormBackwardRef(dres, g[h + 'ln_1.weight'], g[h + 'ln_1.bias'], dln1, c.residual, p[h + 'ln_1.weight'], c.ln1Mean, c.ln1Rstd, BT, C);
  }
  encoderBackwardRef(g['wte.weight'], g['wpe.weight'], dres, batch.tokens, B, T, C);
  return gradsFlat;
}

/** Mean next-token cross-entropy batch of one sequence: targets are tokens shifted by one. */
export function nextTokenBatch(tokens: readonly number[]): RefBatch & { tokens: Uint32Array; targets: Uint32Array; w: Float32Array } {
  const T = tokens.length;
  const targets = new Uint32Array(T);
  const w = new Float32Array(T);
  for (let t = 0; t + 1 < T; t++) {
    targets[t] = tokens[t + 1];
    w[t] = -1 / (T - 1);
  }
  return { B: 1, T, tokens: Uint32Array.from(tokens), targets, w };
}
