// Float64 CPU reference of the whole GPT-2 policy (forward and backward), composed from the
// per-op references exactly as src/model/gpt.ts composes the kernels. It is the oracle of the
// whole-model GPU tests, the `inspect` command's cross-check, and the engine of CPU mode.
import type { GPTConfig } from '../model/config';
import type { TensorTable } from '../model/params';
import { loraScale, type LoraSpec } from '../model/lora';
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

/** A LoRA adapter set in float64: W + (alpha/r)·A@B on the projections its table holds (all four by default). */
export interface RefAdapter {
  spec: LoraSpec;
  table: TensorTable;
  params: Float64Array;
}

/** out[M,N] = inp @ W + b, plus s·(inp @ A) @ B with the adapter of `name` (e.g. h.0.attn.c_attn). */
function linearRef(out: Float64Array, inp: Float64Array, p: Views, name: string, M: number, K: number, N: number, ad: AdapterViews | null): void {
  matmulForwardRef(out, inp, p[name + '.weight'], p[name + '.bias'], { M, K, N });
  if (!ad || !ad.v[name + '.lora_A.weight']) return;
  const tmp = new Float64Array(M * ad.R);
  matmulRef(tmp, inp, ad.v[name + '.lora_A.weight'], null, { M, K, N: ad.R });
  matmulRef(out, tmp, ad.v[name + '.lora_B.weight'], null, { M, K: ad.R, N }, { accumulate: true, alpha: ad.scale });
}

/** Backward of linearRef: dinp =, base grads +=, adapter grads += (base grads skipped when frozen). */
function linearBackwardRef(dinp: Float64Array, g: Views, gA: Views | null, dout: Float64Array, inp: Float64Array, p: Views, name: string, M: number, K: number, N: number, ad: AdapterViews | null): void {
  matmulBackwardRef(dinp, ad ? null : g[name + '.weight'], ad ? null : g[name + '.bias'], dout, inp, p[name + '.weight'], { M, K, N });
  if (!ad || !gA || !ad.v[name + '.lora_A.weight']) return;
  const A = ad.v[name + '.lora_A.weight'], Bm = ad.v[name + '.lora_B.weight'], R = ad.R;
  const tmp = new Float64Array(M * R);
  matmulRef(tmp, inp, A, null, { M, K, N: R });
  matmulRef(gA[name + '.lora_B.weight'], tmp, dout, null, { M: R, K: M, N }, { transA: true, accumulate: true, alpha: ad.scale });
  const dtmp = new Float64Array(M * R);
  matmulRef(dtmp, dout, Bm, null, { M, K: N, N: R }, { transB: true, alpha: ad.scale });
  matmulRef(gA[name + '.lora_A.weight'], inp, dtmp, null, { M: K, K: M, N: R }, { transA: true, accumulate: true });
  matmulRef(dinp, dtmp, A, null, { M, K: R, N: K }, { transB: true, accumulate: true });
}

interface AdapterViews { v: Views; R: number; scale: number }

const adapterViews = (ad?: RefAdapter): AdapterViews | null =>
  ad ? { v: tensorViews(ad.params, ad.table), R: ad.spec.rank, scale: loraScale(ad.spec) } : null;

export function gptForwardRef(cfg: GPTConfig, table: TensorTable, params: Float64Array, batch: RefBatch, adapter?: RefAdapter): RefForward {
  const { B, T } = batch;
  const C = cfg.nEmbd, V = cfg.vocabSize, NH = cfg.nHead, BT = B * T;
  const p = tensorViews(params, table);
  const ad = adapterViews(adapter);
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
    linearRef(c.qkv, c.ln1, p, h + 'attn.c_attn', BT, C, 3 * C, ad);
    attentionForwardRef(c.atty, c.lse, c.qkv, { B, T, C, NH });
    linearRef(c.attproj, c.atty, p, h + 'attn.c_proj', BT, C, C, ad);
    residualForwardRef(c.residual2, x, c.attproj);
    layernormForwardRef(c.ln2, c.ln2Mean, c.ln2Rstd, c.residual2, p[h + 'ln_2.weight'], p[h + 'ln_2.bias'], BT, C);
    linearRef(c.fch, c.ln2, p, h + 'mlp.c_fc', BT, C, 4 * C, ad);
    geluForwardRef(c.fchGelu, c.fch, BT * 4 * C);
    linearRef(c.fcproj, c.fchGelu, p, h + 'mlp.c_proj', BT, 4 * C, C, ad);
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

/**
 * dJ/dparams in the table's flat layout (padding stays zero); with an adapter, dJ/dadapter in
 * the adapter table's layout instead (the base is frozen).
 */
export function gptBackwardRef(cfg: GPTConfig, table: TensorTable, params: Float64Array, batch: RefBatch, fw: RefForward, adapter?: RefAdapter): Float64Array {
  const { B, T } = batch;
  const C = cfg.nEmbd, V = cfg.vocabSize, NH = cfg.nHead, BT = B * T;
  const p = tensorViews(params, table);
  const ad = adapterViews(adapter);
  const gradsFlat = new Float64Array(table.totalFloats);
  const g = tensorViews(gradsFlat, table);
  const adapterGrads = adapter ? new Float64Array(adapter.table.totalFloats) : null;
  const gA = adapter && adapterGrads ? tensorViews(adapterGrads, adapter.table) : null;
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
    linearBackwardRef(dfchGelu, g, gA, dres, c.fchGelu, p, h + 'mlp.c_proj', BT, 4 * C, C, ad);
    geluBackwardRef(dfch, c.fch, dfchGelu, BT * 4 * C);
    linearBackwardRef(dln, g, gA, dfch, c.ln2, p, h + 'mlp.c_fc', BT, C, 4 * C, ad);
    layernormBackwardRef(dres, g[h + 'ln_2.weight'], g[h + 'ln_2.bias'], dln, c.residual2, p[h + 'ln_2.weight'], c.ln2Mean, c.ln2Rstd, BT, C);
    linearBackwardRef(datty, g, gA, dres, c.atty, p, h + 'attn.c_proj', BT, C, C, ad);
    attentionBackwardRef(dqkv, datty, c.qkv, c.atty, c.lse, { B, T, C, NH });
    const dln1 = f(BT * C);
    linearBackwardRef(dln1, g, gA, dqkv, c.ln1, p, h + 'attn.c_attn', BT, C, 3 * C, ad);
    layernormBackwardRef(dres, g[h + 'ln_1.weight'], g[h + 'ln_1.bias'], dln1, c.residual, p[h + 'ln_1.weight'], c.ln1Mean, c.ln1Rstd, BT, C);
  }
  encoderBackwardRef(g['wte.weight'], g['wpe.weight'], dres, batch.tokens, B, T, C);
  return adapterGrads ?? gradsFlat;
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
