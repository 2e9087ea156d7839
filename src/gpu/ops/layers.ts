// LayerNorm, GELU, the token + position embedding ("encoder" in llm.c), and two utilities.
// Twins of shaders/layernorm_*.wgsl, gelu_*.wgsl, encoder_*.wgsl, accumulate.wgsl, fill.wgsl.
import { Gpu, GpuError, f32, packParams, u32, type Dispatch, type TensorRef } from '../runtime';
import type { KernelName } from '../kernels';
import { ceilDiv, grid1d } from './grid';

const WG = 256;

/** Row-kernel layout: invocations per row (LANES) and rows per workgroup (ROWS). */
export interface RowLayout {
  LANES: number;
  ROWS: number;
}

/**
 * Rows of at most 32 loads (C <= 128 with vec4) get one invocation each: no workgroup memory
 * and no barriers, which on CPU drivers (SwiftShader) runs ~40x faster than a shared-memory
 * tree (barriers there are fiber switches), and on GPUs keeps rows of this size a few microseconds. Longer rows get a tree over
 * LANES invocations, about two loads per lane, a warp at least.
 */
function rowLayout(C: number, vec4: boolean, N: number, forced?: RowLayout): RowLayout {
  if (forced) {
    const { LANES, ROWS } = forced;
    if (LANES !== nextPow2(LANES) || LANES * ROWS > 256 || ROWS < 1) throw new GpuError(`bad row layout ${LANES}x${ROWS}`);
    return forced;
  }
  const perRow = vec4 ? C / 4 : C;
  // 64 rows a workgroup, 8 under 512 rows (a decode step's 64 rows): CPU drivers run a workgroup
  // on one core, so one workgroup of 64 rows used one core of many. Two layouts, not one per row
  // count: prefills of new lengths compile at most one more pipeline. (On a GPU, 8 short rows a
  // workgroup should cost about what 64 do at these counts; not measured.)
  if (perRow <= 32) return { LANES: 1, ROWS: N < 512 ? 8 : 64 };
  const LANES = Math.min(256, Math.max(32, nextPow2(Math.ceil(perRow / 2))));
  return { LANES, ROWS: 256 / LANES };
}

function nextPow2(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

function checkPositive(op: string, dims: Record<string, number>): void {
  for (const [k, v] of Object.entries(dims)) {
    if (!Number.isInteger(v) || v < 1) throw new GpuError(`${op}: ${k} must be a positive integer, got ${v}`);
  }
}

/** LayerNorm over the last dim C of N rows, eps = 1e-5, with weight and bias; caches mean[N], rstd[N]. */
export function layernormForward(
  gpu: Gpu,
  out: TensorRef, // (N, C)
  mean: TensorRef, // (N)
  rstd: TensorRef, // (N)
  inp: TensorRef, // (N, C)
  weight: TensorRef, // (C)
  bias: TensorRef, // (C)
  dims: { N: number; C: number },
  opts: { layout?: RowLayout } = {},
): Promise<Dispatch> {
  const { N, C } = dims;
  checkPositive('layernormForward', dims);
  const vec4 = C % 4 === 0;
  const layout = rowLayout(C, vec4, N, opts.layout);
  const params = gpu.uniform(packParams(u32(N), u32(C)), 'layernorm_forward.params');
  return gpu.kernel(vec4 ? 'layernorm_forward_vec4' : 'layernorm_forward', [out, mean, rstd, inp, weight, bias, params], grid1d(N, layout.ROWS), { LANES: layout.LANES, ROWS: layout.ROWS });
}

/**
 * LayerNorm backward: dinp += (the residual stream accumulates), dweight +=, dbias +=.
 * Three dispatches: the per-row input gradient, then a two-pass column reduction of the
 * weight and bias gradients through a scratch buffer of chunk partials allocated here.
 */
export function layernormBackward(
  gpu: Gpu,
  dinp: TensorRef, // (N, C) +=
  dweight: TensorRef, // (C) +=
  dbias: TensorRef, // (C) +=
  dout: TensorRef, // (N, C)
  inp: TensorRef, // (N, C)
  weight: TensorRef, // (C)
  mean: TensorRef, // (N)
  rstd: TensorRef, // (N)
  dims: { N: number; C: number },
  opts: { layout?: RowLayout } = {},
): Promise<Dispatch[]> {
  const { N, C } = dims;
  checkPositive('layernormBackward', dims);
  const vec4 = C % 4 === 0;
  const layout = rowLayout(C, vec4, N, opts.layout);
  const rowParams = gpu.uniform(packParams(u32(N), u32(C)), 'layernorm_backward_dinp.params');
  // About sqrt(N) chunks of about sqrt(N) rows balances the two passes; at most 4096 chunks
  // keeps the grid's y below 65535.
  const CHUNK = Math.max(Math.ceil(Math.sqrt(N)), Math.ceil(N / 4096));
  const K = ceilDiv(N, CHUNK);
  const part = gpu.createBuffer(2 * K * C * 4, 'layernorm_backward.part'); // (2, K, C)
  const partParams = gpu.uniform(packParams(u32(N), u32(C), u32(CHUNK), u32(K)), 'layernorm_backward_params.params');
  const reduceParams = gpu.uniform(packParams(u32(C), u32(K)), 'layernorm_backward_reduce.params');
  const colGroups = ceilDiv(vec4 ? C / 4 : C, 64);
  if (colGroups > 65535) throw new GpuError(`layernormBackward: C=${C} exceeds the grid`);
  return Promise.all([
    gpu.kernel(vec4 ? 'layernorm_backward_dinp_vec4' : 'layernorm_backward_dinp', [dinp, dout, inp, weight, mean, rstd, rowParams], grid1d(N, layout.ROWS), { LANES: layout.LANES, ROWS: layout.ROWS }),
    gpu.kernel(vec4 ? 'layernorm_backward_params_vec4' : 'layernorm_backward_params', [part, dout, inp, mean, rstd, partParams], [colGroups, K], { WG: 64 }),
    gpu.kernel('layernorm_backward_reduce', [dweight, dbias, part, reduceParams], grid1d(C, 64), { WG: 64 }),
  ]);
}

/** GELU, tanh approximation exactly as GPT-2: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). out may not alias inp. */
export function geluForward(gpu: Gpu, out: TensorRef /* (n) */, inp: TensorRef /* (n) */, n: number): Promise<Dispatch> {
  checkPositive('geluForward', { n });
  const params = gpu.uniform(packParams(u32(n)), 'gelu_forward.params');
  return elementwise(gpu, 'gelu_forward', 'gelu_forward_vec4', [out, inp, params], n);
}

/** dinp = gelu'(inp) * dout (an activation gradient: =, not +=). */
export function geluBackward(gpu: Gpu, dinp: TensorRef /* (n) = */, inp: TensorRef /* (n) */, dout: TensorRef /* (n) */, n: number): Promise<Dispatch> {
  checkPositive('geluBackward', { n });
  const params = gpu.uniform(packParams(u32(n)), 'gelu_backward.params');
  return elementwise(gpu, 'gelu_backward', 'gelu_backward_vec4', [dinp, inp, dout, params], n);
}

/** out[B,T,C] = wte[tokens[b,t], :] + wpe[t, :]; tokens is u32 [B*T], each < V; wte [V,C]; wpe [Tmax,C], T <= Tmax. */
export function encoderForward(
  gpu: Gpu,
  out: TensorRef, // (B, T, C)
  tokens: TensorRef, // (B, T) u32
  wte: TensorRef, // (V, C)
  wpe: TensorRef, // (Tmax, C)
  dims: { B: number; T: number; C: number },
): Promise<Dispatch> {
  const { B, T, C } = dims;
  checkPositive('encoderForward', dims);
  if (wpe.size < T * C * 4) throw new GpuError(`encoderForward: wpe holds ${Math.floor(wpe.size / 4 / C)} positions, T=${T}`);
  const params = gpu.uniform(packParams(u32(B), u32(T), u32(C)), 'encoder_forward.params');
  const vec4 = C % 4 === 0;
  const n = vec4 ? (B * T * C) / 4 : B * T * C;
  return gpu.kernel(vec4 ? 'encoder_forward_vec4' : 'encoder_forward', [out, tokens, wte, wpe, params], grid1d(n, WG), { WG });
}

/**
 * dwte += scatter of dout rows by token id, deterministic and without float atomics: a
 * counting sort of the positions by token id (V * B * T compares, scratch allocated here),
 * then one invocation per (v, c) sums its rows. dwpe += sum over b of dout (rows t < T only).
 */
export function encoderBackward(
  gpu: Gpu,
  dwte: TensorRef, // (V, C) +=
  dwpe: TensorRef, // (Tmax, C) +=
  dout: TensorRef, // (B, T, C)
  tokens: TensorRef, // (B, T) u32
  dims: { B: number; T: number; C: number; V: number },
): Promise<Dispatch[]> {
  const { B, T, C, V } = dims;
  checkPositive('encoderBackward', dims);
  const BT = B * T;
  const order = gpu.createBuffer(BT * 4, 'encoder_backward.order'); // (B * T) u32
  const bucket = gpu.createBuffer(V * 8, 'encoder_backward.bucket'); // (V) start, count
  const wteParams = gpu.uniform(packParams(u32(BT), u32(C), u32(V)), 'encoder_backward_wte.params');
  const wpeParams = gpu.uniform(packParams(u32(B), u32(T), u32(C)), 'encoder_backward_wpe.params');
  const vec4 = C % 4 === 0;
  const C4 = vec4 ? C / 4 : C;
  // the sort has only V invocations: small workgroups spread them over more cores
  return Promise.all([
    gpu.kernel(BT % 4 === 0 ? 'encoder_backward_sort_vec4' : 'encoder_backward_sort', [order, bucket, tokens, wteParams], grid1d(V, 16), { WG: 16 }),
    gpu.kernel(vec4 ? 'encoder_backward_wte_vec4' : 'encoder_backward_wte', [dwte, dout, order, bucket, wteParams], grid1d(V * C4, 64), { WG: 64 }),
    gpu.kernel(vec4 ? 'encoder_backward_wpe_vec4' : 'encoder_backward_wpe', [dwpe, dout, wpeParams], grid1d(T * C4, WG), { WG }),
  ]);
}

/** out[i] += a[i] (gradient accumulation on the residual stream). out may not alias a. */
export function accumulate(gpu: Gpu, out: TensorRef /* (n) += */, a: TensorRef /* (n) */, n: number): Promise<Dispatch> {
  checkPositive('accumulate', { n });
  const params = gpu.uniform(packParams(u32(n)), 'accumulate.params');
  return elementwise(gpu, 'accumulate', 'accumulate_vec4', [out, a, params], n);
}

/** out[i] = value (zeroing gradient buffers inside a step's command buffer). */
export function fill(gpu: Gpu, out: TensorRef /* (n) */, value: number, n: number): Promise<Dispatch> {
  checkPositive('fill', { n });
  const params = gpu.uniform(packParams(u32(n), f32(value)), 'fill.params');
  return elementwise(gpu, 'fill', 'fill_vec4', [out, params], n);
}

/** An elementwise kernel over n floats: its vec4 entry (four per invocation) when n % 4 == 0. */
function elementwise(gpu: Gpu, scalar: KernelName, vec4: KernelName, bindings: (TensorRef | GPUBuffer)[], n: number): Promise<Dispatch> {
  if (n % 4 === 0) return gpu.kernel(vec4, bindings, grid1d(n / 4, WG), { WG });
  return gpu.kernel(scalar, bindings, grid1d(n, WG), { WG });
}
