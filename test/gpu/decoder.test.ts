// The KV-cache decoder against the full forward pass: at every step the cached logits equal
// the logits a full forward over the sequence so far gives at that position; greedy decoding
// equals the reference argmax; the same seed gives the same samples.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams, mulberry32 } from '../../src/model/init';
import { Decoder, defaultBlockKernel, sharedGroupSize, type BlockKernel, type PrefillMode } from '../../src/model/decoder';
import { gptForwardRef } from '../../src/reference/gpt';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
/** GPT-2's init scaled up, with every tensor jittered: biases and LayerNorm gains non-trivial, so an index into them counts. */
function params(c: typeof cfg, t: ReturnType<typeof buildTensorTable>, seed: number): Float32Array {
  const rand = mulberry32(seed + 100);
  return initParams(c, t, seed).map((x) => x * 4 + 0.2 * (rand() - 0.5));
}
const init = params(cfg, table, 4);
const EOS = 2;
// An odd shape for the fused block: C = 36 (9, 27 and 36 column quads: K split 7, 2 and 1 ways
// over 64 invocations), three heads of 12 channels, and contexts past one 64-position chunk.
// And a wide one: C = 136 in one head (136 channels: every attention slot of an invocation), the
// MLP's 136 column quads over 64 invocations in three rounds, the QKV's 102 in two.
const ODD = [
  { name: 'C = 36, three heads', cfg: { vocabSize: 50, nPositions: 80, nEmbd: 36, nLayer: 2, nHead: 3, layerNormEps: 1e-5 }, Tmax: 80 },
  { name: 'C = 136, one head of 136', cfg: { vocabSize: 50, nPositions: 72, nEmbd: 136, nLayer: 1, nHead: 1, layerNormEps: 1e-5 }, Tmax: 70 },
].map((o) => {
  const table = buildTensorTable(o.cfg);
  return { ...o, table, init: params(o.cfg, table, 5) };
});

function refLogitsAt(tokens: number[], pos: number, model = { cfg, table, init }): Float64Array {
  const T = pos + 1;
  const fw = gptForwardRef(model.cfg, model.table, Float64Array.from(model.init), {
    B: 1, T, tokens: tokens.slice(0, T), targets: new Uint32Array(T), w: new Float32Array(T),
  });
  return fw.logits.subarray(pos * model.cfg.vocabSize, (pos + 1) * model.cfg.vocabSize);
}

describe.each(['layered', 'fused'] as const)('Decoder (KV cache, %s blocks) vs the full forward', (blockKernel) => {
  let gpu: Gpu;
  let params: GPUBuffer;
  beforeAll(async () => {
    gpu = await testGpu();
    params = gpu.upload(init, 'params');
  });

  it('cached logits equal full-forward logits at every step; greedy equals argmax', async () => {
    const Tmax = 14;
    const dec = await Decoder.create(gpu, cfg, table, params, { B: 3, Tmax, blockKernel });
    expect(dec.blockKernel).toBe(blockKernel);
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

  it.each(ODD)('an odd width ($name) past one 64-position attention chunk', async ({ cfg: oddCfg, table: oddTable, init: oddInit, Tmax }) => {
    const oddParams = gpu.upload(oddInit, 'odd params');
    const dec = await Decoder.create(gpu, oddCfg, oddTable, oddParams, { B: 2, Tmax, blockKernel });
    const prompts = [[1, 5, 9], [1, 30, 31, 40, 12, 7]];
    dec.start(prompts, { temperature: 0, topK: 0, topP: 1, seed: 1, eosToken: 99, maxNew: 100 });
    const seqs = prompts.map((p) => [...p]);
    const V = oddCfg.vocabSize;
    for (let s = 0; s < Tmax - 1; s++) {
      dec.runSteps(1);
      const checked = s % 16 === 3 || s >= Tmax - 16;
      const logits = checked ? await gpu.readF32(dec.logits) : null;
      for (let b = 0; b < 2; b++) {
        if (s + 1 < seqs[b].length) continue;
        if (!logits) {
          seqs[b].push(0); // filled from the decoder's tokens below
          continue;
        }
        const row = logits.subarray(b * V, (b + 1) * V);
        const want = refLogitsAt(seqs[b], s, { cfg: oddCfg, table: oddTable, init: oddInit });
        expectClose(`odd logits seq ${b} step ${s}`, row, want, { atol: 2e-4, rtol: 2e-4 });
        let arg = 0;
        for (let v = 1; v < V; v++) if (row[v] > row[arg]) arg = v;
        seqs[b].push(arg);
      }
      if (!logits) {
        // unchecked steps take the decoder's own greedy token (checked ones are compared above)
        const tokens = await gpu.readU32(dec.st.tokens);
        for (let b = 0; b < 2; b++) if (s + 1 >= prompts[b].length) seqs[b][s + 1] = tokens[b * Tmax + s + 1];
      }
    }
    const tokens = await gpu.readU32(dec.st.tokens);
    for (let b = 0; b < 2; b++) expect(Array.from(tokens.subarray(b * Tmax, (b + 1) * Tmax))).toEqual(seqs[b].slice(0, Tmax));
    dec.destroy();
    oddParams.destroy();
  });

  it('generate(): same seed, same samples; lengths and log-probs are consistent', async () => {
    const dec = await Decoder.create(gpu, cfg, table, params, { B: 4, Tmax: 24, blockKernel });
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

// Prefill and shared prefixes change how the cache is written, never what it holds: the same
// seeds give the same tokens, log-probs and entropies bit for bit as feeding prompts one step at a time.
describe.each([
  { variant: 'tiled', block: 'layered' },
  { variant: 'direct', block: 'layered' },
  { variant: 'direct', block: 'fused' },
] as const)('prefilled generation equals the token-by-token path ($variant kernels, $block blocks)', ({ variant, block }: { variant: 'tiled' | 'direct'; block: BlockKernel }) => {
  let gpu: Gpu;
  let params: GPUBuffer;
  beforeAll(async () => {
    gpu = await testGpu();
    params = gpu.upload(init, 'params');
  });

  const run = async (prompts: number[][], mode: PrefillMode, opts: { temperature: number; topK: number; topP: number }, prefillRows?: number) => {
    gpu.variantOverride = variant;
    try {
      const dec = await Decoder.create(gpu, cfg, table, params, { B: prompts.length, Tmax: 32, prefillRows, blockKernel: block });
      const g = await dec.generate(prompts, { ...opts, seed: 9, eosToken: EOS, maxNew: 12 }, mode);
      const trace = dec.lastTrace;
      dec.destroy();
      return { g, trace };
    } finally {
      gpu.variantOverride = null;
    }
  };
  const same = (a: { tokens: Uint32Array; logp: Float32Array; entropy: Float32Array }, b: typeof a) => {
    expect(Array.from(a.tokens)).toEqual(Array.from(b.tokens));
    expect(Array.from(a.logp)).toEqual(Array.from(b.logp));
    expect(Array.from(a.entropy)).toEqual(Array.from(b.entropy));
  };
  // two groups of four rows sharing a prompt (lengths 9 and 6), as a GRPO batch lays them out
  const grouped = [...Array<number[]>(4).fill([1, 5, 9, 13, 17, 21, 25, 29, 33]), ...Array<number[]>(4).fill([1, 7, 8, 40, 41, 3])];
  const distinct = [[1, 5, 9, 13, 17, 21], [1, 6, 7, 8, 9, 10, 11], [1, 8, 20, 21, 22], [1, 9, 10, 11, 12, 13, 14, 15]];

  it.each([
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 0.7, topK: 5, topP: 0.9 },
    { temperature: 0, topK: 0, topP: 1 },
  ])('groups of a shared prompt, sampler %o', async (opts) => {
    const off = await run(grouped, 'off', opts);
    const rows = await run(grouped, 'rows', opts);
    const shared = await run(grouped, 'shared', opts);
    same(rows.g, off.g);
    same(shared.g, off.g);
    expect(off.trace).toMatchObject({ prefilled: 0, sharedGroup: 1 });
    // prefilled up to the longest prompt (9 tokens); each row then decodes from its own prompt's end
    expect(rows.trace).toMatchObject({ prefilled: 8, sharedGroup: 1 });
    expect(shared.trace).toMatchObject({ prefilled: 8, sharedGroup: 4 });
    expect(shared.trace.decodeSteps).toBeLessThanOrEqual(12); // maxNew, whatever the prompts' lengths
    expect(off.trace.decodeSteps).toBeGreaterThan(shared.trace.decodeSteps);
    // the responses were sampled (not all prompt)
    expect(off.g.responseLen.every((n) => n > 0)).toBe(true);
  });

  it('distinct prompts of different lengths, and prefills cut into chunks of a few positions', async () => {
    const opts = { temperature: 1, topK: 0, topP: 1 };
    const off = await run(distinct, 'off', opts);
    const shared = await run(distinct, 'shared', opts);
    same(shared.g, off.g);
    expect(shared.trace).toMatchObject({ prefilled: 7, sharedGroup: 1 });
    // 8 rows per dispatch: 2 positions of 4 rows per chunk, 4 chunks (and grouped: 4 positions of 2 rows, 2 chunks, then the fork)
    const chunked = await run(distinct, 'rows', opts, 8);
    same(chunked.g, off.g);
    expect(chunked.trace.submits).toBe(shared.trace.submits + 3);
    // a row whose prompt nearly fills the context (25 of Tmax = 32) is cut at the context's end
    const long = [Array.from({ length: 25 }, (_, t) => 1 + ((t * 7) % 60)), [1, 5, 9], [1, 6, 7, 8], [1, 2]];
    const longOff = await run(long, 'off', opts);
    const longShared = await run(long, 'shared', opts);
    same(longShared.g, longOff.g);
    expect(longOff.g.responseLen[0]).toBe(7);
    expect(longOff.g.finished[0]).toBe(false);
    const groupedOff = await run(grouped, 'off', opts);
    const groupedChunked = await run(grouped, 'shared', opts, 8);
    same(groupedChunked.g, groupedOff.g);
  });
});

describe('the decode block design', () => {
  it('is fused on GPUs for models up to 64 channels, layered on software adapters, wider models and unsupported shapes', () => {
    const gpuAdapter = { softwareAdapter: false } as Gpu, softwareAdapter = { softwareAdapter: true } as Gpu;
    expect(defaultBlockKernel(gpuAdapter, GPT_PRESETS.small, null)).toBe('fused');
    expect(defaultBlockKernel(softwareAdapter, GPT_PRESETS.small, null)).toBe('layered');
    expect(defaultBlockKernel(gpuAdapter, { ...GPT_PRESETS.small, nEmbd: 128 }, null)).toBe('layered');
    expect(defaultBlockKernel(gpuAdapter, GPT_PRESETS.small, 'C=30 is not a multiple of 4')).toBe('layered');
  });

  it('asked for where it cannot run, says why', async () => {
    const gpu = await testGpu();
    const c30 = { vocabSize: 40, nPositions: 16, nEmbd: 30, nLayer: 1, nHead: 3, layerNormEps: 1e-5 };
    const t30 = buildTensorTable(c30);
    const p30 = gpu.upload(initParams(c30, t30, 1), 'c30');
    await expect(Decoder.create(gpu, c30, t30, p30, { B: 2, Tmax: 8, blockKernel: 'fused' })).rejects.toThrow(/fused decode block cannot run this model: C=30 is not a multiple of 4/);
    const dec = await Decoder.create(gpu, c30, t30, p30, { B: 2, Tmax: 8 });
    expect(dec.blockKernel).toBe('layered');
    dec.destroy();
    p30.destroy();
  });
});

describe('sharedGroupSize', () => {
  it('is the largest group of consecutive rows that hold one prompt', () => {
    const a = [1, 2, 3], b = [1, 2, 4], c = [5, 6, 7], a2 = [1, 2];
    expect(sharedGroupSize([a, a, a, a])).toBe(4);
    expect(sharedGroupSize([a, a, c, c])).toBe(2);
    expect(sharedGroupSize([a, b, c, c])).toBe(1);
    expect(sharedGroupSize([a, a2, c, c])).toBe(1); // a prefix is not the prompt
    expect(sharedGroupSize([a, a, a])).toBe(3);
    expect(sharedGroupSize([a, a, b, b, c, c])).toBe(2);
    expect(sharedGroupSize([a])).toBe(1);
  });
});
