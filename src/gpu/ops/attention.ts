// Causal multi-head self-attention. Twins of shaders/attention_forward.wgsl,
// shaders/attention_backward_dq.wgsl and shaders/attention_backward_dkv.wgsl (FlashAttention-2
// style: the GPU design) and of shaders/attention_softmax_direct.wgsl and
// shaders/attention_softmax_backward_direct.wgsl (the CPU-adapter design: the T x T scores are
// materialised and the products go through matmulStrided, since staged tiles and barriers are
// what CPU drivers do worst). CPU references attentionForwardRef / attentionBackwardRef in
// src/reference/attention.ts.
import { Gpu, GpuError, requireElems, packParams, u32, view, type Dispatch, type TensorRef, type KernelVariant } from '../runtime';
import { ceilDiv, grid1d } from './grid';
import { matmulStrided, type StridedLayout } from './matmul';

export interface AttentionOptions {
  /** the kernel design (default: by adapter, see Gpu.kernelVariant) */
  variant?: KernelVariant;
}

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
/** Rows (invocations) per workgroup of the CPU variant's row kernels. */
const DIRECT_WG = 16;
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

const expectSize = (ref: TensorRef, floats: number, what: string): void => requireElems('attention', what, ref, floats);

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
 * The single flash-attention launch (the GPU design, on any adapter); a model records
 * attentionForwardSteps, which picks the design by adapter.
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
 * The same forward as attentionForward (out, lse), in the design the variant picks: the flash
 * launch ('tiled'), or three launches ('direct'): S = Q K^T / sqrt(HS) into a scratch [B,NH,T,T]
 * made here, the row softmax (P, lse), then out = P V.
 */
export async function attentionForwardSteps(
  gpu: Gpu,
  out: TensorRef,
  lse: TensorRef,
  qkv: TensorRef,
  dims: AttentionDims,
  opts: AttentionOptions = {},
): Promise<Dispatch[]> {
  if (gpu.kernelVariant(opts.variant) === 'tiled') return [await attentionForward(gpu, out, lse, qkv, dims)];
  const HS = headSize(dims);
  const { B, T, C, NH } = dims;
  expectSize(out, B * T * C, 'out');
  expectSize(lse, B * NH * T, 'lse');
  expectSize(qkv, B * T * 3 * C, 'qkv');
  const att = scoresBuffer(gpu, dims, 'attention_direct.att');
  const L = cpuLayouts(dims, HS);
  const bt = { batch: B * NH, inner: NH };
  const rows = rowParams(gpu, dims, 'attention_softmax_direct.params');
  return Promise.all([
    matmulStrided(gpu, att, qkv, qkv, { M: T, K: HS, N: T, ...bt }, L.scores(L.q, L.k), { transB: true, alpha: 1 / Math.sqrt(HS), causal: 'lower' }),
    gpu.kernel('attention_softmax_direct', [att, lse, rows], grid1d(B * NH * T, DIRECT_WG), { WG: DIRECT_WG }),
    matmulStrided(gpu, out, att, qkv, { M: T, K: T, N: HS, ...bt }, L.fromScores(L.v, L.o), { causal: 'kUpToRow' }),
  ]);
}

/** A scratch [B, NH, T, T] of scores (then probabilities) for the CPU variant. */
function scoresBuffer(gpu: Gpu, dims: AttentionDims, label: string): TensorRef {
  const n = dims.B * dims.NH * dims.T * dims.T;
  return view(gpu.createBuffer(n * 4, label), 0, n);
}

function rowParams(gpu: Gpu, dims: AttentionDims, label: string): GPUBuffer {
  const { B, T, NH } = dims;
  return gpu.uniform(packParams(u32(B * NH * T), u32(T)), label);
}

/** Where one head's [T, HS] slice of a tensor lives: offset of (b=0, h=0), row stride, strides per b and h. */
interface HeadSlice { off: number; ld: number; outer: number; inner: number }

/**
 * The strided layouts of the CPU variant's products, batch entry z = b * NH + h. Head slices
 * of qkv [B,T,3C] (q at channel 0, k at C, v at 2C) and of [B,T,C] tensors (out, dout), and
 * the dense scores [B,NH,T,T].
 */
function cpuLayouts(dims: AttentionDims, HS: number) {
  const { T, C, NH } = dims;
  const inQkv = (off: number): HeadSlice => ({ off, ld: 3 * C, outer: T * 3 * C, inner: HS });
  const inC: HeadSlice = { off: 0, ld: C, outer: T * C, inner: HS };
  const S: HeadSlice = { off: 0, ld: T, outer: NH * T * T, inner: T * T };
  const layout = (a: HeadSlice, b: HeadSlice, c: HeadSlice): StridedLayout => ({
    lda: a.ld, ldb: b.ld, ldc: c.ld, aOffset: a.off, bOffset: b.off, cOffset: c.off,
    aOuter: a.outer, aInner: a.inner, bOuter: b.outer, bInner: b.inner, cOuter: c.outer, cInner: c.inner,
  });
  return {
    q: inQkv(0), k: inQkv(C), v: inQkv(2 * C), o: inC,
    /** scores[z] (x) = a_z (.) b_z^T, both head slices */
    scores: (a: HeadSlice, b: HeadSlice) => layout(a, b, S),
    /** c_z = scores_z (.) b_z, a head slice */
    fromScores: (b: HeadSlice, c: HeadSlice) => layout(S, b, c),
  };
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
  opts: AttentionOptions = {},
): Promise<Dispatch[]> {
  const HS = headSize(dims);
  const { B, T, C, NH } = dims;
  expectSize(dqkv, B * T * 3 * C, 'dqkv');
  expectSize(dout, B * T * C, 'dout');
  expectSize(qkv, B * T * 3 * C, 'qkv');
  expectSize(out, B * T * C, 'out');
  expectSize(lse, B * NH * T, 'lse');
  if (gpu.kernelVariant(opts.variant) === 'direct') return attentionBackwardDirect(gpu, dqkv, dout, qkv, lse, dims, HS);
  const dpre = gpu.createBuffer(B * NH * T * 4, 'attention_backward.D'); // (B, NH, T)
  const p = params(gpu, dims, HS, 'attention_backward.params');
  const o = overrides(HS);
  return [
    await gpu.kernel('attention_backward_dq', [dqkv, dpre, dout, qkv, out, lse, p], [ceilDiv(T, WG), NH, B], o),
    await gpu.kernel('attention_backward_dkv', [dqkv, dout, qkv, lse, dpre, p], [ceilDiv(T, WG), NH, B], o),
  ];
}

/**
 * The CPU variant of attentionBackward, six launches over two scratch [B,NH,T,T] made here:
 * S = Q K^T / sqrt(HS) and dP = dO V^T, the row step (P from lse; dS = P (dP - D)), then
 * dV = P^T dO, dQ = dS K / sqrt(HS), dK = dS^T Q / sqrt(HS) into dqkv (`=`). `out` is not
 * needed: D = rowsum(P dP) equals rowsum(dO out).
 */
async function attentionBackwardDirect(gpu: Gpu, dqkv: TensorRef, dout: TensorRef, qkv: TensorRef, lse: TensorRef, dims: AttentionDims, HS: number): Promise<Dispatch[]> {
  const { B, T, NH } = dims;
  const att = scoresBuffer(gpu, dims, 'attention_direct.att_bwd');
  const datt = scoresBuffer(gpu, dims, 'attention_direct.datt');
  const L = cpuLayouts(dims, HS);
  const bt = { batch: B * NH, inner: NH };
  const scale = 1 / Math.sqrt(HS);
  const rows = rowParams(gpu, dims, 'attention_softmax_backward_direct.params');
  // dq, dk, dv: the q, k, v head slices of dqkv
  return Promise.all([
    matmulStrided(gpu, att, qkv, qkv, { M: T, K: HS, N: T, ...bt }, L.scores(L.q, L.k), { transB: true, alpha: scale, causal: 'lower' }),
    matmulStrided(gpu, datt, dout, qkv, { M: T, K: HS, N: T, ...bt }, L.scores(L.o, L.v), { transB: true, causal: 'lower' }),
    gpu.kernel('attention_softmax_backward_direct', [att, datt, lse, rows], grid1d(B * NH * T, DIRECT_WG), { WG: DIRECT_WG }),
    matmulStrided(gpu, dqkv, att, dout, { M: T, K: T, N: HS, ...bt }, L.fromScores(L.o, L.v), { transA: true, causal: 'kFromRow' }),
    matmulStrided(gpu, dqkv, datt, qkv, { M: T, K: T, N: HS, ...bt }, L.fromScores(L.k, L.q), { alpha: scale, causal: 'kUpToRow' }),
    matmulStrided(gpu, dqkv, datt, qkv, { M: T, K: T, N: HS, ...bt }, L.fromScores(L.q, L.k), { transA: true, alpha: scale, causal: 'kFromRow' }),
  ]);
}
