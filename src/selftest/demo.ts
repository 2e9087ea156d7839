// The memorise demo: the `tiny` policy learns one phrase by next-token cross-entropy on the
// GPU. The smallest complete training loop in the lab (forward, backward, clip, AdamW).
import type { Gpu } from '../gpu/runtime';
import { GPT } from '../model/gpt';
import { GPT_PRESETS } from '../model/config';
import { buildTensorTable } from '../model/params';
import { initParams } from '../model/init';
import { BOS, EOS, encode } from '../world/tokenizer';

export interface DemoOpts {
  phrase: string;
  steps: number;
  seed: number;
}

/** Steps between loss readbacks: the step itself never waits on the GPU. */
const READ_EVERY = 4;

export async function runMemoriseDemo(
  gpu: Gpu,
  opts: DemoOpts,
  onStep: (e: { step: number; loss: number; tokensPerS: number }) => void,
  signal?: AbortSignal,
): Promise<void> {
  const cfg = GPT_PRESETS.tiny;
  const ids = [BOS, ...encode(opts.phrase), EOS];
  if (ids.length - 1 > cfg.nPositions) throw new Error(`the phrase is ${ids.length - 2} tokens; the tiny policy's context holds ${cfg.nPositions - 1}`);
  if (!Number.isInteger(opts.steps) || opts.steps < 1) throw new Error(`steps must be a positive integer, got ${opts.steps}`);
  const T = ids.length - 1;
  const model = await GPT.create(gpu, cfg, initParams(cfg, buildTensorTable(cfg), opts.seed), { B: 1, T });
  model.setHyper({ lr: 1e-2, weightDecay: 0 });
  model.setBatch(Uint32Array.from(ids.slice(0, -1)), Uint32Array.from(ids.slice(1)), new Float32Array(T).fill(-1 / T));
  const t0 = performance.now();
  for (let step = 1; step <= opts.steps; step++) {
    if (signal?.aborted) return;
    model.step();
    if (step % READ_EVERY === 0 || step === opts.steps || step === 1) {
      // logp of this step's forward pass: the loss before its update
      const logp = await gpu.readF32(model.batch.logp);
      const loss = -logp.reduce((a, x) => a + x, 0) / T;
      if (!Number.isFinite(loss)) throw new Error(`the loss became ${loss} at step ${step}`);
      onStep({ step, loss, tokensPerS: (step * T) / ((performance.now() - t0) / 1000) });
    }
  }
}
