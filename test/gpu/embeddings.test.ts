// Text embeddings of the frozen starting policy (LoopEngine.embed: OpenSIR's diversity): each
// sequence's mean over its own positions of the final hidden states after ln_f. The WebGPU
// engine's agree with a mean-pool written here over the float64 reference forward's ln_f, row by
// row and position by position (a wrong offset, row stride or count would not), and with CPU
// mode's engine; padding never leaks into a shorter sequence; updates never move them.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { gptForwardRef } from '../../src/reference/gpt';
import { createWebGpuEngine } from '../../src/engines/webgpu/engine';
import { createCpuEngine } from '../../src/engines/cpu/engine';
import { resolveRlConfig } from '../../src/rl/config';
import { BOS, encode, EOS, PAD, solvePrompt } from '../../src/world/index';
import { expectClose } from '../helpers/tolerance';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const params = initParams(cfg, table, 21);

/** The mean of ln_f's rows 0..len−1 of one sequence alone, from the float64 forward. */
function expected(seq: readonly number[]): Float64Array {
  const T = seq.length;
  const fw = gptForwardRef(cfg, table, Float64Array.from(params), { B: 1, T, tokens: Uint32Array.from(seq), targets: new Uint32Array(T).fill(PAD), w: new Float64Array(T), temperature: 1 });
  const C = cfg.nEmbd;
  const out = new Float64Array(C);
  for (let t = 0; t < T; t++) for (let c = 0; c < C; c++) out[c] += fw.lnf[t * C + c] / T;
  return out;
}

describe('embeddings of the frozen starting policy', () => {
  let gpu: Gpu;
  beforeAll(async () => {
    gpu = await testGpu();
  });

  it('WebGPU and CPU mode: the mean of ln_f over each sequence\'s own positions, unmoved by updates', async () => {
    const seqs = [[BOS, ...encode('1+1')], [BOS, ...encode('(7+5)*3-4')], [BOS], [BOS, ...encode('max(3,9)*2+mod(17,5)')], [BOS, ...encode('1+1')]];
    const settings = { rl: resolveRlConfig('grpo'), lr: 1e-2, weightDecay: 0, maxNewTokens: 8 };
    // 3 rows a forward: the sequences span two chunks of different lengths
    const init = { cfg, params, reference: params, trainRows: 3, decodeBatch: 4 };
    const gpuEngine = await createWebGpuEngine(gpu, init, settings);
    const cpuEngine = createCpuEngine(init, settings);
    try {
      const a = await gpuEngine.embed(seqs);
      const b = await cpuEngine.embed(seqs);
      expect(a).toHaveLength(seqs.length);
      seqs.forEach((s, i) => {
        expect(a[i]).toHaveLength(cfg.nEmbd);
        expectClose(`webgpu seq ${i}`, a[i], expected(s), { atol: 2e-5, rtol: 2e-4 });
        expectClose(`cpu seq ${i}`, b[i], expected(s), { atol: 1e-6, rtol: 1e-6 });
      });
      // the same text embeds the same, whatever shares its chunk; different texts differ
      expect(Array.from(a[4])).toEqual(Array.from(a[0]));
      expect(Math.max(...a[1].map((x, c) => Math.abs(x - a[0][c])))).toBeGreaterThan(1e-3);
      // an update moves the policy, not the embedder
      const prompt = solvePrompt('1+1');
      await gpuEngine.train([0, 1].map((g) => ({ role: 'solve' as const, groupId: 0, promptTokens: prompt, responseTokens: [...encode('#2'), EOS], lossMask: [1, 1, 1], oldLogp: [-1, -1, -1], entropy: [1, 1, 1], reward: g, truncated: false })));
      const after = await gpuEngine.embed(seqs);
      seqs.forEach((_, i) => expect(Array.from(after[i])).toEqual(Array.from(a[i])));
      expect(Array.from(await gpuEngine.readParams()).some((x, j) => x !== params[j])).toBe(true);
    } finally {
      gpuEngine.destroy();
      cpuEngine.destroy();
    }
  });
});
