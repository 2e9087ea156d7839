// The GPT-2 policy as an ONNX model (opset 17), written by hand one layer at a time in the
// order of src/model/gpt.ts: encoder, L pre-LN blocks, final LayerNorm, tied LM head.
// Weights are initializers named after the checkpoint tensors (wte.weight, h.0.attn.c_attn.weight
// stored [in, out], ...), so MatMul uses them as they are. Browser-safe: bytes out.
//   exportOnnx          input  input_ids int32 [batch, seq], seq <= nPositions
//                       output logits    float [batch, seq, V]
//   exportOnnxWithPast  the decoder with a KV cache, named and shaped as Hugging Face exports
//                       GPT-2 for generation (optimum's "decoder_with_past"):
//     inputs  input_ids int64 [batch_size, sequence_length], attention_mask int64
//             [batch_size, past_sequence_length + sequence_length] (0 = a padding key),
//             position_ids int64 [batch_size, sequence_length], past_key_values.N.key / .value
//             float [batch_size, num_heads, past_sequence_length, head_dim] (length 0 at the start)
//     outputs logits float [batch_size, sequence_length, V], present.N.key / .value float
//             [batch_size, num_heads, past_sequence_length + sequence_length, head_dim]
import type { GPTConfig } from '../model/config';
import { buildTensorTable, globalTensors, layerTensors, tensorData, type TensorTable } from '../model/params';
import { BOOL_TYPE, float, GraphBuilder, int, ints, ONNX_OPSET } from './builder';

/** Graph-wide constants, built once and shared by every block. */
interface Shared {
  /** bool [seq, seq]: true where key position <= query position (the causal mask, sliced at run time). */
  mask: string;
  /** float scalar: the score given to masked positions. */
  maskedScore: string;
  /** float scalar 1/sqrt(HS). */
  attnScale: string;
  /** int64 [3] = [C, C, C]: sizes of q, k, v inside the fused qkv. */
  qkvSplit: string;
  /** int64 [4] = [0, 0, NH, HS]: [B, T, C] -> [B, T, NH, HS] (0 keeps the input's size). */
  headsShape: string;
  /** int64 [3] = [0, 0, C]: [B, T, NH, HS] -> [B, T, C]. */
  mergedShape: string;
  gelu: { half: string; one: string; cubic: string; sqrt2OverPi: string };
}

// The float32 lowest value, as transformers' GPT-2 masks: unlike -inf it cannot make NaN.
const FLOAT32_LOWEST = -3.4028234663852886e38;

const scalarF32 = (g: GraphBuilder, name: string, v: number): string => g.f32(name, [], Float32Array.of(v));

function causalMask(P: number): Uint8Array {
  const m = new Uint8Array(P * P); // (P, P) row = query, column = key
  for (let q = 0; q < P; q++) m.fill(1, q * P, q * P + q + 1);
  return m;
}

/** x[B,T,C] = wte[input_ids] + wpe[0..T); also slices the causal mask to [T,T]. */
function encoder(g: GraphBuilder, cfg: GPTConfig, ids: string): { x: string; shared: Shared } {
  const seqLen = g.op('Shape', 'seq_len', [ids], { start: int(1), end: int(2) }); // int64 [1]
  const zero = g.i64('const.zero', [0]);
  const tok = g.op('Gather', 'tok_emb', ['wte.weight', ids], { axis: int(0) }); // (B, T, C)
  const pos = g.op('Slice', 'pos_emb', ['wpe.weight', zero, seqLen, zero]); // (T, C)
  const x = g.op('Add', 'encoded', [tok, pos]); // (B, T, C)

  const fullMask = g.bool('const.causal_mask', [cfg.nPositions, cfg.nPositions], causalMask(cfg.nPositions));
  const maskEnds = g.op('Concat', 'mask_ends', [seqLen, seqLen], { axis: int(0) });
  const mask = g.op('Slice', 'mask', [fullMask, g.i64('const.zero2', [0, 0]), maskEnds, g.i64('const.axes01', [0, 1])]); // (T, T)
  return { x, shared: sharedConstants(g, cfg, mask) };
}

/** The constants every block shares, around the attention mask the caller built. */
function sharedConstants(g: GraphBuilder, cfg: GPTConfig, mask: string): Shared {
  const C = cfg.nEmbd, NH = cfg.nHead;
  return {
    mask,
    maskedScore: scalarF32(g, 'const.masked_score', FLOAT32_LOWEST),
    attnScale: scalarF32(g, 'const.attn_scale', 1 / Math.sqrt(C / NH)),
    qkvSplit: g.i64('const.qkv_split', [C, C, C]),
    headsShape: g.i64('const.heads_shape', [0, 0, NH, C / NH]),
    mergedShape: g.i64('const.merged_shape', [0, 0, C]),
    gelu: {
      half: scalarF32(g, 'const.half', 0.5),
      one: scalarF32(g, 'const.one', 1),
      cubic: scalarF32(g, 'const.gelu_cubic', 0.044715),
      sqrt2OverPi: scalarF32(g, 'const.sqrt_2_over_pi', Math.sqrt(2 / Math.PI)),
    },
  };
}

function layernorm(g: GraphBuilder, name: string, x: string, weight: string, bias: string, eps: number): string {
  return g.op('LayerNormalization', name, [x, weight, bias], { axis: int(-1), epsilon: float(eps) });
}

/** out = inp @ W + b with W stored [in, out] like the checkpoint (HF Conv1D). */
function linear(g: GraphBuilder, name: string, inp: string, weight: string, bias: string): string {
  return g.op('Add', name, [g.op('MatMul', `${name}.matmul`, [inp, weight]), bias]);
}

/** A KV cache of one block: past keys and values in, present ones (past ++ this call's) out. */
interface Past {
  key: string;
  value: string;
  presentKey: string;
  presentValue: string;
}

/**
 * Causal multi-head attention of qkv[B,T,3C] -> y[B,T,C]; head h uses channels h*HS.. of q, k, v.
 * With a cache the keys and values are past ++ this call's (B, NH, P+T, HS) and `s.mask` is
 * (B, 1, T, P+T).
 */
function attention(g: GraphBuilder, name: string, qkv: string, s: Shared, past?: Past): string {
  const [q, k, v] = g.opN('Split', `${name}.split`, [qkv, s.qkvSplit], [`${name}.q`, `${name}.k`, `${name}.v`], { axis: int(-1) });
  const heads = (x: string, perm: number[]) => g.op('Transpose', `${x}_heads`, [g.op('Reshape', `${x}_4d`, [x, s.headsShape])], { perm: ints(perm) });
  const qh = heads(q, [0, 2, 1, 3]); // (B, NH, T, HS)
  let kt: string, vh: string;
  if (past) {
    const kAll = g.op('Concat', past.presentKey, [past.key, heads(k, [0, 2, 1, 3])], { axis: int(2) }); // (B, NH, P+T, HS)
    vh = g.op('Concat', past.presentValue, [past.value, heads(v, [0, 2, 1, 3])], { axis: int(2) });
    kt = g.op('Transpose', `${name}.kt`, [kAll], { perm: ints([0, 1, 3, 2]) }); // (B, NH, HS, P+T)
  } else {
    kt = heads(k, [0, 2, 3, 1]); // (B, NH, HS, T)
    vh = heads(v, [0, 2, 1, 3]); // (B, NH, T, HS)
  }
  const scores = g.op('Mul', `${name}.scores`, [g.op('MatMul', `${name}.qk`, [qh, kt]), s.attnScale]); // (B, NH, T, T) or (B, NH, T, P+T)
  const masked = g.op('Where', `${name}.masked`, [s.mask, scores, s.maskedScore]);
  const probs = g.op('Softmax', `${name}.probs`, [masked], { axis: int(-1) });
  const yh = g.op('MatMul', `${name}.yh`, [probs, vh]); // (B, NH, T, HS)
  const yt = g.op('Transpose', `${name}.yt`, [yh], { perm: ints([0, 2, 1, 3]) }); // (B, T, NH, HS)
  return g.op('Reshape', `${name}.y`, [yt, s.mergedShape]); // (B, T, C)
}

/** tanh-GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). Opset 17 has no Gelu op. */
function gelu(g: GraphBuilder, name: string, x: string, c: Shared['gelu']): string {
  const x3 = g.op('Mul', `${name}.x3`, [g.op('Mul', `${name}.x2`, [x, x]), x]);
  const inner = g.op('Add', `${name}.inner`, [x, g.op('Mul', `${name}.cx3`, [x3, c.cubic])]);
  const th = g.op('Tanh', `${name}.tanh`, [g.op('Mul', `${name}.arg`, [inner, c.sqrt2OverPi])]);
  const gate = g.op('Mul', `${name}.gate`, [g.op('Add', `${name}.onep`, [th, c.one]), c.half]);
  return g.op('Mul', name, [x, gate]);
}

/** One pre-LN block: x + attn(ln_1(x)), then + mlp(ln_2(.)). Shapes (B, T, C) in and out. */
function block(g: GraphBuilder, cfg: GPTConfig, table: TensorTable, l: number, x: string, s: Shared, past?: Past): string {
  const w = layerTensors(table, l);
  const h = `h.${l}`;
  const ln1 = layernorm(g, `${h}.ln_1`, x, w.ln1Weight.name, w.ln1Bias.name, cfg.layerNormEps);
  const qkv = linear(g, `${h}.attn.qkv`, ln1, w.qkvWeight.name, w.qkvBias.name); // (B, T, 3C)
  const atty = attention(g, `${h}.attn`, qkv, s, past);
  const attproj = linear(g, `${h}.attn.proj`, atty, w.attnProjWeight.name, w.attnProjBias.name);
  const residual2 = g.op('Add', `${h}.residual2`, [x, attproj]);
  const ln2 = layernorm(g, `${h}.ln_2`, residual2, w.ln2Weight.name, w.ln2Bias.name, cfg.layerNormEps);
  const fch = linear(g, `${h}.mlp.fc`, ln2, w.fcWeight.name, w.fcBias.name); // (B, T, 4C)
  const fchGelu = gelu(g, `${h}.mlp.gelu`, fch, s.gelu);
  const fcproj = linear(g, `${h}.mlp.proj`, fchGelu, w.fcProjWeight.name, w.fcProjBias.name);
  return g.op('Add', `${h}.out`, [residual2, fcproj]);
}

function checkTable(cfg: GPTConfig, table: TensorTable, params: Float32Array): void {
  const want = buildTensorTable(cfg);
  const same = want.totalFloats === table.totalFloats && want.tensors.every((t, i) => t.name === table.tensors[i]?.name && t.offset === table.tensors[i].offset);
  if (!same || want.tensors.length !== table.tensors.length) throw new Error('exportOnnx: the tensor table was not built from this config (buildTensorTable(cfg))');
  if (params.length !== table.totalFloats) throw new Error(`exportOnnx: params has ${params.length} floats, the table needs ${table.totalFloats}`);
}

/**
 * The policy as ONNX model bytes. `meta` (e.g. the checkpoint's metadata) is stored beside the
 * config in metadata_props. Positions beyond nPositions are an error at run time (Add shapes).
 */
export function exportOnnx(cfg: GPTConfig, table: TensorTable, params: Float32Array, meta: Readonly<Record<string, string>> = {}): Uint8Array {
  checkTable(cfg, table, params);
  const g = new GraphBuilder();
  for (const t of table.tensors) g.f32(t.name, t.shape, tensorData(params, t));
  const ids = g.inputInt32('input_ids', ['batch', 'seq']);
  const enc = encoder(g, cfg, ids);
  let x = enc.x;
  for (let l = 0; l < cfg.nLayer; l++) x = block(g, cfg, table, l, x, enc.shared);
  const top = globalTensors(table);
  const lnf = layernorm(g, 'ln_f', x, top.lnfWeight.name, top.lnfBias.name, cfg.layerNormEps);
  // tied LM head: logits[B,T,V] = lnf[B,T,C] @ wte[V,C]^T; ORT folds the transpose once at load
  const wteT = g.op('Transpose', 'wte_t', [top.wte.name], { perm: ints([1, 0]) });
  g.op('MatMul', 'logits', [lnf, wteT]);
  g.outputF32('logits', ['batch', 'seq', cfg.vocabSize]);
  const config = JSON.stringify(cfg);
  const doc = `GPT-2 policy exported by rlvr-lab (opset ${ONNX_OPSET}): ${config}. input_ids int32 [batch, seq] with seq <= ${cfg.nPositions}; logits float32 [batch, seq, ${cfg.vocabSize}].`;
  return g.encode('rlvr_lab_gpt2', doc, { ...meta, gpt_config: config });
}

/**
 * The decoder with a KV cache (see the header): one call takes the new tokens of every row with
 * their positions and the attention mask over past and new keys, and returns the logits of the
 * new positions and the grown cache. Left-padded prompts work as in transformers: padding keys
 * are masked by attention_mask and position_ids count only the real tokens.
 */
export function exportOnnxWithPast(cfg: GPTConfig, table: TensorTable, params: Float32Array, meta: Readonly<Record<string, string>> = {}): Uint8Array {
  checkTable(cfg, table, params);
  const g = new GraphBuilder();
  for (const t of table.tensors) g.f32(t.name, t.shape, tensorData(params, t));
  const C = cfg.nEmbd, NH = cfg.nHead, HS = C / NH;
  const ids = g.inputInt64('input_ids', ['batch_size', 'sequence_length']);
  const attentionMask = g.inputInt64('attention_mask', ['batch_size', 'past_sequence_length + sequence_length']);
  const positionIds = g.inputInt64('position_ids', ['batch_size', 'sequence_length']);
  const pasts: Past[] = [];
  for (let l = 0; l < cfg.nLayer; l++) {
    const dims = ['batch_size', NH, 'past_sequence_length', HS];
    pasts.push({ key: g.inputF32(`past_key_values.${l}.key`, dims), value: g.inputF32(`past_key_values.${l}.value`, dims), presentKey: `present.${l}.key`, presentValue: `present.${l}.value` });
  }
  // x = wte[input_ids] + wpe[position_ids]
  const x0 = g.op('Add', 'encoded', [g.op('Gather', 'tok_emb', ['wte.weight', ids], { axis: int(0) }), g.op('Gather', 'pos_emb', ['wpe.weight', positionIds], { axis: int(0) })]);
  // the mask (B, 1, T, P+T): key j of a row is seen by its new position i iff j <= P + i and the key is not padding
  const seqLen = g.op('Shape', 'seq_len', [ids], { start: int(1), end: int(2) });
  const pastLen = g.op('Shape', 'past_len', [pasts[0].key], { start: int(2), end: int(3) });
  const total = g.op('Add', 'total_len', [pastLen, seqLen]);
  const fullMask = g.bool('const.causal_mask', [cfg.nPositions, cfg.nPositions], causalMask(cfg.nPositions));
  const causal = g.op('Slice', 'causal', [
    fullMask, g.op('Concat', 'causal_starts', [pastLen, g.i64('const.zero', [0])], { axis: int(0) }),
    g.op('Concat', 'causal_ends', [total, total], { axis: int(0) }), g.i64('const.axes01', [0, 1]),
  ]); // (T, P+T)
  const keys = g.op('Unsqueeze', 'key_mask', [g.op('Cast', 'attention_mask_bool', [attentionMask], { to: int(BOOL_TYPE) }), g.i64('const.axes12', [1, 2])]); // (B, 1, 1, P+T)
  const shared = sharedConstants(g, cfg, g.op('And', 'mask', [causal, keys]));
  let x = x0;
  for (let l = 0; l < cfg.nLayer; l++) x = block(g, cfg, table, l, x, shared, pasts[l]);
  const top = globalTensors(table);
  const lnf = layernorm(g, 'ln_f', x, top.lnfWeight.name, top.lnfBias.name, cfg.layerNormEps);
  const wteT = g.op('Transpose', 'wte_t', [top.wte.name], { perm: ints([1, 0]) });
  g.op('MatMul', 'logits', [lnf, wteT]);
  g.outputF32('logits', ['batch_size', 'sequence_length', cfg.vocabSize]);
  for (const p of pasts) {
    g.outputF32(p.presentKey, ['batch_size', NH, 'past_sequence_length + sequence_length', HS]);
    g.outputF32(p.presentValue, ['batch_size', NH, 'past_sequence_length + sequence_length', HS]);
  }
  const config = JSON.stringify(cfg);
  const doc = `GPT-2 policy with a KV cache, exported by rlvr-lab (opset ${ONNX_OPSET}; inputs and outputs named as Hugging Face's decoder_with_past): ${config}. past + new positions, padding included, at most ${cfg.nPositions} (beyond, the run fails).`;
  return g.encode('rlvr_lab_gpt2_with_past', doc, { ...meta, gpt_config: config, with_past: 'true' });
}
