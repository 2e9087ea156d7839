// CPU mode's engine against the GPU engine on the same parameters: the CPU sampler draws the
// GPU sampler's tokens (same distribution, same Philox stream per row and position) with the
// same log-probs and entropies up to float32, an evaluation gives the same counts, and a GRPO
// update (two mini-batches, two epochs, so ratios move and clip) the same metrics and parameters.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import type { Gpu } from '../../src/gpu/runtime';
import type { GPTConfig } from '../../src/model/config';
import { buildTensorTable, type TensorTable } from '../../src/model/params';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import { Decoder } from '../../src/model/decoder';
import { evaluateSet, evaluateWith } from '../../src/eval/evaluate';
import { loadSet, solvePrompt, EOS } from '../../src/world/index';
import { CpuPolicy } from '../../src/engines/cpu/policy';
import { CpuTrainer } from '../../src/engines/cpu/trainer';
import { PolicyTrainer } from '../../src/engines/webgpu/trainer';
import { rollout } from '../../src/rl/rollout';
import { resolveRlConfig } from '../../src/rl/config';
import { answerOf } from '../../src/eval/score';


describe('CPU engine vs GPU engine', () => {
  let gpu: Gpu;
  let params: GPUBuffer;
  // the pretrained `small` policy: it answers, so responses end at different lengths
  let cfg: GPTConfig;
  let table: TensorTable;
  let init: Float32Array;
  beforeAll(async () => {
    gpu = await testGpu();
    ({ cfg, params: init } = await loadCheckpointDir(new URL('../../public/models/small', import.meta.url).pathname));
    table = buildTensorTable(cfg);
    params = gpu.upload(init, 'params');
  });

  it('samples the same tokens with the same log-probs and entropies', async () => {
    const prompts = ['1+2', '(4*5)-3', 'max(7,2)', '9'].map(solvePrompt);
    const opts = { temperature: 0.9, topK: 0, topP: 0.95, seed: 11, eosToken: EOS, maxNew: 20 };
    const g = await (await Decoder.create(gpu, cfg, table, params, { B: 4, Tmax: cfg.nPositions })).generate(prompts, opts);
    const c = await new CpuPolicy(cfg, init).decoder({ B: 4, Tmax: cfg.nPositions }).generate(prompts, opts);
    expect(new Set(g.responseLen).size, 'responses of different lengths').toBeGreaterThan(1);
    expect(c.responseLen).toEqual(g.responseLen);
    expect(c.finished).toEqual(g.finished);
    expect(Array.from(c.tokens)).toEqual(Array.from(g.tokens));
    // float32 kernels against float64 references
    expectClose('logp', c.logp, g.logp, { atol: 1e-4, rtol: 1e-4 });
    expectClose('entropy', c.entropy, g.entropy, { atol: 1e-4, rtol: 1e-4 });
  });

  it('evaluates a set to the same counts and pass@k', async () => {
    const problems = loadSet('eval-mixed').slice(0, 4).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
    const opts = { n: 4, ks: [1, 2, 4], seed: 7, maxNew: 16, batch: 8 };
    const onGpu = await evaluateSet(gpu, { cfg, table, params }, problems, opts);
    const policy = new CpuPolicy(cfg, init);
    const onCpu = await evaluateWith(cfg, (shape) => policy.decoder(shape), problems, opts);
    expect(onCpu.problems).toEqual(onGpu.problems);
    expect(onCpu.passAtK).toEqual(onGpu.passAtK);
    expect(onCpu.responseLength).toEqual(onGpu.responseLength);
  });

  it('takes the same GRPO update: metrics and new parameters agree to float32', async () => {
    const rl = resolveRlConfig('grpo', { miniBatches: 2, epochs: 2 });
    const problems = loadSet('train').slice(0, 4);
    const policy = new CpuPolicy(cfg, init);
    let i = 0;
    const trajs = await rollout(
      policy.decoder({ B: 16, Tmax: cfg.nPositions }),
      problems.map((p) => ({ prompt: solvePrompt(p.text), payload: p.answer })),
      { groupSize: 4, role: 'solve', groupIdBase: 0, seed: 3, temperature: 1, topK: 0, topP: 1, eosToken: EOS, maxNew: 24 },
      // alternating rewards inside each group: every group carries signal
      (_gold, response) => ({ reward: i++ % 2, text: answerOf(response).text }),
    );
    const gpuTrainer = await PolicyTrainer.create(gpu, cfg, init, rl, { rows: 8, T: cfg.nPositions, maxNewTokens: 24 });
    gpuTrainer.model.setHyper({ lr: 1e-4, weightDecay: 0.1 });
    const cpuTrainer = new CpuTrainer(policy, rl, 24);
    cpuTrainer.setHyper({ lr: 1e-4, weightDecay: 0.1 });
    const onGpu = await gpuTrainer.train(trajs);
    const onCpu = await cpuTrainer.train(trajs);
    const { metrics: mg, ...restG } = onGpu;
    const { metrics: mc, ...restC } = onCpu;
    expect(restC).toEqual(restG);
    expect(Object.keys(mc).sort()).toEqual(Object.keys(mg).sort());
    // a ratio within float32 rounding of a clip edge may clip on one engine only: the loss is
    // continuous there, the clip counts and the gradient are not
    const tol = (k: string) => (k.startsWith('clip_ratio/') ? 2.5 / mg.tokens : k === 'grad_norm' ? 0.02 * mg[k] : 1e-4);
    for (const k of Object.keys(mg)) expect(Math.abs(mc[k] - mg[k]), k).toBeLessThanOrEqual(tol(k));
    expect(mg['clip_ratio/region_mean'], 'the later mini-batches clip').toBeGreaterThan(0);
    // Four AdamW steps of lr 1e-4 move each weight by up to 4e-4; AdamW divides by √v, so a
    // weight whose gradient is rounding noise on the GPU can move differently by a part of that
    expectClose('params after the update', policy.paramsF32(), await gpuTrainer.model.readParams(), { atol: 1e-4, rtol: 1e-3 });
    gpuTrainer.destroy();
  });
});
