// Kernel-level measurements: our matmul against TF.js's WebGPU matmul at the same shapes on
// the same adapter, and our causal attention forward + backward in both designs. Ours: many launches encoded
// in one command buffer, then queue.onSubmittedWorkDone(). TF.js: a loop of ops, then
// `await data()` of the last result. Both after a warm-up (compilation) and a one-repetition
// calibration that sets the repetition count.
import { view, type Dispatch, type Gpu, type TensorRef } from '../gpu/runtime';
import { matmul } from '../gpu/ops/matmul';
import type { KernelVariant } from '../gpu/runtime';
import { attentionBackward, attentionForwardSteps } from '../gpu/ops/attention';
import { attentionDecode, createDecodeBuffers } from '../gpu/ops/decode';
import { fillNormal, mulberry32 } from '../model/init';
import type * as TF from '@tensorflow/tfjs-core';
import type { Tfjs } from './tfjs_env';
import type { BenchPlan, MatmulCase } from './plan';
import { calibratedReps, matmulGflops, seconds } from './timing';

export interface Timed {
  /** seconds per repetition */
  perRepS: number;
  reps: number;
}

export interface MatmulResult {
  c: MatmulCase;
  ours: Timed;
  tfjs: Timed;
  oursGflops: number;
  tfjsGflops: number;
  ratio: number;
}

function normal(n: number, seed: number): Float32Array {
  const x = new Float32Array(n);
  fillNormal(x, mulberry32(seed), 1);
  return x;
}

/**
 * Warm-up (compiles), a one-repetition calibration, then one timed run of `run(reps)`; when
 * one repetition already fills the target time, the calibration is the measurement.
 */
async function measure(run: (reps: number) => Promise<void>, plan: BenchPlan): Promise<Timed> {
  await run(1);
  const one = await seconds(() => run(1));
  const reps = calibratedReps(one, plan.targetS, 1, plan.maxReps);
  if (reps === 1) return { perRepS: one, reps };
  const s = await seconds(() => run(reps));
  return { perRepS: s / reps, reps };
}

/** Encodes `reps` copies of `list` into one command buffer and waits for the queue. */
function replay(gpu: Gpu, list: readonly Dispatch[]): (reps: number) => Promise<void> {
  return async (reps) => {
    const all: Dispatch[] = [];
    for (let i = 0; i < reps; i++) all.push(...list);
    gpu.run(all, 'bench');
    await gpu.sync();
  };
}

async function oursMatmul(gpu: Gpu, c: MatmulCase, plan: BenchPlan): Promise<Timed> {
  const { M, K, N, transB } = c;
  const a = gpu.upload(normal(M * K, 1), 'bench.a'); // [M,K]
  const b = gpu.upload(normal(K * N, 2), 'bench.b'); // [K,N], or [N,K] with transB
  const out = gpu.createBuffer(M * N * 4, 'bench.out'); // [M,N]
  try {
    const d = await matmul(gpu, view(out, 0, M * N), view(a, 0, M * K), view(b, 0, K * N), null, { M, K, N }, { transB });
    return await measure(replay(gpu, [d]), plan);
  } finally {
    for (const buf of [a, b, out]) buf.destroy();
  }
}

async function tfjsMatmul(tf: Tfjs, c: MatmulCase, plan: BenchPlan): Promise<Timed> {
  const { M, K, N, transB } = c;
  const a = tf.tensor2d(normal(M * K, 1), [M, K]);
  const b = tf.tensor2d(normal(K * N, 2), transB ? [N, K] : [K, N]);
  try {
    return await measure(async (reps) => {
      let out: TF.Tensor | null = null;
      for (let i = 0; i < reps; i++) {
        out?.dispose();
        out = tf.matMul(a, b, false, transB);
      }
      await out!.data();
      out!.dispose();
    }, plan);
  } finally {
    tf.dispose([a, b]);
  }
}

export async function benchMatmul(gpu: Gpu, tf: Tfjs, plan: BenchPlan, log: (s: string) => void): Promise<MatmulResult[]> {
  const results: MatmulResult[] = [];
  for (const c of plan.matmul) {
    log(`matmul ${c.label}: ours`);
    const ours = await oursMatmul(gpu, c, plan);
    log(`matmul ${c.label}: TF.js`);
    const tfjs = await tfjsMatmul(tf, c, plan);
    const oursGflops = matmulGflops(c, 1, ours.perRepS);
    const tfjsGflops = matmulGflops(c, 1, tfjs.perRepS);
    results.push({ c, ours, tfjs, oursGflops, tfjsGflops, ratio: oursGflops / tfjsGflops });
  }
  return results;
}

export interface AttentionResult {
  T: number;
  /** tiled: flash attention (workgroup-memory tiles, for GPUs); direct: score matrices (CPU adapters) */
  design: KernelVariant;
  ms: number;
  reps: number;
}

async function attentionAt(gpu: Gpu, T: number, design: KernelVariant, plan: BenchPlan): Promise<AttentionResult> {
  const { B, C, NH } = plan.attention;
  const dims = { B, T, C, NH };
  const BT = B * T;
  const qkv = gpu.upload(normal(BT * 3 * C, 3), 'bench.qkv'); // [B,T,3C]
  const dout = gpu.upload(normal(BT * C, 4), 'bench.dout'); // [B,T,C]
  const out = gpu.createBuffer(BT * C * 4, 'bench.atty'); // [B,T,C]
  const lse = gpu.createBuffer(B * NH * T * 4, 'bench.lse'); // [B,NH,T]
  const dqkv = gpu.createBuffer(BT * 3 * C * 4, 'bench.dqkv'); // [B,T,3C]
  try {
    const r = (buf: GPUBuffer, n: number) => view(buf, 0, n);
    const opts = { variant: design };
    const fwd = await attentionForwardSteps(gpu, r(out, BT * C), r(lse, B * NH * T), r(qkv, BT * 3 * C), dims, opts);
    const bwd = await attentionBackward(gpu, r(dqkv, BT * 3 * C), r(dout, BT * C), r(qkv, BT * 3 * C), r(out, BT * C), r(lse, B * NH * T), dims, opts);
    const t = await measure(replay(gpu, [...fwd, ...bwd]), plan);
    return { T, design, ms: t.perRepS * 1000, reps: t.reps };
  } finally {
    for (const buf of [qkv, dout, out, lse, dqkv]) buf.destroy();
  }
}

export async function benchAttention(gpu: Gpu, plan: BenchPlan, log: (s: string) => void): Promise<AttentionResult[]> {
  const results: AttentionResult[] = [];
  for (const T of plan.attention.Ts) {
    for (const design of ['tiled', 'direct'] as const) {
      log(`attention forward+backward T=${T}, ${design} design`);
      results.push(await attentionAt(gpu, T, design, plan));
    }
  }
  return results;
}

/** One decode step's attention at `s + 1` cached positions, ms per dispatch, by design. */
export interface DecodeAttentionResult {
  s: number;
  /** the GPU design: a workgroup per (row, head), chunks of 64 positions, tree reductions */
  tiled: number;
  /** the CPU-adapter design, the head in vec4 register slots (attention_decode_direct.wgsl main) */
  slots: number;
  /** the CPU-adapter design, the head in an f32 array (main_scalar) */
  scalar: number;
}

/**
 * Decode attention of B rows (the sampling batch) over s + 1 cached positions, the three
 * designs side by side, each replayed in one command buffer (random queries and caches).
 */
export async function benchDecodeAttention(gpu: Gpu, plan: BenchPlan, log: (s: string) => void): Promise<DecodeAttentionResult[]> {
  const { B, C, NH, Tmax, positions } = plan.decodeAttention;
  const dims = { B, C, NH, Tmax, V: 1 };
  const cacheLen = B * C * Tmax;
  const qkv = gpu.upload(normal(B * 3 * C, 5), 'bench.dqkv');
  const k = gpu.upload(normal(cacheLen, 6), 'bench.kcache');
  const v = gpu.upload(normal(cacheLen, 7), 'bench.vcache');
  const out = gpu.createBuffer(B * C * 4, 'bench.datt');
  const st = createDecodeBuffers(gpu, B, Tmax);
  const results: DecodeAttentionResult[] = [];
  try {
    const r = (buf: GPUBuffer, n: number) => view(buf, 0, n);
    const args = [r(out, B * C), r(qkv, B * 3 * C), r(k, cacheLen), r(v, cacheLen), st, dims] as const;
    const designs = {
      tiled: await attentionDecode(gpu, ...args, { variant: 'tiled' }),
      slots: await attentionDecode(gpu, ...args, { variant: 'direct' }),
      scalar: await attentionDecode(gpu, ...args, { variant: 'direct', direct: 'scalar' }),
    };
    for (const s of positions) {
      log(`decode attention B=${B} at ${s + 1} cached positions: tiled, direct (vec4 slots), direct (f32 array)`);
      gpu.write(st.step, new Uint32Array(B).fill(s));
      const ms = async (d: Dispatch) => (await measure(replay(gpu, [d]), plan)).perRepS * 1000;
      results.push({ s, tiled: await ms(designs.tiled), slots: await ms(designs.slots), scalar: await ms(designs.scalar) });
    }
    return results;
  } finally {
    for (const buf of [qkv, k, v, out]) buf.destroy();
    for (const ref of Object.values(st) as TensorRef[]) ref.buffer.destroy();
  }
}
