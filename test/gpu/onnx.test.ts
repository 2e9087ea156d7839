// The ONNX export against the engine: onnxruntime-web (wasm) on the exported file gives the
// logits the WGSL forward pass gives for the same parameters and tokens; the export with a KV
// cache (Hugging Face's names and shapes) generates greedily what our decoder generates.
import { beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-web';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randInts } from '../helpers/rng';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS, type GPTConfig } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { GPT } from '../../src/model/gpt';
import { exportOnnx, exportOnnxWithPast } from '../../src/onnx/export';
import { Decoder } from '../../src/model/decoder';

// One wasm thread: no worker threads in the test process, and results independent of cores.
ort.env.wasm.numThreads = 1;

const cfg: GPTConfig = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
// Larger than GPT-2 init so that activations are far from trivial (as in test/gpu/model.test.ts).
const params = initParams(cfg, table, 7).map((x) => x * 3);

describe('ONNX export vs the GPU engine', () => {
  let gpu: Gpu;
  let session: ort.InferenceSession;

  beforeAll(async () => {
    gpu = await testGpu();
    session = await ort.InferenceSession.create(exportOnnx(cfg, table, params));
  });

  for (const T of [9, cfg.nPositions]) {
    it(`onnxruntime-web logits match the engine's forward() to 1e-4 (B=2, T=${T})`, async () => {
      const B = 2;
      const tokens = randInts(mulberry32(100 + T), B * T, cfg.vocabSize);
      tokens[0] = 0;
      tokens[B * T - 1] = cfg.vocabSize - 1;
      const model = await GPT.create(gpu, cfg, params, { B, T });
      model.setBatch(tokens, new Uint32Array(B * T));
      model.forward();
      const engine = await gpu.readF32(model.batch.logits); // (B*T, V)
      const out = await session.run({ input_ids: new ort.Tensor('int32', Int32Array.from(tokens), [B, T]) });
      expect(out.logits.dims).toEqual([B, T, cfg.vocabSize]);
      // both sides are float32 with different summation orders; logits reach |x| ~ 3
      expectClose(`ort vs engine logits T=${T}`, out.logits.data as Float32Array, engine, { atol: 1e-4, rtol: 0 });
    });
  }
});

describe('ONNX export with a KV cache (Hugging Face decoder_with_past) vs the decoder', () => {
  it('generates, greedily and token for token, what our KV-cache decoder generates, from prompts of different lengths', async () => {
    const gpu = await testGpu();
    const session = await ort.InferenceSession.create(exportOnnxWithPast(cfg, table, params));
    expect([...session.inputNames].sort()).toEqual(['attention_mask', 'input_ids', ...Array.from({ length: cfg.nLayer }, (_, l) => [`past_key_values.${l}.key`, `past_key_values.${l}.value`]).flat(), 'position_ids'].sort());
    expect(session.outputNames).toEqual(['logits', ...Array.from({ length: cfg.nLayer }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat()]);
    const rand = mulberry32(55);
    const prompts = [3, 7, 5].map((n) => Array.from(randInts(rand, n, cfg.vocabSize)));
    const maxNew = 12;
    // ours: greedy (top-k 1) from the same parameters; no end token can stop a row (EOS is never a top-1 here, checked below)
    const buf = gpu.upload(params, 'onnx.params');
    const decoder = await Decoder.create(gpu, cfg, table, buf, { B: prompts.length, Tmax: cfg.nPositions });
    const gen = await decoder.generate(prompts, { temperature: 1, topK: 1, topP: 1, seed: 0, eosToken: cfg.vocabSize, maxNew });
    const ours = prompts.map((p, b) => Array.from(gen.tokens.slice(b * cfg.nPositions + p.length, b * cfg.nPositions + p.length + gen.responseLen[b])));
    decoder.destroy();
    // theirs: left-padded prompts, attention_mask and position_ids as transformers builds them, then one token a call
    const B = prompts.length, NH = cfg.nHead, HS = cfg.nEmbd / NH, P = Math.max(...prompts.map((p) => p.length));
    let mask = prompts.map((p) => [...Array<number>(P - p.length).fill(0), ...Array<number>(p.length).fill(1)]);
    let feed = prompts.map((p) => [...Array<number>(P - p.length).fill(0), ...p]);
    let pos = mask.map((m) => m.map((_, j) => Math.max(0, m.slice(0, j + 1).reduce((a, x) => a + x, 0) - 1)));
    let past: Record<string, ort.Tensor> = {};
    for (let l = 0; l < cfg.nLayer; l++) for (const kv of ['key', 'value']) past[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [B, NH, 0, HS]);
    const theirs: number[][] = prompts.map(() => []);
    const i64 = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0].length]);
    for (let step = 0; step < maxNew; step++) {
      const out = await session.run({ input_ids: i64(feed), attention_mask: i64(mask), position_ids: i64(pos), ...past });
      const T = feed[0].length, V = cfg.vocabSize;
      const logits = out.logits.data as Float32Array;
      const next = prompts.map((_, b) => {
        const row = logits.subarray((b * T + T - 1) * V, (b * T + T) * V);
        let best = 0;
        for (let v = 1; v < V; v++) if (row[v] > row[best]) best = v;
        return best;
      });
      next.forEach((t, b) => theirs[b].push(t));
      past = {};
      for (let l = 0; l < cfg.nLayer; l++) for (const kv of ['key', 'value']) past[`past_key_values.${l}.${kv}`] = out[`present.${l}.${kv}`];
      expect(out['present.0.key'].dims).toEqual([B, NH, mask[0].length, HS]);
      feed = next.map((t) => [t]);
      pos = pos.map((p) => [p[p.length - 1] + 1]);
      mask = mask.map((m) => [...m, 1]);
    }
    await session.release();
    expect(ours.map((r) => r.length)).toEqual(prompts.map(() => maxNew));
    expect(theirs).toEqual(ours);
  });
});
