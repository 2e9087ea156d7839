// The KV-cache decoder against the full forward pass: at every step the cached logits equal
// the logits a full forward over the sequence so far gives at that position; greedy decoding
// equals the reference argmax; the same seed gives the same samples.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { Decoder } from '../../src/model/decoder';
import { gptForwardRef } from '../../src/reference/gpt';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const init = initParams(cfg, table, 4).map((x) => x * 4);
const EOS = 2;

function refLogitsAt(tokens: number[], pos: number): Float64Array {
  const T = pos + 1;
  const fw = gptForwardRef(cfg, table, Float64Array.from(init), {
    B: 1, T, tokens: tokens.slice(0, T), targets: new Uint32Array(T), w: new Float32Array(T),
  });
  return fw.logits.subarray(pos * cfg.vocabSize, (pos + 1) * cfg.vocabSize);
}

describe('Decoder (KV cache) vs the full forward', () => {
  let gpu: Gpu;
  let params: GPUBuffer;
  beforeAll(async () => {
    gpu = await testGpu();
    params = gpu.upload(init, 'params');
  });

  it('cached logits equal full-forward logits at every step; greedy equals argmax', async () => {
    const Tmax = 14;
    const dec = await Decoder.create(gpu, cfg, table, params, { B: 3, Tmax });
    const prompts = [[1, 5, 9], [1, 7], [1, 30, 31, 40, 12]];
    dec.start(prompts, { temperature: 0, topK: 0, topP: 1, seed: 1, eosToken: 63, maxNew: 20 });
    const seqs = prompts.map((p) => [...p]);
    for (let s = 0; s < Tmax - 1; s++) {
      dec.runSteps(1);
      const logits = await gpu.readF32(dec.logits);
      for (let b = 0; b < 3; b++) {
        const row = logits.subarray(b * cfg.vocabSize, (b + 1) * cfg.vocabSize);
        const want = refLogitsAt(seqs[b], s);
        expectClose(`logits seq ${b} step ${s}`, row, want, { atol: 1e-4, rtol: 1e-4 });
        if (s + 1 >= seqs[b].length) {
          let arg = 0;
          for (let v = 1; v < cfg.vocabSize; v++) if (want[v] > want[arg]) arg = v;
          seqs[b].push(arg);
        }
      }
    }
    const tokens = await gpu.readU32(dec.st.tokens);
    for (let b = 0; b < 3; b++) expect(Array.from(tokens.subarray(b * Tmax, (b + 1) * Tmax))).toEqual(seqs[b].slice(0, Tmax));
  });

  it('generate(): same seed, same samples; lengths and log-probs are consistent', async () => {
    const dec = await Decoder.create(gpu, cfg, table, params, { B: 4, Tmax: 24 });
    const prompts = [[1, 5], [1, 6, 7], [1, 8], [1, 9, 10, 11]];
    const opts = { temperature: 1, topK: 0, topP: 1, seed: 42, eosToken: EOS, maxNew: 10 };
    const a = await dec.generate(prompts, opts);
    const b = await dec.generate(prompts, opts);
    const c = await dec.generate(prompts, { ...opts, seed: 43 });
    expect(Array.from(a.tokens)).toEqual(Array.from(b.tokens));
    expect(Array.from(a.tokens)).not.toEqual(Array.from(c.tokens));
    for (let i = 0; i < 4; i++) {
      expect(a.responseLen[i]).toBeGreaterThan(0);
      expect(a.responseLen[i]).toBeLessThanOrEqual(10);
      if (!a.finished[i]) expect(a.responseLen[i]).toBe(10);
      for (let t = a.promptLen[i]; t < a.promptLen[i] + a.responseLen[i]; t++) {
        expect(a.logp[i * 24 + t]).toBeLessThanOrEqual(0);
        expect(a.entropy[i * 24 + t]).toBeGreaterThan(0);
      }
    }
  });
});
