// Matmul family: twins of shaders/matmul.wgsl (GEMM with fused alpha, accumulate and bias;
// entry points `main` and `main_vec4`), shaders/matmul_direct.wgsl (the same product, batched and
// strided, for software adapters) and shaders/matmul_bias_backward.wgsl (column sums).
// Every linear layer, the tied LM head, the LoRA adapters and, on software adapters, attention's
// products go through here.
import { Gpu, GpuError, requireElems, f32, packParams, u32, type Dispatch, type KernelVariant, type TensorRef } from '../runtime';
import { ceilDiv, grid1d } from './grid';

export interface MatmulDims { M: number; K: number; N: number }
export interface MatmulOpts {
  transA?: boolean;
  transB?: boolean;
  accumulate?: boolean;
  alpha?: number;
  /** GPT-2's GELU on each result after the bias (gelu_forward's function); not with accumulate */
  gelu?: boolean;
  variant?: KernelVariant;
}

/** Rows and columns of out per workgroup (TILE in shaders/matmul.wgsl). */
const TILE = 64;
/** Columns per workgroup of the bias gradient (COLS in shaders/matmul_bias_backward.wgsl). */
const BIAS_COLS = 32;
/** Rows and columns of out per invocation of shaders/matmul_direct.wgsl (BLOCK). */
const CPU_BLOCK = 8;
/** Invocations per workgroup of the CPU variants: small, so small outputs still spread over cores. */
const DIRECT_WG = 16;

function checkDims(what: string, dims: Record<string, number>): void {
  for (const [k, v] of Object.entries(dims)) {
    if (!Number.isInteger(v) || v < 1) throw new GpuError(`${what}: dimension ${k} must be a positive integer, got ${v}`);
  }
}

const checkSize = requireElems;

/**
 * out[M,N] = alpha * op(A) @ op(B) + (accumulate ? out : 0) + (bias ? bias[N] broadcast over rows : 0).
 * op(A) is A[M,K] or, with transA, A stored [K,M]; op(B) is B[K,N] or, with transB, B stored [N,K].
 * `out` must live in a different buffer from a, b and bias.
 */
export async function matmul(
  gpu: Gpu,
  out: TensorRef,
  a: TensorRef,
  b: TensorRef,
  bias: TensorRef | null,
  dims: MatmulDims,
  opts: MatmulOpts = {},
): Promise<Dispatch> {
  const { M, K, N } = dims;
  checkDims('matmul', { M, K, N });
  const transA = opts.transA ?? false;
  const transB = opts.transB ?? false;
  const accumulate = opts.accumulate ?? false;
  const alpha = opts.alpha ?? 1;
  const gelu = opts.gelu ?? false;
  if (gelu && accumulate) throw new GpuError('matmul: the GELU epilogue applies to a fresh result, not with accumulate');
  checkSize('matmul', 'out', out, M * N);
  checkSize('matmul', 'a', a, M * K);
  checkSize('matmul', 'b', b, K * N);
  if (bias) checkSize('matmul', 'bias', bias, N);
  if (gpu.kernelVariant(opts.variant) === 'direct') {
    const layout = { lda: transA ? M : K, ldb: transB ? K : N, ldc: N };
    return matmulCpu(gpu, out, a, b, bias, { M, K, N, batch: 1, inner: 1 }, layout, { transA, transB, accumulate, alpha, gelu });
  }
  // vec4 path: each stored row of A, B and out (and bias) is a whole number of vec4s; views
  // start at 256-byte offsets, so every row then starts 16-byte aligned.
  const vec4 = (transA ? M : K) % 4 === 0 && (transB ? K : N) % 4 === 0 && N % 4 === 0;
  const name = vec4 ? 'matmul_vec4' : 'matmul';
  const flags = [transA && 'tA', transB && 'tB', accumulate && 'acc', bias && 'bias', gelu && 'gelu'].filter(Boolean).join(',');
  const label = flags ? `${name}[${flags}]` : name;
  const params = gpu.uniform(packParams(u32(M), u32(K), u32(N), f32(alpha)), `${label}.params`);
  const overrides = { TRANS_A: +transA, TRANS_B: +transB, ACCUMULATE: +accumulate, HAS_BIAS: +(bias !== null), GELU: +gelu };
  // without a bias the shader never reads binding 3; b stands in (two read-only views may alias)
  const bindings = [out, a, b, bias ?? b, params];
  return gpu.kernel(name, bindings, grid1d(ceilDiv(M, TILE) * ceilDiv(N, TILE), 1), overrides, label);
}

/** A batch of `batch` products, numbered z = zo * inner + zi (attention: zo = sequence, zi = head). */
export interface BatchedDims extends MatmulDims {
  batch: number;
  inner: number;
}

/**
 * Where a batch lives: row strides (elements) of the stored A, B and out, and the start of
 * entry z = zo * inner + zi in each: xOffset + zo * xOuter + zi * xInner (omitted: 0). The
 * element offsets may point inside rows (a head's channels), where view offsets cannot.
 */
export interface StridedLayout {
  lda: number;
  ldb: number;
  ldc: number;
  aOffset?: number;
  bOffset?: number;
  cOffset?: number;
  aOuter?: number;
  aInner?: number;
  bOuter?: number;
  bInner?: number;
  cOuter?: number;
  cInner?: number;
}

/**
 * Work restrictions for causal attention, whose P and dS are exactly zero above the diagonal
 * (CAUSAL in shaders/matmul_direct.wgsl): 'lower' computes only the blocks of out that hold some
 * n <= m (the rest is left as it was); 'kUpToRow' sums k <= m only, 'kFromRow' k >= m only
 * (per 8-row block, so the terms beyond the diagonal inside a block must be zeros).
 */
export type CausalMode = 'none' | 'lower' | 'kUpToRow' | 'kFromRow';
const CAUSAL_CODE: Record<CausalMode, number> = { none: 0, lower: 1, kUpToRow: 2, kFromRow: 3 };

export interface StridedOpts {
  transA?: boolean;
  transB?: boolean;
  accumulate?: boolean;
  alpha?: number;
  causal?: CausalMode;
}

/**
 * out_z = alpha * op(A_z) @ op(B_z) (+ out_z with accumulate) for every entry z of a strided
 * batch, through shaders/matmul_direct.wgsl on any adapter (the direct design; attention's
 * GPU variant does not use it). op(A_z) is [M,K] stored [M,lda] or, with transA, [K,lda];
 * op(B_z) is [K,N] stored [K,ldb] or, with transB, [N,ldb]; out_z is [M,ldc].
 */
export async function matmulStrided(
  gpu: Gpu,
  out: TensorRef,
  a: TensorRef,
  b: TensorRef,
  dims: BatchedDims,
  layout: StridedLayout,
  opts: StridedOpts = {},
): Promise<Dispatch> {
  const { M, K, N, batch, inner } = dims;
  checkDims('matmulStrided', { M, K, N, batch, inner });
  if (batch % inner !== 0) throw new GpuError(`matmulStrided: batch=${batch} is not a multiple of inner=${inner}`);
  const o = { transA: false, transB: false, accumulate: false, alpha: 1, ...opts };
  const L = layout;
  checkSize('matmulStrided', 'out', out, extent(dims, [M, N], L.ldc, [L.cOffset, L.cOuter, L.cInner]));
  checkSize('matmulStrided', 'a', a, extent(dims, o.transA ? [K, M] : [M, K], L.lda, [L.aOffset, L.aOuter, L.aInner]));
  checkSize('matmulStrided', 'b', b, extent(dims, o.transB ? [N, K] : [K, N], L.ldb, [L.bOffset, L.bOuter, L.bInner]));
  return matmulCpu(gpu, out, a, b, null, dims, layout, o);
}

/** Floats spanned by a strided batch of stored [rows, cols] matrices with row stride ld. */
function extent(dims: BatchedDims, [rows, cols]: number[], ld: number, [offset = 0, outer = 0, innerStride = 0]: (number | undefined)[]): number {
  if (!Number.isInteger(ld) || ld < cols) throw new GpuError(`matmulStrided: row stride ${ld} is shorter than a row of ${cols}`);
  return offset + (dims.batch / dims.inner - 1) * outer + (dims.inner - 1) * innerStride + (rows - 1) * ld + cols;
}

function matmulCpu(
  gpu: Gpu,
  out: TensorRef,
  a: TensorRef,
  b: TensorRef,
  bias: TensorRef | null,
  dims: BatchedDims,
  layout: StridedLayout,
  opts: Required<Omit<StridedOpts, 'causal'>> & { causal?: CausalMode; gelu?: boolean },
): Promise<Dispatch> {
  const { M, K, N, batch, inner } = dims;
  const { transA, transB, accumulate, alpha } = opts;
  const gelu = opts.gelu ?? false;
  const causal = opts.causal ?? 'none';
  const flags = [transA && 'tA', transB && 'tB', accumulate && 'acc', bias && 'bias', gelu && 'gelu', batch > 1 && `x${batch}`, causal !== 'none' && causal]
    .filter(Boolean)
    .join(',');
  const label = flags ? `matmul_direct[${flags}]` : 'matmul_direct';
  const L = { aOffset: 0, bOffset: 0, cOffset: 0, aOuter: 0, aInner: 0, bOuter: 0, bInner: 0, cOuter: 0, cInner: 0, ...layout };
  const params = gpu.uniform(
    packParams(
      u32(M), u32(K), u32(N), f32(alpha),
      u32(L.lda), u32(L.ldb), u32(L.ldc), u32(batch),
      u32(inner), u32(L.aOffset), u32(L.aOuter), u32(L.aInner),
      u32(L.bOffset), u32(L.bOuter), u32(L.bInner), u32(L.cOffset),
      u32(L.cOuter), u32(L.cInner),
    ),
    `${label}.params`,
  );
  const overrides = { TRANS_A: +transA, TRANS_B: +transB, ACCUMULATE: +accumulate, HAS_BIAS: +(bias !== null), GELU: +gelu, CAUSAL: CAUSAL_CODE[causal], WG: DIRECT_WG };
  const blocks = batch * ceilDiv(M, CPU_BLOCK) * ceilDiv(N, CPU_BLOCK);
  return gpu.kernel('matmul_direct', [out, a, b, bias ?? b, params], grid1d(blocks, DIRECT_WG), overrides, label);
}

/** A GPT-2 Conv1D linear layer: out[M,N] = inp[M,K] @ weight[K,N] + bias[N] (weight stored [in, out]). */
export function matmulForward(
  gpu: Gpu,
  out: TensorRef,
  inp: TensorRef,
  weight: TensorRef,
  bias: TensorRef | null,
  dims: MatmulDims,
): Promise<Dispatch> {
  return matmul(gpu, out, inp, weight, bias, dims);
}

/** dbias[N] += column sums of dout[M,N]. */
export async function matmulBiasBackward(
  gpu: Gpu,
  dbias: TensorRef,
  dout: TensorRef,
  dims: { M: number; N: number },
  opts: { variant?: KernelVariant } = {},
): Promise<Dispatch> {
  const { M, N } = dims;
  checkDims('matmulBiasBackward', { M, N });
  checkSize('matmulBiasBackward', 'dbias', dbias, N);
  checkSize('matmulBiasBackward', 'dout', dout, M * N);
  const params = gpu.uniform(packParams(u32(M), u32(N)), 'matmul_bias_backward.params');
  if (gpu.kernelVariant(opts.variant) === 'direct') {
    return gpu.kernel('matmul_bias_backward_direct', [dbias, dout, params], grid1d(N, DIRECT_WG), { WG: DIRECT_WG });
  }
  return gpu.kernel('matmul_bias_backward', [dbias, dout, params], grid1d(ceilDiv(N, BIAS_COLS), 1));
}

/**
 * Backward of matmulForward (inp[M,K], weight[K,N], dout[M,N]):
 *   dinp[M,K]    = dout @ weight^T   (`+=` with opts.accumulateDinp, e.g. on the residual stream)
 *   dweight[K,N] += inp^T @ dout
 *   dbias[N]     += column sums of dout
 * Any of dinp / dweight / dbias may be null (skipped). The dispatches are independent.
 */
export async function matmulBackward(
  gpu: Gpu,
  dinp: TensorRef | null,
  dweight: TensorRef | null,
  dbias: TensorRef | null,
  dout: TensorRef,
  inp: TensorRef,
  weight: TensorRef,
  dims: MatmulDims,
  opts: { accumulateDinp?: boolean; variant?: KernelVariant } = {},
): Promise<Dispatch[]> {
  const { M, K, N } = dims;
  const variant = opts.variant;
  const launches: Promise<Dispatch>[] = [];
  if (dinp) launches.push(matmul(gpu, dinp, dout, weight, null, { M, K: N, N: K }, { transB: true, accumulate: opts.accumulateDinp ?? false, variant }));
  if (dweight) launches.push(matmul(gpu, dweight, inp, dout, null, { M: K, K: M, N }, { transA: true, accumulate: true, variant }));
  if (dbias) launches.push(matmulBiasBackward(gpu, dbias, dout, { M, N }, { variant }));
  return Promise.all(launches);
}
