// Decoding kernels: batched autoregressive sampling with a KV cache, a position per sequence.
// Twins of shaders/encoder_decode.wgsl, kv_cache_write.wgsl, attention_decode.wgsl,
// sample_step.wgsl, decode_advance.wgsl and kv_fork.wgsl.
//
// The current position of each sequence lives on the GPU (`step`, one per sequence: rows need
// not be in lockstep), so a whole generation can be recorded once and encoded into one command
// buffer with no readback inside the loop. One decode step, sequence b at position s = step[b]:
//   encoderDecode (x = wte[tokens[b, s]] + wpe[s])
//   per layer: LN, qkv matmul, kvCacheWrite, attentionDecode, projection, MLP (the model's)
//   final LN, LM head -> logits (B, V)
//   sampleStep (writes tokens[b, s+1], logp, entropy, done), decodeAdvance (every step[b] += 1)
// Before a generation: write the prompts into `tokens` (row b = prompt b from position 0),
// `promptLen` (>= 1), zero `done`, set `step` (0, or where each row's decoding starts after a
// prefill) and a fresh seed. Positions after a
// sequence's end are never written: zero tokens/logp/entropy too when buffers are reused.
// Running the step past s = Tmax - 1 is harmless (nothing is written, attention clamps).
import { Gpu, f32, packParams, u32, view, type Dispatch, type TensorRef, type KernelVariant } from '../runtime';
import { grid1d } from './grid';

export interface DecodeDims {
  B: number;
  C: number;
  NH: number;
  Tmax: number;
  V: number;
}

export interface DecodeBuffers {
  /** u32 (B): the current position of each sequence */
  step: TensorRef;
  /** u32 (B, Tmax): prompt then sampled tokens */
  tokens: TensorRef;
  /** u32 (B): prompt lengths, >= 1 */
  promptLen: TensorRef;
  /** u32 (B): 1 once a sequence emitted eos or maxNew tokens */
  done: TensorRef;
  /** f32 (B, Tmax): log q(token) under the sampling distribution; 0 at prompt positions */
  logp: TensorRef;
  /** f32 (B, Tmax): entropy of the sampling distribution that drew the token; 0 at prompt positions */
  entropy: TensorRef;
}

/**
 * A prefill dispatch of encoderDecode, kvCacheWrite and attentionDecode: `Q` consecutive positions
 * of every `G`-th sequence at once, rows r = k*Q + i (sequence b = k*G, position step[b] + i).
 * Decoding is Q = G = 1. Row for row, the arithmetic is the decode step's: a prefilled
 * position gets bit for bit the values the token-by-token path gives it.
 */
export interface PrefillShape {
  Q: number;
  G: number;
}

const DECODE_SHAPE: PrefillShape = { Q: 1, G: 1 };

/** Rows of a dispatch of `shape` (B/G sequences × Q positions), checked. */
function rowsOf(d: DecodeDims, shape: PrefillShape): number {
  const { Q, G } = shape;
  if (!Number.isInteger(Q) || Q < 1 || Q > d.Tmax || !Number.isInteger(G) || G < 1 || d.B % G !== 0) {
    throw new RangeError(`prefill shape Q=${Q}, G=${G}: needs 1 <= Q <= Tmax=${d.Tmax} and G dividing B=${d.B}`);
  }
  return (d.B / G) * Q;
}

export interface SampleOpts {
  /** 0 = greedy (argmax, lowest index on ties) */
  temperature: number;
  /** keep the k most probable tokens; 0 = off */
  topK: number;
  /** keep the smallest nucleus with cumulative probability >= topP, in (0, 1]; 1 = off */
  topP: number;
  /** u32 seed of the counter-based generator: a draw depends only on (seed, b, position) */
  seed: number;
  /** token id that ends a sequence (any id >= V disables it) */
  eosToken: number;
  /** a sequence is done after this many sampled tokens, >= 1 */
  maxNew: number;
}

const WG = 256;
const ATTN_WG = 64;
const ATTN_DMAX = 4; // DMAX in attention_decode.wgsl
const ATTN_DIRECT_WG = 16;
const SAMPLE_DIRECT_WG = 16;
const SAMPLE_DIRECT_VMAX = 256; // VMAX in sample_step_direct.wgsl
const ATTN_DIRECT_HMAX = 64; // HMAX in attention_decode_direct.wgsl (main_scalar)
const ATTN_DIRECT_H4MAX = 16; // vec4 slots of attention_decode_direct.wgsl's main

/** Allocates the decoding state, zero-filled (WebGPU zero-initialises buffers). */
export function createDecodeBuffers(gpu: Gpu, B: number, Tmax: number): DecodeBuffers {
  const ref = (elems: number, label: string): TensorRef => view(gpu.createBuffer(elems * 4, label), 0, elems);
  return {
    step: ref(B, 'decode.step'),
    tokens: ref(B * Tmax, 'decode.tokens'),
    promptLen: ref(B, 'decode.promptLen'),
    done: ref(B, 'decode.done'),
    logp: ref(B * Tmax, 'decode.logp'),
    entropy: ref(B * Tmax, 'decode.entropy'),
  };
}

function checkDims(d: DecodeDims): number {
  for (const [k, v] of Object.entries(d)) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`decode dims: ${k} must be a positive integer, got ${v}`);
  }
  if (d.C % d.NH !== 0) throw new RangeError(`decode dims: C=${d.C} is not a multiple of NH=${d.NH}`);
  return d.C / d.NH;
}

/** out (B, C) = wte[tokens[b, s]] + wpe[s] at s = step[b] (rows (B/G)·Q under a prefill shape). */
export async function encoderDecode(gpu: Gpu, out: TensorRef, st: DecodeBuffers, wte: TensorRef, wpe: TensorRef, dims: DecodeDims, shape: PrefillShape = DECODE_SHAPE): Promise<Dispatch> {
  checkDims(dims);
  const { C, Tmax } = dims;
  const R = rowsOf(dims, shape);
  const params = gpu.uniform(packParams(u32(R), u32(C), u32(Tmax), u32(shape.Q), u32(shape.G)), 'encoder_decode.params');
  return gpu.kernel('encoder_decode', [out, st.tokens, wte, wpe, st.step, params], grid1d(R * C, WG), { WG });
}

/** Stores k, v of position s = step[b] from qkv (B, 3C) into one layer's caches (B, NH, Tmax, HS) (rows as `shape` says). */
export async function kvCacheWrite(gpu: Gpu, kcache: TensorRef, vcache: TensorRef, qkv: TensorRef, st: DecodeBuffers, dims: DecodeDims, shape: PrefillShape = DECODE_SHAPE): Promise<Dispatch> {
  checkDims(dims);
  const { C, NH, Tmax } = dims;
  const R = rowsOf(dims, shape);
  const params = gpu.uniform(packParams(u32(R), u32(C), u32(NH), u32(Tmax), u32(shape.Q), u32(shape.G)), 'kv_cache_write.params');
  return gpu.kernel('kv_cache_write', [kcache, vcache, qkv, st.step, params], grid1d(R * C, WG), { WG });
}

/** out (B, C) = causal attention of q at s = step[b] over cached positions 0..s, scale 1/sqrt(HS) (rows as `shape` says). */
export async function attentionDecode(
  gpu: Gpu,
  out: TensorRef,
  qkv: TensorRef,
  kcache: TensorRef,
  vcache: TensorRef,
  st: DecodeBuffers,
  dims: DecodeDims,
  opts: { variant?: KernelVariant; shape?: PrefillShape; /** forces the direct design's scalar entry (tests, bench) */ direct?: 'scalar' } = {},
): Promise<Dispatch> {
  const HS = checkDims(dims);
  if (HS > ATTN_WG * ATTN_DMAX) throw new RangeError(`attentionDecode: head size ${HS} exceeds ${ATTN_WG * ATTN_DMAX}`);
  const { C, NH, Tmax } = dims;
  const shape = opts.shape ?? DECODE_SHAPE;
  const R = rowsOf(dims, shape);
  const params = gpu.uniform(packParams(u32(R), u32(C), u32(NH), u32(Tmax), f32(1 / Math.sqrt(HS)), u32(shape.Q), u32(shape.G)), 'attention_decode.params');
  const bindings = [out, qkv, kcache, vcache, st.step, params];
  // the direct design keeps a head in registers: vec4 slots when the head and the width are
  // multiples of 4 (main), otherwise one f32 array (main_scalar), up to ATTN_DIRECT_HMAX channels
  if (gpu.kernelVariant(opts.variant) === 'direct' && HS <= ATTN_DIRECT_HMAX) {
    if (HS % 4 === 0 && HS / 4 <= ATTN_DIRECT_H4MAX && opts.direct !== 'scalar') {
      return gpu.kernel('attention_decode_direct', bindings, grid1d(R * NH, ATTN_DIRECT_WG), { WG: ATTN_DIRECT_WG, HS4: HS / 4 });
    }
    return gpu.kernel('attention_decode_direct_scalar', bindings, grid1d(R * NH, ATTN_DIRECT_WG), { WG: ATTN_DIRECT_WG });
  }
  if (R > gpu.limits.maxComputeWorkgroupsPerDimension) throw new RangeError(`attentionDecode: ${R} query rows exceed the ${gpu.limits.maxComputeWorkgroupsPerDimension} workgroups of one grid dimension`);
  return gpu.kernel('attention_decode', bindings, [NH, R], { WG: ATTN_WG });
}

function sampleParams(dims: DecodeDims, o: SampleOpts): ArrayBuffer {
  if (!(Number.isFinite(o.temperature) && o.temperature >= 0)) throw new RangeError(`sampleStep: temperature must be >= 0, got ${o.temperature}`);
  if (!Number.isInteger(o.topK) || o.topK < 0) throw new RangeError(`sampleStep: topK must be an integer >= 0 (0 = off), got ${o.topK}`);
  if (!(o.topP > 0 && o.topP <= 1)) throw new RangeError(`sampleStep: topP must lie in (0, 1] (1 = off), got ${o.topP}`);
  if (!Number.isInteger(o.maxNew) || o.maxNew < 1) throw new RangeError(`sampleStep: maxNew must be an integer >= 1, got ${o.maxNew}`);
  return packParams(
    u32(dims.B), u32(dims.V), u32(dims.Tmax), u32(o.topK),
    f32(o.temperature), f32(o.topP), u32(o.seed), u32(o.eosToken),
    u32(o.maxNew),
  );
}

const SAMPLE_TPT = 8; // TPT in sample_step.wgsl: tokens per invocation

/** Invocations per sequence and the staged row size; the row and the partials must fit in workgroup memory. */
function sampleWorkgroup(gpu: Gpu, V: number): { WG: number; VCAP: number } {
  // about 4 tokens per invocation (the ranking loop is O(V) per token), 16 to 256 invocations
  const wg = Math.min(256, Math.max(16, 2 ** Math.ceil(Math.log2(Math.ceil(V / 4)))));
  const VCAP = Math.max(4, 2 ** Math.ceil(Math.log2(V)));
  const bytes = VCAP * 8 + wg * 16 + 16;
  if (V > SAMPLE_TPT * wg || bytes > gpu.limits.maxComputeWorkgroupStorageSize) {
    throw new RangeError(`sampleStep: V=${V} exceeds the sampler's limit (${SAMPLE_TPT * wg} tokens, ${bytes} bytes of workgroup memory)`);
  }
  return { WG: wg, VCAP };
}

/**
 * The fused sampling step for position s + 1 (see shaders/sample_step.wgsl). `setOpts`
 * rewrites the uniform (a new seed per generation, other temperatures) without re-recording.
 */
export async function sampleStep(
  gpu: Gpu,
  st: DecodeBuffers,
  logits: TensorRef,
  dims: DecodeDims,
  opts: SampleOpts,
  design: { variant?: KernelVariant } = {},
): Promise<{ dispatch: Dispatch; setOpts(o: SampleOpts): void }> {
  checkDims(dims);
  const params = gpu.uniform(sampleParams(dims, opts), 'sample_step.params');
  const bindings = [st.tokens, st.logp, st.entropy, st.done, logits, st.step, st.promptLen, params];
  const tiled = sampleWorkgroup(gpu, dims.V);
  // the direct design repeats the tiled kernel's sums in its order (PART = its WG): the same draws
  const dispatch = gpu.kernelVariant(design.variant) === 'direct' && dims.V <= SAMPLE_DIRECT_VMAX
    ? await gpu.kernel('sample_step_direct', bindings, grid1d(dims.B, SAMPLE_DIRECT_WG), { WG: SAMPLE_DIRECT_WG, PART: tiled.WG, VCAP: tiled.VCAP })
    : await gpu.kernel('sample_step', bindings, [dims.B], tiled);
  return { dispatch, setOpts: (o: SampleOpts) => gpu.write(params, sampleParams(dims, o)) };
}

/** step[b] += 1 for every sequence: the last dispatch of a decode step. */
export async function decodeAdvance(gpu: Gpu, st: DecodeBuffers): Promise<Dispatch> {
  return gpu.kernel('decode_advance', [st.step], grid1d(st.step.size / 4, 64), { WG: 64 });
}

/**
 * Copies cache positions 0..upTo-1 of slot `src` into slots dst0..dst0+count-1. kcache and
 * vcache may hold one layer (B, NH, Tmax, HS) or every layer (L, B, NH, Tmax, HS); L is read
 * off their size. With `groups` (default 1), the same copy for slots shifted by g·stride,
 * g < groups: every group of a batch forked in one dispatch. Tokens and promptLen of the new
 * slots are the caller's to copy.
 */
export async function kvFork(
  gpu: Gpu,
  kcache: TensorRef,
  vcache: TensorRef,
  dims: DecodeDims,
  fork: { src: number; dst0: number; count: number; upTo: number; groups?: number; stride?: number },
): Promise<Dispatch> {
  const HS = checkDims(dims);
  const { B, NH, Tmax } = dims;
  const { src, dst0, count, upTo } = fork;
  const groups = fork.groups ?? 1, stride = fork.stride ?? 0;
  const perLayer = B * NH * Tmax * HS * 4;
  const L = kcache.size / perLayer;
  if (!Number.isInteger(L) || L < 1 || vcache.size !== kcache.size) {
    throw new RangeError(`kvFork: caches of ${kcache.size} and ${vcache.size} bytes are not L x (B, NH, Tmax, HS) = L x ${perLayer} bytes`);
  }
  const ints = [src, dst0, count, upTo, stride];
  const last = (groups - 1) * stride;
  if (ints.some((v) => !Number.isInteger(v) || v < 0) || !Number.isInteger(groups) || groups < 1 || src + last >= B || dst0 + last + count > B || upTo > Tmax) {
    throw new RangeError(`kvFork: src=${src}, dst0=${dst0}, count=${count}, upTo=${upTo}, groups=${groups}, stride=${stride} out of range for B=${B}, Tmax=${Tmax}`);
  }
  // every source against every destination range (groups may interleave when stride < count)
  const dsts = new Set<number>();
  for (let g = 0; g < groups; g++) for (let j = 0; j < count; j++) dsts.add(dst0 + g * stride + j);
  for (let g = 0; g < groups; g++) {
    const s = src + g * stride;
    if (dsts.has(s)) throw new RangeError(`kvFork: source slot ${s} lies in the destination range [${dst0 + g * stride}, ${dst0 + g * stride + count}) or another group's`);
  }
  if (dsts.size !== groups * count) throw new RangeError(`kvFork: groups ${stride} apart overlap their ${count} destinations`);
  const params = gpu.uniform(
    packParams(u32(L), u32(B), u32(NH), u32(Tmax), u32(HS), u32(src), u32(dst0), u32(count), u32(upTo), u32(groups), u32(stride)),
    'kv_fork.params',
  );
  return gpu.kernel('kv_fork', [kcache, vcache, params], grid1d(L * groups * count * NH * upTo * HS, WG), { WG });
}

/** Invocations per workgroup of shaders/decode_block.wgsl (WG) and head channels per invocation (DMAX). */
const BLOCK_WG = 64;
const BLOCK_DMAX = 4;

/** One layer's parameters for decodeBlock: views into one parameter buffer. */
export interface BlockParams {
  ln1w: TensorRef; ln1b: TensorRef; qkvw: TensorRef; qkvb: TensorRef;
  attprojw: TensorRef; attprojb: TensorRef; ln2w: TensorRef; ln2b: TensorRef;
  fcw: TensorRef; fcb: TensorRef; fcprojw: TensorRef; fcprojb: TensorRef;
}

const BLOCK_TENSORS = ['ln1w', 'ln1b', 'qkvw', 'qkvb', 'attprojw', 'attprojb', 'ln2w', 'ln2b', 'fcw', 'fcb', 'fcprojw', 'fcprojb'] as const;

/**
 * Why the fused block (shaders/decode_block.wgsl) cannot run these dims and parameters on this
 * device, or null when it can: C a multiple of 4, the row's vectors in workgroup memory, heads of
 * at most DMAX·WG channels, every tensor in one buffer at a vec4 offset.
 */
export function decodeBlockUnsupported(gpu: Gpu, dims: DecodeDims, layer: BlockParams): string | null {
  const HS = checkDims(dims);
  if (dims.C % 4 !== 0) return `C=${dims.C} is not a multiple of 4`;
  if (HS > BLOCK_WG * BLOCK_DMAX) return `head size ${HS} exceeds ${BLOCK_WG * BLOCK_DMAX}`;
  const bytes = 7 * dims.C * 4 + BLOCK_WG * 28 + 16; // Dawn rounds each workgroup variable up to 16 bytes
  if (bytes > gpu.limits.maxComputeWorkgroupStorageSize) return `C=${dims.C} needs ${bytes} bytes of workgroup memory; the device has ${gpu.limits.maxComputeWorkgroupStorageSize}`;
  const buffer = layer.ln1w.buffer;
  if (buffer.size > gpu.limits.maxStorageBufferBindingSize) return `the parameter buffer (${buffer.size} bytes) exceeds one storage binding (${gpu.limits.maxStorageBufferBindingSize})`;
  for (const k of BLOCK_TENSORS) {
    if (layer[k].buffer !== buffer) return `${k} is not in the parameter buffer of ln1w`;
    if (layer[k].offset % 16 !== 0) return `${k} starts at byte ${layer[k].offset}, not a multiple of 16`;
  }
  return null;
}

/**
 * One transformer block for the rows of `shape`, fused into two dispatches with one workgroup
 * per row (see shaders/decode_block.wgsl): attn_in (LN1, qkv, cache write of position s = step[b]
 * + i, q into `q`), then attn_out (attention over positions 0..s, projection, residual, LN2, MLP,
 * residual into `xout`). `q`, `xin`, `xout` are (R, C), R the shape's rows; `xout` must not be `xin`.
 */
export async function decodeBlock(
  gpu: Gpu,
  bufs: { xout: TensorRef; q: TensorRef; xin: TensorRef; kcache: TensorRef; vcache: TensorRef },
  layer: BlockParams,
  st: DecodeBuffers,
  dims: DecodeDims,
  shape: PrefillShape = DECODE_SHAPE,
): Promise<Dispatch[]> {
  const why = decodeBlockUnsupported(gpu, dims, layer);
  if (why) throw new RangeError(`decodeBlock: ${why}`);
  const HS = dims.C / dims.NH;
  const R = rowsOf(dims, shape);
  const buffer = layer.ln1w.buffer;
  const at = (k: (typeof BLOCK_TENSORS)[number]) => u32(layer[k].offset / 4);
  const params = gpu.uniform(
    packParams(u32(R), u32(dims.Tmax), u32(shape.Q), u32(shape.G), f32(1 / Math.sqrt(HS)), ...BLOCK_TENSORS.map(at)),
    'decode_block.params',
  );
  const weights = { buffer, offset: 0, size: buffer.size };
  const overrides = { C: dims.C, NH: dims.NH, WG: BLOCK_WG };
  const grid = grid1d(R, 1);
  return [
    await gpu.kernel('decode_attn_in', [bufs.q, bufs.kcache, bufs.vcache, bufs.xin, weights, st.step, params], grid, overrides, 'decode_attn_in'),
    await gpu.kernel('decode_attn_out', [bufs.xout, bufs.kcache, bufs.vcache, bufs.xin, weights, st.step, params, bufs.q], grid, overrides, 'decode_attn_out'),
  ];
}
