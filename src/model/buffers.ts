// GPU-side views of the model's flat parameter buffers and per-batch activations.
import { Gpu, view, type TensorRef } from '../gpu/runtime';
import type { TensorTable } from './params';
import { LORA_TARGETS, layerAdapters, type LoraTarget } from './lora';

/** Views of one layer's parameters (or gradients) in a flat buffer. */
export interface LayerParams {
  ln1w: TensorRef; ln1b: TensorRef;
  qkvw: TensorRef; qkvb: TensorRef; // [C,3C], [3C]
  attprojw: TensorRef; attprojb: TensorRef; // [C,C], [C]
  ln2w: TensorRef; ln2b: TensorRef;
  fcw: TensorRef; fcb: TensorRef; // [C,4C], [4C]
  fcprojw: TensorRef; fcprojb: TensorRef; // [4C,C], [C]
}

export interface ModelParams {
  wte: TensorRef; // [V,C]
  wpe: TensorRef; // [Tmax,C]
  layers: LayerParams[];
  lnfw: TensorRef; lnfb: TensorRef;
}

/** Views of every tensor of `table` inside `buffer`. */
export function paramViews(buffer: GPUBuffer, table: TensorTable, nLayer: number): ModelParams {
  const t = (name: string): TensorRef => {
    const e = table.byName.get(name);
    if (!e) throw new Error(`tensor table has no ${name}`);
    return view(buffer, e.offset, e.size);
  };
  const layers: LayerParams[] = [];
  for (let i = 0; i < nLayer; i++) {
    const h = `h.${i}.`;
    layers.push({
      ln1w: t(h + 'ln_1.weight'), ln1b: t(h + 'ln_1.bias'),
      qkvw: t(h + 'attn.c_attn.weight'), qkvb: t(h + 'attn.c_attn.bias'),
      attprojw: t(h + 'attn.c_proj.weight'), attprojb: t(h + 'attn.c_proj.bias'),
      ln2w: t(h + 'ln_2.weight'), ln2b: t(h + 'ln_2.bias'),
      fcw: t(h + 'mlp.c_fc.weight'), fcb: t(h + 'mlp.c_fc.bias'),
      fcprojw: t(h + 'mlp.c_proj.weight'), fcprojb: t(h + 'mlp.c_proj.bias'),
    });
  }
  return { wte: t('wte.weight'), wpe: t('wpe.weight'), layers, lnfw: t('ln_f.weight'), lnfb: t('ln_f.bias') };
}

/** One adapted projection: A [in,R], B [R,out]. */
export interface LoraRefs { a: TensorRef; b: TensorRef }

/** Views of a LoRA adapter set's tensors, by layer and target. */
export function loraViews(buffer: GPUBuffer, table: TensorTable, nLayer: number): Partial<Record<LoraTarget, LoraRefs>>[] {
  const out: Partial<Record<LoraTarget, LoraRefs>>[] = [];
  for (let i = 0; i < nLayer; i++) {
    const pairs = layerAdapters(table, i);
    const layer: Partial<Record<LoraTarget, LoraRefs>> = {};
    for (const t of LORA_TARGETS) {
      const pair = pairs[t];
      if (pair) layer[t] = { a: view(buffer, pair.a.offset, pair.a.size), b: view(buffer, pair.b.offset, pair.b.size) };
    }
    out.push(layer);
  }
  return out;
}

/** Per-layer activations of a (B, T) batch, each [B*T, …] (BT = B*T rows). */
export interface LayerActs {
  residual: TensorRef; // [BT,C] input of the block
  ln1: TensorRef; ln1Mean: TensorRef; ln1Rstd: TensorRef; // [BT,C], [BT], [BT]
  qkv: TensorRef; // [BT,3C]
  atty: TensorRef; lse: TensorRef; // [BT,C], [B,NH,T]
  attproj: TensorRef; // [BT,C]
  residual2: TensorRef; // [BT,C]
  ln2: TensorRef; ln2Mean: TensorRef; ln2Rstd: TensorRef;
  fch: TensorRef; fchGelu: TensorRef; // [BT,4C]
  fcproj: TensorRef; // [BT,C]
}

export function layerActSizes(BT: number, C: number, NH: number): Record<keyof LayerActs, number> {
  return {
    residual: BT * C, ln1: BT * C, ln1Mean: BT, ln1Rstd: BT, qkv: BT * 3 * C, atty: BT * C, lse: BT * NH,
    attproj: BT * C, residual2: BT * C, ln2: BT * C, ln2Mean: BT, ln2Rstd: BT, fch: BT * 4 * C, fchGelu: BT * 4 * C, fcproj: BT * C,
  };
}

/**
 * One buffer per tensor: WebGPU rejects a dispatch that binds one buffer both writable and
 * read-only, even on disjoint ranges, so activations cannot share an arena.
 */
export function allocAll<K extends string>(gpu: Pick<Gpu, 'createBuffer'>, sizes: Record<K, number>, label: string): Record<K, TensorRef> {
  const out = {} as Record<K, TensorRef>;
  for (const k of Object.keys(sizes) as K[]) out[k] = view(gpu.createBuffer(Math.max(sizes[k], 1) * 4, `${label}.${k}`), 0, sizes[k]);
  return out;
}
