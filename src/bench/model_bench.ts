// Model-level measurements on the `small` policy: one full training step of our engine against
// the same model in TF.js (autodiff + Adam), the engine's per-step GPU traffic, and batched
// sampling with the KV cache.
import type { Gpu, GpuStats } from '../gpu/runtime';
import { GPT } from '../model/gpt';
import { Decoder, type BlockKernel, type PrefillMode } from '../model/decoder';
import { GPT_PRESETS, countParams, type GPTConfig } from '../model/config';
import { buildTensorTable, type TensorTable } from '../model/params';
import { initParams, mulberry32 } from '../model/init';
import type { Tfjs } from './tfjs_env';
import { TfjsGpt } from './tfjs_gpt';
import type { BenchPlan } from './plan';
import { seconds } from './timing';

export interface TrainSide {
  tokensPerS: number;
  msPerStep: number;
  steps: number;
  /** mean cross-entropy of the batch at the shared initial parameters (both must agree) */
  initialLoss: number;
}

export interface TrainResult {
  B: number;
  T: number;
  params: number;
  ours: TrainSide;
  tfjs: TrainSide;
  ratio: number;
  /** gpu.stats difference over one step after warm-up */
  perStep: GpuStats;
  /** pipelines compiled during every step after warm-up (the stats step and the timed steps) */
  pipelinesAfterWarmup: number;
}

export interface SampleResult {
  B: number;
  prompt: number;
  maxNew: number;
  tokens: number;
  tokensPerS: number;
  /** gpu.stats difference over one generate() */
  perGenerate: GpuStats;
  /**
   * How prompts are fed, side by side (tokens/s): B distinct prompts token by token ('off') and
   * prefilled ('rows'); B/group prompts of `group` rows each, prefilled per row ('rows') and once
   * per group ('shared'). promptShare: the prompt's share of a sequence's tokens.
   */
  prefill: {
    promptShare: number;
    distinct: { off: number; rows: number };
    grouped: { group: number; off: number; rows: number; shared: number };
  };
  /**
   * DATPO's branches from a fork (src/loops/datpo: B̂ continuations of one prefix are one rollout
   * group): the prefix prefilled once and its KV cache copied to the branches ('shared'), against
   * re-prefilling it for each branch ('rows'), tokens/s side by side.
   */
  fork: { B: number; prompt: number; maxNew: number; group: number; rows: number; shared: number };
  /**
   * The decode block's two designs (src/model/decoder.ts BlockKernel), decode steps alone side by
   * side (rows × steps per second, same prompts and seeds) at a few batch sizes: 'layered' (the
   * training forward's kernels, 8 dispatches a block) and 'fused' (two kernels a block, one
   * workgroup per row).
   */
  blocks: { B: number; layered: number; fused: number }[];
  /** the block design the figures above ran (the decoder's default on this adapter) */
  blockKernel: BlockKernel;
}

interface Setup {
  cfg: GPTConfig;
  table: TensorTable;
  init: Float32Array;
}

export function smallPolicy(seed: number): Setup {
  const cfg = GPT_PRESETS.small;
  const table = buildTensorTable(cfg);
  return { cfg, table, init: initParams(cfg, table, seed) };
}

/** Random sequences of T+1 tokens: inputs are the first T, targets the last T. */
function randomBatch(B: number, T: number, V: number, seed: number): { tokens: Uint32Array; targets: Uint32Array } {
  const rand = mulberry32(seed);
  const tokens = new Uint32Array(B * T);
  const targets = new Uint32Array(B * T);
  for (let b = 0; b < B; b++) {
    let prev = Math.floor(rand() * V);
    for (let t = 0; t < T; t++) {
      const next = Math.floor(rand() * V);
      tokens[b * T + t] = prev;
      targets[b * T + t] = next;
      prev = next;
    }
  }
  return { tokens, targets };
}

function statsDelta(after: GpuStats, before: GpuStats): GpuStats {
  return {
    dispatches: after.dispatches - before.dispatches,
    submits: after.submits - before.submits,
    readbackBytes: after.readbackBytes - before.readbackBytes,
    pipelinesCreated: after.pipelinesCreated - before.pipelinesCreated,
  };
}

async function trainOurs(gpu: Gpu, s: Setup, plan: BenchPlan, batch: ReturnType<typeof randomBatch>): Promise<{ side: TrainSide; perStep: GpuStats; pipelines: number }> {
  const { B, T, warmup, steps, lr } = plan.train;
  const BT = B * T;
  const model = await GPT.create(gpu, s.cfg, s.init, { B, T });
  model.setHyper({ lr });
  model.setBatch(batch.tokens, batch.targets, new Float32Array(BT).fill(-1 / BT));
  model.forward();
  const logp = await gpu.readF32(model.batch.logp);
  const initialLoss = -logp.reduce((a, x) => a + x, 0) / BT;
  for (let i = 0; i < warmup; i++) model.step();
  await gpu.sync();
  const before = { ...gpu.stats };
  model.step();
  await gpu.sync();
  const perStep = statsDelta(gpu.stats, before);
  const sec = await seconds(async () => {
    for (let i = 0; i < steps; i++) model.step();
    await gpu.sync();
  });
  const pipelines = gpu.stats.pipelinesCreated - before.pipelinesCreated;
  return { side: { tokensPerS: (BT * steps) / sec, msPerStep: (sec / steps) * 1000, steps, initialLoss }, perStep, pipelines };
}

async function trainTfjs(tf: Tfjs, s: Setup, plan: BenchPlan, batch: ReturnType<typeof randomBatch>): Promise<TrainSide> {
  const { B, T, tfjsWarmup, tfjsSteps, lr } = plan.train;
  const model = new TfjsGpt(tf, s.cfg, s.table, s.init, B, T, lr);
  try {
    model.setBatch(batch.tokens, batch.targets);
    const l0 = tf.tidy(() => model.loss());
    const initialLoss = (await l0.data())[0];
    l0.dispose();
    const runSteps = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const l = model.step();
        if (i === n - 1) await l.data();
        l.dispose();
      }
    };
    await runSteps(tfjsWarmup);
    const sec = await seconds(() => runSteps(tfjsSteps));
    return { tokensPerS: (B * T * tfjsSteps) / sec, msPerStep: (sec / tfjsSteps) * 1000, steps: tfjsSteps, initialLoss };
  } finally {
    model.dispose();
  }
}

export async function benchTrain(gpu: Gpu, tf: Tfjs, plan: BenchPlan, log: (s: string) => void): Promise<TrainResult> {
  const s = smallPolicy(plan.seed);
  const { B, T } = plan.train;
  const batch = randomBatch(B, T, s.cfg.vocabSize, plan.seed + 1);
  log(`training step, small policy B=${B} T=${T}: ours`);
  const ours = await trainOurs(gpu, s, plan, batch);
  log(`training step, small policy B=${B} T=${T}: TF.js (${plan.train.tfjsWarmup} warm-up + ${plan.train.tfjsSteps} timed steps)`);
  const tfjs = await trainTfjs(tf, s, plan, batch);
  return {
    B, T, params: countParams(s.cfg),
    ours: ours.side, tfjs, ratio: ours.side.tokensPerS / tfjs.tokensPerS,
    perStep: ours.perStep, pipelinesAfterWarmup: ours.pipelines,
  };
}

/** DATPO's branch generation: forked KV cache against re-prefilling each branch (same tokens both ways). */
async function benchFork(gpu: Gpu, s: Setup, params: GPUBuffer, plan: BenchPlan, log: (s: string) => void): Promise<SampleResult['fork']> {
  const { B, prompt, maxNew, reps, group } = plan.fork;
  if (B % group !== 0) throw new Error(`bench plan: fork B = ${B} is not a multiple of its group ${group}`);
  const V = s.cfg.vocabSize;
  log(`sampling DATPO branches: ${B / group} fork prefixes of ${prompt} tokens × ${group} branches of ${maxNew}`);
  const decoder = await Decoder.create(gpu, s.cfg, s.table, params, { B, Tmax: prompt + maxNew });
  try {
    const rand = mulberry32(plan.seed + 3);
    const prefixes = Array.from({ length: B / group }, () => Array.from({ length: prompt }, () => Math.floor(rand() * V)));
    const rows = Array.from({ length: B }, (_, b) => prefixes[Math.floor(b / group)]);
    const opts = { temperature: 1, topK: 0, topP: 1, seed: plan.seed, eosToken: V, maxNew };
    const rate = async (mode: PrefillMode): Promise<number> => {
      await decoder.generate(rows, opts, mode);
      let tokens = 0;
      const sec = await seconds(async () => {
        for (let r = 0; r < reps; r++) tokens += (await decoder.generate(rows, { ...opts, seed: plan.seed + r + 1 }, mode)).responseLen.reduce((a, n) => a + n, 0);
      });
      return tokens / sec;
    };
    return { B, prompt, maxNew, group, rows: await rate('rows'), shared: await rate('shared') };
  } finally {
    decoder.destroy();
  }
}

/**
 * Both decode-block designs at batch sizes 8 and plan.sample.B: decode steps alone (each a full
 * step: embedding, blocks, final LayerNorm, logits, sampling; no prefill, no readback), from the
 * prompts' first token over prompt + maxNew - 1 positions, one command buffer a repetition; the
 * designs alternate so load drifts hit both alike. Rows × steps per second.
 */
async function benchBlocks(gpu: Gpu, s: Setup, params: GPUBuffer, plan: BenchPlan, log: (s: string) => void): Promise<SampleResult['blocks']> {
  const { prompt, maxNew, reps } = plan.sample;
  const V = s.cfg.vocabSize;
  const steps = prompt + maxNew - 1;
  const out: SampleResult['blocks'] = [];
  for (const B of [...new Set([8, plan.sample.B])]) {
    log(`decode steps B=${B}: layered against fused blocks`);
    const rand = mulberry32(plan.seed + 4);
    const prompts = Array.from({ length: B }, () => Array.from({ length: prompt }, () => Math.floor(rand() * V)));
    const opts = { temperature: 1, topK: 0, topP: 1, seed: plan.seed, eosToken: V, maxNew };
    const decoders = {} as Record<BlockKernel, Decoder>;
    const elapsed = { layered: 0, fused: 0 } as Record<BlockKernel, number>;
    const run = async (d: Decoder, seed: number) => {
      d.start(prompts, { ...opts, seed });
      d.runSteps(steps);
      await gpu.sync();
    };
    try {
      for (const k of ['layered', 'fused'] as const) {
        decoders[k] = await Decoder.create(gpu, s.cfg, s.table, params, { B, Tmax: prompt + maxNew, blockKernel: k });
        await run(decoders[k], plan.seed);
      }
      for (let r = 0; r < reps; r++) {
        for (const k of ['layered', 'fused'] as const) elapsed[k] += await seconds(() => run(decoders[k], plan.seed + r + 1));
      }
    } finally {
      for (const d of Object.values(decoders)) d.destroy();
    }
    out.push({ B, layered: (B * steps * reps) / elapsed.layered, fused: (B * steps * reps) / elapsed.fused });
  }
  return out;
}

export async function benchSample(gpu: Gpu, plan: BenchPlan, log: (s: string) => void): Promise<SampleResult> {
  const s = smallPolicy(plan.seed);
  const { B, prompt, maxNew, reps, group } = plan.sample;
  const V = s.cfg.vocabSize;
  log(`sampling B=${B}, prompt ${prompt} + ${maxNew} new tokens`);
  const params = gpu.upload(s.init, 'bench.sample.params');
  try {
    const decoder = await Decoder.create(gpu, s.cfg, s.table, params, { B, Tmax: prompt + maxNew });
    const blockKernel = decoder.blockKernel;
    const rand = mulberry32(plan.seed + 2);
    const prompts = Array.from({ length: B }, () => Array.from({ length: prompt }, () => Math.floor(rand() * V)));
    // eosToken = V is never sampled: every sequence runs maxNew steps, so runs are comparable
    const opts = { temperature: 1, topK: 0, topP: 1, seed: plan.seed, eosToken: V, maxNew };
    /** tokens/s of `reps` generations in `mode` (after one warm-up generation), and their traffic */
    const measure = async (ps: number[][], mode: PrefillMode) => {
      await decoder.generate(ps, opts, mode);
      const before = { ...gpu.stats };
      let tokens = 0;
      const sec = await seconds(async () => {
        for (let r = 0; r < reps; r++) {
          const g = await decoder.generate(ps, { ...opts, seed: plan.seed + r + 1 }, mode);
          tokens += g.responseLen.reduce((a, n) => a + n, 0);
        }
      });
      const total = statsDelta(gpu.stats, before);
      return { tokens, tokensPerS: tokens / sec, perGenerate: { dispatches: total.dispatches / reps, submits: total.submits / reps, readbackBytes: total.readbackBytes / reps, pipelinesCreated: total.pipelinesCreated } };
    };
    // the default path ('shared': prefilled, here per row as the prompts differ)
    const main = await measure(prompts, 'shared');
    log(`sampling: prompts fed token by token, prefilled, and shared by groups of ${group}`);
    const distinctOff = await measure(prompts, 'off');
    const grouped = prompts.map((_, b) => prompts[Math.floor(b / group) * group]);
    const groupedOff = await measure(grouped, 'off');
    const groupedRows = await measure(grouped, 'rows');
    const groupedShared = await measure(grouped, 'shared');
    const fork = await benchFork(gpu, s, params, plan, log);
    const blocks = await benchBlocks(gpu, s, params, plan, log);
    return {
      B, prompt, maxNew, tokens: main.tokens, tokensPerS: main.tokensPerS, perGenerate: main.perGenerate,
      prefill: {
        promptShare: prompt / (prompt + maxNew),
        distinct: { off: distinctOff.tokensPerS, rows: main.tokensPerS },
        grouped: { group, off: groupedOff.tokensPerS, rows: groupedRows.tokensPerS, shared: groupedShared.tokensPerS },
      },
      fork,
      blocks,
      blockKernel,
    };
  } finally {
    params.destroy();
  }
}
