// Causal multi-head self-attention, FlashAttention-2 style. Twins of shaders/attention_forward.wgsl,
// shaders/attention_backward_dq.wgsl and shaders/attention_backward_dkv.wgsl; CPU references
// attentionForwardRef / attentionBackwardRef in src/reference/attention.ts.
import { Gpu, GpuError, packParams, u32, type Dispatch, type TensorRef } from '../runtime';
import { ceilDiv } from './grid';

export interface AttentionDims {
  B: number; // batch
  T: number; // sequence length
  C: number; // channels; HS = C / NH
  NH: number; // heads
}

/** Rows per workgroup, one per invocation: query rows (forward, dQ) or key rows (dK/dV). */
const WG = 32;
/**
 * Floats per staged tile (tile rows x head-size bound): 2 KiB, so a tile iteration is ~1k FMAs
 * per invocation whatever the head size, and workgroup memory stays small. (SwiftShader's
 * compile time grows with workgroup memory: zero-initialisation, ~2 s per 4 KiB.)
 */
const TILE_FLOATS = 512;
/** The forward's private score row holds at most this many tile rows (shaders' MAX_TILE). */
const MAX_TILE = 32;
/** The shaders keep a head row in MAX_HS4 vec4 registers (shaders' MAX_HS4 = 16). */
export const ATTENTION_MAX_HS = 64;

function headSize(dims: AttentionDims): number {
  const { C, NH } = dims;
  for (const k of ['B', 'T', 'C', 'NH'] as const) {
    if (!Number.isInteger(dims[k]) || dims[k] < 1) throw new GpuError(`attention: ${k} must be a positive integer, got ${dims[k]}`);
  }
  if (C % NH !== 0) throw new GpuError(`attention: C=${C} is not a multiple of NH=${NH}`);
  const HS = C / NH;
  if (HS > ATTENTION_MAX_HS) throw new GpuError(`attention: head size ${HS} exceeds ${ATTENTION_MAX_HS}; use more heads`);
  return HS;
}

function expectSize(ref: TensorRef, floats: number, what: string): void {
  if (ref.size < floats * 4) throw new GpuError(`attention: ${what} holds ${ref.size / 4} floats, needs ${floats}`);
}

function params(gpu: Gpu, dims: AttentionDims, HS: number, label: string): GPUBuffer {
  const { B, T, C, NH } = dims;
  return gpu.uniform(packParams(u32(B), u32(T), u32(C), u32(NH), u32(HS)), label);
}

/**
 * Tile sizes and the head-size bound, fixed per pipeline so the register loops unroll. The
 * bound is HS rounded up to a multiple of 16 (channels past HS are zero), so few head sizes
 * share few pipelines.
 */
function overrides(HS: number): Record<string, number> {
  const HS4 = 4 * ceilDiv(HS, 16);
  return { WG, TILE: Math.min(MAX_TILE, Math.floor(TILE_FLOATS / (4 * HS4))), HS4 };
}

/**
 * out[B,T,C] = softmax(q k^T / sqrt(HS), causal) v per head, heads merged;
 * lse[B,NH,T] = logsumexp of each scaled score row (cached for the backward).
 * qkv[B,T,3C] holds [q | k | v] per position; head h uses channels h*HS .. h*HS+HS-1 of each.
 */
export function attentionForward(gpu: Gpu, out: TensorRef, lse: TensorRef, qkv: TensorRef, dims: AttentionDims): Promise<Dispatch> {
  const HS = headSize(dims);
  const { B, T, C, NH } = dims;
  expectSize(out, B * T * C, 'out');
  expectSize(lse, B * NH * T, 'lse');
  expectSize(qkv, B * T * 3 * C, 'qkv');
  const p = params(gpu, dims, HS, 'attention_forward.params');
  return gpu.kernel('attention_forward', [out, lse, qkv, p], [ceilDiv(T, WG), NH, B], overrides(HS));
}

/**
 * dqkv[B,T,3C] (`=`, overwritten) from dout[B,T,C], using qkv and the forward's out and lse.
 * Two launches: dQ (query-tile parallel; also writes D = rowsum(dout * out) to a scratch buffer
 * made here) then dK/dV (key-tile parallel, reads D). No float atomics.
 */
export async function attentionBackward(
  gpu: Gpu,
  dqkv: TensorRef,
  dout: TensorRef,
  qkv: TensorRef,
  out: TensorRef,
  lse: TensorRef,
  dims: AttentionDims,
): Promise<Dispatch[]> {
  const HS = headSize(dims);
  const { B, T, C, NH } = dims;
  expectSize(dqkv, B * T * 3 * C, 'dqkv');
  expectSize(dout, B * T * C, 'dout');
  expectSize(qkv, B * T * 3 * C, 'qkv');
  expectSize(out, B * T * C, 'out');
  expectSize(lse, B * NH * T, 'lse');
  const dpre = gpu.createBuffer(B * NH * T * 4, 'attention_backward.D'); // (B, NH, T)
  const p = params(gpu, dims, HS, 'attention_backward.params');
  const o = overrides(HS);
  return [
    await gpu.kernel('attention_backward_dq', [dqkv, dpre, dout, qkv, out, lse, p], [ceilDiv(T, WG), NH, B], o),
    await gpu.kernel('attention_backward_dkv', [dqkv, dout, qkv, lse, dpre, p], [ceilDiv(T, WG), NH, B], o),
  ];
}
