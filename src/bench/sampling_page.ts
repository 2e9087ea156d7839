// The sampling benchmark's page side (bench.html, built only for the bench: `vite build --mode
// bench` writes dist-bench/; `npm run bench` builds it and drives it in headless Chromium,
// src/bench/ort_bench.ts): the shipped `small` policy generates from the same prompts with our
// KV-cache decoder (WGSL) and with onnxruntime-web on the with-past ONNX export of the same
// parameters, through its WebGPU backend (present.* kept on the GPU and fed back) and its wasm
// backend, on the page's one adapter. Greedy and temperature 1, B rows, maxNew tokens each (no
// end token stops a row, so every side generates the same count).
import * as ort from 'onnxruntime-web/all';
// onnxruntime-web's wasm glue and binary as files of their own: its worker threads load the glue
// from this URL (loaded from the bundle, they would run this page's chunk, which needs a document)
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.mjs?url';
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';
import { createBrowserGpu } from '../gpu/browser';
import { Decoder } from '../model/decoder';
import { buildTensorTable } from '../model/params';
import { exportOnnxWithPast } from '../onnx/export';
import { fetchPolicy } from '../lab/worker/policies';
import { solvePrompt } from '../world/index';
import { loadSet } from '../world/index';

export interface SamplingCase {
  B: number;
  greedy: boolean;
}

export interface SamplingRow extends SamplingCase {
  /** tokens/s (null: the side failed or was skipped; `error` says why) */
  ours: number | null;
  ortWebgpu: number | null;
  ortWasm: number | null;
  errors: string[];
}

export interface SamplingPageResult {
  adapter: string;
  /** threads of onnxruntime-web's wasm backend (1 unless the page is cross-origin isolated) */
  wasmThreads: number;
  maxNew: number;
  promptTokens: number;
  rows: SamplingRow[];
}

const now = () => performance.now();

/** Timed runs per side and case; each side's figure is its best run. */
const TIMED_RUNS = 3;

/**
 * The best tokens/s of TIMED_RUNS calls of `run` (which returns the tokens it generated), each
 * after a pause of 200 ms: worker threads of the side measured before (onnxruntime-web's wasm
 * pool spins a while after its work) then sleep instead of taking cores from this one.
 */
async function bestRate(run: () => Promise<number>): Promise<number> {
  let best = 0;
  for (let i = 0; i < TIMED_RUNS; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const t0 = now();
    const tokens = await run();
    best = Math.max(best, tokens / ((now() - t0) / 1000));
  }
  return best;
}

/** The same B prompts for every side: solve prompts of the held-out set, all of one length. */
function promptsOf(B: number): number[][] {
  const all = loadSet('eval-mixed').map((p) => solvePrompt(p.text));
  const len = all[0].length;
  const same = all.filter((p) => p.length === len);
  return Array.from({ length: B }, (_, i) => same[i % same.length]);
}

/** Index of the largest, or a sample of softmax(row) with `u` in [0, 1). */
function pick(row: Float32Array, greedy: boolean, u: number): number {
  let best = 0;
  for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;
  if (greedy) return best;
  let z = 0;
  for (let v = 0; v < row.length; v++) z += Math.exp(row[v] - row[best]);
  let acc = 0;
  for (let v = 0; v < row.length; v++) {
    acc += Math.exp(row[v] - row[best]) / z;
    if (u < acc) return v;
  }
  return row.length - 1;
}

/** tokens/s of onnxruntime-web generating maxNew tokens for each of `prompts`: one warm-up call, then the best of TIMED_RUNS. */
async function ortRate(session: ort.InferenceSession, cfg: { nLayer: number; nHead: number; nEmbd: number; vocabSize: number }, prompts: number[][], maxNew: number, greedy: boolean, gpuCache: boolean): Promise<number> {
  const B = prompts.length, NH = cfg.nHead, HS = cfg.nEmbd / NH, V = cfg.vocabSize;
  const i64 = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0].length]);
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const run = async (): Promise<number> => {
    let feed = prompts.map((p) => [...p]);
    let mask = prompts.map((p) => p.map(() => 1));
    let pos = prompts.map((p) => p.map((_, j) => j));
    let past: Record<string, ort.Tensor> = {};
    for (let l = 0; l < cfg.nLayer; l++) for (const kv of ['key', 'value']) past[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [B, NH, 0, HS]);
    let old: ort.Tensor[] = [];
    try {
      for (let step = 0; step < maxNew; step++) {
        const out = await session.run({ input_ids: i64(feed), attention_mask: i64(mask), position_ids: i64(pos), ...past });
        const T = feed[0].length;
        const logits = (gpuCache ? await out.logits.getData() : out.logits.data) as Float32Array;
        const next = prompts.map((_, b) => pick(logits.subarray((b * T + T - 1) * V, (b * T + T) * V), greedy, rand()));
        for (const t of old) t.dispose();
        old = Object.values(past).filter((t) => t.location === 'gpu-buffer');
        past = {};
        for (let l = 0; l < cfg.nLayer; l++) for (const kv of ['key', 'value']) past[`past_key_values.${l}.${kv}`] = out[`present.${l}.${kv}`];
        out.logits.dispose();
        feed = next.map((t) => [t]);
        pos = pos.map((p) => [p[p.length - 1] + 1]);
        mask = mask.map((m) => [...m, 1]);
      }
    } finally {
      // GPU tensors are freed whether the generation ended or threw
      for (const t of [...old, ...Object.values(past)]) if (t.location === 'gpu-buffer') t.dispose();
    }
    return B * maxNew;
  };
  await run();
  return bestRate(run);
}

export async function samplingBench(cases: readonly SamplingCase[], maxNew: number): Promise<SamplingPageResult> {
  const base = new URL(import.meta.env.BASE_URL, window.location.origin);
  const policy = await fetchPolicy('small', base);
  const cfg = policy.cfg;
  const table = buildTensorTable(cfg);
  const gpu = await createBrowserGpu();
  const params = gpu.upload(policy.params, 'bench.params');
  const onnx = exportOnnxWithPast(cfg, table, policy.params);
  ort.env.wasm.numThreads = crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency) : 1;
  ort.env.wasm.wasmPaths = { mjs: new URL(ortMjs, window.location.href), wasm: new URL(ortWasm, window.location.href) };
  const present = Array.from({ length: cfg.nLayer }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat();
  const sessions: Record<'webgpu' | 'wasm', ort.InferenceSession | Error> = {
    webgpu: await ort.InferenceSession.create(onnx, { executionProviders: ['webgpu'], preferredOutputLocation: Object.fromEntries(present.map((n) => [n, 'gpu-buffer'])) }).catch((e: Error) => e),
    wasm: await ort.InferenceSession.create(onnx, { executionProviders: ['wasm'] }).catch((e: Error) => e),
  };
  const rows: SamplingRow[] = [];
  for (const c of cases) {
    const prompts = promptsOf(c.B);
    const row: SamplingRow = { ...c, ours: null, ortWebgpu: null, ortWasm: null, errors: [] };
    try {
        const decoder = await Decoder.create(gpu, cfg, table, params, { B: c.B, Tmax: prompts[0].length + maxNew });
        // eosToken = V is never sampled: every row generates maxNew tokens, as on the ORT side
        const opts = { temperature: 1, topK: c.greedy ? 1 : 0, topP: 1, seed: 7, eosToken: cfg.vocabSize, maxNew };
        await decoder.generate(prompts, opts);
        let seed = 8;
        row.ours = await bestRate(async () => (await decoder.generate(prompts, { ...opts, seed: seed++ })).responseLen.reduce((a, n) => a + n, 0));
        decoder.destroy();
      } catch (e) {
        row.errors.push(`ours: ${(e as Error).message}`);
      }
      for (const [side, key] of [['webgpu', 'ortWebgpu'], ['wasm', 'ortWasm']] as const) {
        const s = sessions[side];
        if (s instanceof Error) {
          row.errors.push(`ort ${side}: ${s.message}`);
          continue;
        }
        try {
          row[key] = await ortRate(s, cfg, prompts, maxNew, c.greedy, side === 'webgpu');
        } catch (e) {
          row.errors.push(`ort ${side}: ${(e as Error).message}`);
        }
      }
      rows.push(row);
    }
    const adapter = (await navigator.gpu?.requestAdapter())?.info;
    return { adapter: adapter ? `${adapter.vendor} ${adapter.architecture} ${adapter.device} ${adapter.description}`.trim() : 'unknown', wasmThreads: ort.env.wasm.numThreads ?? 1, maxNew, promptTokens: promptsOf(1)[0].length, rows };
  }

  (window as unknown as { rlvrSamplingBench: typeof samplingBench }).rlvrSamplingBench = samplingBench;
