// The ONNX export against the engine: onnxruntime-web (wasm) on the exported file gives the
// logits the WGSL forward pass gives for the same parameters and tokens.
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
import { exportOnnx } from '../../src/onnx/export';

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
