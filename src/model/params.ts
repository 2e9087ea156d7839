// The tensor table: where each named parameter lives in one flat f32 buffer. Names and
// layouts are Hugging Face GPT-2's (matmul weights stored [in, out] like its Conv1D), so a
// checkpoint is this buffer cut along the table. Gradients and AdamW moments reuse the table.
import type { GPTConfig } from './config';

/**
 * Every tensor starts at a multiple of 64 floats (256 bytes), WebGPU's
 * minStorageBufferOffsetAlignment, so any tensor can be bound as a sub-range of the buffer.
 */
export const ALIGN_FLOATS = 64;

export interface TensorInfo {
  readonly name: string;
  readonly shape: readonly number[];
  /** Offset in floats from the start of the flat buffer; a multiple of ALIGN_FLOATS. */
  readonly offset: number;
  /** Number of floats: the product of shape. */
  readonly size: number;
}

export interface TensorTable {
  /** In buffer order (ascending offsets). */
  readonly tensors: readonly TensorInfo[];
  readonly byName: ReadonlyMap<string, TensorInfo>;
  /** Buffer length in floats, including padding; a multiple of ALIGN_FLOATS. */
  readonly totalFloats: number;
}

export const alignUp = (n: number, align = ALIGN_FLOATS): number => Math.ceil(n / align) * align;

/** Lays named shapes out one after another, each at an aligned offset. */
export function layoutTensors(entries: readonly { name: string; shape: readonly number[] }[]): TensorTable {
  const tensors: TensorInfo[] = [];
  const byName = new Map<string, TensorInfo>();
  let offset = 0;
  for (const { name, shape } of entries) {
    if (byName.has(name)) throw new Error(`tensor table: duplicate name "${name}"`);
    const size = shape.reduce((a, b) => a * b, 1);
    const info: TensorInfo = Object.freeze({ name, shape: Object.freeze([...shape]), offset, size });
    tensors.push(info);
    byName.set(name, info);
    offset = alignUp(offset + size);
  }
  return { tensors, byName, totalFloats: offset };
}

/** Suffixes of one block's tensors, in Hugging Face order, with their shapes for width C. */
function blockShapes(C: number): [string, number[]][] {
  return [
    ['ln_1.weight', [C]],
    ['ln_1.bias', [C]],
    ['attn.c_attn.weight', [C, 3 * C]], // [in, out]: q, k, v concatenated along out
    ['attn.c_attn.bias', [3 * C]],
    ['attn.c_proj.weight', [C, C]],
    ['attn.c_proj.bias', [C]],
    ['ln_2.weight', [C]],
    ['ln_2.bias', [C]],
    ['mlp.c_fc.weight', [C, 4 * C]],
    ['mlp.c_fc.bias', [4 * C]],
    ['mlp.c_proj.weight', [4 * C, C]],
    ['mlp.c_proj.bias', [C]],
  ];
}

/** The GPT-2 parameter layout for a config. No lm_head: it is tied to wte. */
export function buildTensorTable(cfg: GPTConfig): TensorTable {
  const C = cfg.nEmbd;
  const entries: { name: string; shape: number[] }[] = [
    { name: 'wte.weight', shape: [cfg.vocabSize, C] },
    { name: 'wpe.weight', shape: [cfg.nPositions, C] },
  ];
  for (let i = 0; i < cfg.nLayer; i++) {
    for (const [suffix, shape] of blockShapes(C)) entries.push({ name: `h.${i}.${suffix}`, shape });
  }
  entries.push({ name: 'ln_f.weight', shape: [C] }, { name: 'ln_f.bias', shape: [C] });
  return layoutTensors(entries);
}

export function tensor(table: TensorTable, name: string): TensorInfo {
  const t = table.byName.get(name);
  if (!t) throw new Error(`tensor table has no "${name}"`);
  return t;
}

export interface LayerTensors {
  ln1Weight: TensorInfo; // (C)
  ln1Bias: TensorInfo; // (C)
  qkvWeight: TensorInfo; // (C, 3C)
  qkvBias: TensorInfo; // (3C)
  attnProjWeight: TensorInfo; // (C, C)
  attnProjBias: TensorInfo; // (C)
  ln2Weight: TensorInfo; // (C)
  ln2Bias: TensorInfo; // (C)
  fcWeight: TensorInfo; // (C, 4C)
  fcBias: TensorInfo; // (4C)
  fcProjWeight: TensorInfo; // (4C, C)
  fcProjBias: TensorInfo; // (C)
}

/** The tensors of block i, by role. */
export function layerTensors(table: TensorTable, i: number): LayerTensors {
  const t = (suffix: string) => tensor(table, `h.${i}.${suffix}`);
  return {
    ln1Weight: t('ln_1.weight'),
    ln1Bias: t('ln_1.bias'),
    qkvWeight: t('attn.c_attn.weight'),
    qkvBias: t('attn.c_attn.bias'),
    attnProjWeight: t('attn.c_proj.weight'),
    attnProjBias: t('attn.c_proj.bias'),
    ln2Weight: t('ln_2.weight'),
    ln2Bias: t('ln_2.bias'),
    fcWeight: t('mlp.c_fc.weight'),
    fcBias: t('mlp.c_fc.bias'),
    fcProjWeight: t('mlp.c_proj.weight'),
    fcProjBias: t('mlp.c_proj.bias'),
  };
}

export interface GlobalTensors {
  wte: TensorInfo; // (V, C), also the LM head
  wpe: TensorInfo; // (nPositions, C)
  lnfWeight: TensorInfo; // (C)
  lnfBias: TensorInfo; // (C)
}

export function globalTensors(table: TensorTable): GlobalTensors {
  return {
    wte: tensor(table, 'wte.weight'),
    wpe: tensor(table, 'wpe.weight'),
    lnfWeight: tensor(table, 'ln_f.weight'),
    lnfBias: tensor(table, 'ln_f.bias'),
  };
}

/** A tensor's floats inside a flat buffer (a view, not a copy). */
export function tensorData(buf: Float32Array, t: TensorInfo): Float32Array {
  return buf.subarray(t.offset, t.offset + t.size);
}

export const FLAG_TRAINABLE = 1;
export const FLAG_DECAY = 2;

/**
 * Per-float optimiser flags for the whole buffer: bit0 trainable, bit1 weight decay.
 * Decay applies to 2-D tensors (matmul weights, embeddings, LoRA matrices), never to biases
 * or LayerNorm parameters; padding floats get 0 so the optimiser leaves them at 0.
 * `trainable` freezes whole tensors (e.g. the base model under LoRA).
 */
export function decayFlags(table: TensorTable, trainable: (t: TensorInfo) => boolean = () => true): Uint32Array {
  const flags = new Uint32Array(table.totalFloats);
  for (const t of table.tensors) {
    if (!trainable(t)) continue;
    const f = FLAG_TRAINABLE | (t.shape.length === 2 ? FLAG_DECAY : 0);
    flags.fill(f, t.offset, t.offset + t.size);
  }
  return flags;
}
