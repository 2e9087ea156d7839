// Matmul family: twins of shaders/matmul.wgsl (GEMM with fused alpha, accumulate and bias;
// entry points `main` and `main_vec4`) and shaders/matmul_bias_backward.wgsl (column sums).
// Every linear layer, the tied LM head and the LoRA adapters go through `matmul`.
import { Gpu, GpuError, f32, packParams, u32, type Dispatch, type TensorRef } from '../runtime';
import { ceilDiv, grid1d } from './grid';

export interface MatmulDims { M: number; K: number; N: number }
export interface MatmulOpts { transA?: boolean; transB?: boolean; accumulate?: boolean; alpha?: number }

/** Rows and columns of out per workgroup (TILE in shaders/matmul.wgsl). */
const TILE = 64;
/** Columns per workgroup of the bias gradient (COLS in shaders/matmul_bias_backward.wgsl). */
const BIAS_COLS = 32;

function checkDims(what: string, dims: Record<string, number>): void {
  for (const [k, v] of Object.entries(dims)) {
    if (!Number.isInteger(v) || v < 1) throw new GpuError(`${what}: dimension ${k} must be a positive integer, got ${v}`);
  }
}

// Bindings are clamped by WebGPU robustness rather than rejected, so a short view would
// silently read zeros: reject it here instead.
function checkSize(what: string, name: string, ref: TensorRef, elems: number): void {
  if (ref.size < elems * 4) throw new GpuError(`${what}: ${name} holds ${ref.size / 4} floats, needs ${elems}`);
}

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
  checkSize('matmul', 'out', out, M * N);
  checkSize('matmul', 'a', a, M * K);
  checkSize('matmul', 'b', b, K * N);
  if (bias) checkSize('matmul', 'bias', bias, N);
  // vec4 path: each stored row of A, B and out (and bias) is a whole number of vec4s; views
  // start at 256-byte offsets, so every row then starts 16-byte aligned.
  const vec4 = (transA ? M : K) % 4 === 0 && (transB ? K : N) % 4 === 0 && N % 4 === 0;
  const name = vec4 ? 'matmul_vec4' : 'matmul';
  const flags = [transA && 'tA', transB && 'tB', accumulate && 'acc', bias && 'bias'].filter(Boolean).join(',');
  const label = flags ? `${name}[${flags}]` : name;
  const params = gpu.uniform(packParams(u32(M), u32(K), u32(N), f32(alpha)), `${label}.params`);
  const overrides = { TRANS_A: +transA, TRANS_B: +transB, ACCUMULATE: +accumulate, HAS_BIAS: +(bias !== null) };
  // without a bias the shader never reads binding 3; b stands in (two read-only views may alias)
  const bindings = [out, a, b, bias ?? b, params];
  return gpu.kernel(name, bindings, grid1d(ceilDiv(M, TILE) * ceilDiv(N, TILE), 1), overrides, label);
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
export async function matmulBiasBackward(gpu: Gpu, dbias: TensorRef, dout: TensorRef, dims: { M: number; N: number }): Promise<Dispatch> {
  const { M, N } = dims;
  checkDims('matmulBiasBackward', { M, N });
  checkSize('matmulBiasBackward', 'dbias', dbias, N);
  checkSize('matmulBiasBackward', 'dout', dout, M * N);
  const params = gpu.uniform(packParams(u32(M), u32(N)), 'matmul_bias_backward.params');
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
  opts: { accumulateDinp?: boolean } = {},
): Promise<Dispatch[]> {
  const { M, K, N } = dims;
  const launches: Promise<Dispatch>[] = [];
  if (dinp) launches.push(matmul(gpu, dinp, dout, weight, null, { M, K: N, N: K }, { transB: true, accumulate: opts.accumulateDinp ?? false }));
  if (dweight) launches.push(matmul(gpu, dweight, inp, dout, null, { M: K, K: M, N }, { transA: true, accumulate: true }));
  if (dbias) launches.push(matmulBiasBackward(gpu, dbias, dout, { M, N }));
  return Promise.all(launches);
}
