// The WebGPU engine: the LoopEngine (src/loops/engine.ts) on our WGSL kernels. It owns, for one
// run, the trainable policy (PolicyTrainer: forward, pg-loss head, backward, AdamW in one
// command buffer), a KV-cache decoder over the same parameter buffer, the frozen KL reference
// (made when β first turns positive) and the evaluations.
import type { Gpu } from '../../gpu/runtime';
import { buildTensorTable, type TensorTable } from '../../model/params';
import { Decoder } from '../../model/decoder';
import { PolicyTrainer, trainRowsFor } from './trainer';
import { FrozenPolicy } from './frozen_policy';
import { rollout } from '../../rl/rollout';
import { evaluateSet } from '../../eval/evaluate';
import type { EngineInit, LoopEngine, TrainSettings } from '../../loops/engine';
import { createAdapterEngine } from './adapters';

export async function createWebGpuEngine(gpu: Gpu, init: EngineInit, settings: TrainSettings): Promise<LoopEngine> {
  const { cfg } = init;
  if (init.adapters?.length) return createAdapterEngine(gpu, init, settings);
  if (init.reference.length !== init.params.length) throw new Error(`engine: the reference parameters have ${init.reference.length} floats, the policy ${init.params.length}`);
  const table: TensorTable = buildTensorTable(cfg);
  const shape = { rows: trainRowsFor(gpu, init.trainRows), T: cfg.nPositions };
  const trainer = await PolicyTrainer.create(gpu, cfg, init.params, settings.rl, { ...shape, maxNewTokens: settings.maxNewTokens });
  let decoder: Decoder;
  try {
    decoder = await Decoder.create(gpu, cfg, table, trainer.model.params, { B: init.decodeBatch, Tmax: cfg.nPositions });
  } catch (e) {
    trainer.destroy();
    throw e;
  }
  let reference: FrozenPolicy | null = null;
  let current = settings;
  const configure = (s: TrainSettings): void => {
    current = s;
    trainer.setRl(s.rl, s.maxNewTokens);
    trainer.model.setHyper({ lr: s.lr, weightDecay: s.weightDecay });
    reference?.setTemperature(s.rl.temperature);
  };
  configure(settings);
  // the frozen starting policy: the KL term's reference and the embedder, made when first needed
  let klOn = false;
  const frozen = async (): Promise<FrozenPolicy> => (reference ??= await FrozenPolicy.create(gpu, cfg, init.reference, shape, current.rl.temperature));
  return {
    cfg,
    kind: 'webgpu',
    rollout: (prompts, opts, reward) => rollout(decoder, prompts, opts, reward),
    async train(trajs) {
      // made when β first turns positive (at the start or by a live change), frozen thereafter
      // once β has been > 0 the KL reference scores every update (β set back to 0 live scores, weighs 0)
      klOn ||= current.rl.beta > 0;
      return trainer.train(klOn ? await (await frozen()).annotate(trajs) : trajs);
    },
    configure,
    embed: async (seqs) => (await frozen()).embed(seqs),
    evaluate: (problems, opts, onProgress) => evaluateSet(gpu, { cfg, table, params: trainer.model.params }, problems, opts, onProgress),
    readParams: () => trainer.model.readParams(),
    readOptimiserState: () => trainer.model.readOptimiserState(),
    loadOptimiserState: (s) => trainer.model.loadOptimiserState(s),
    destroy() {
      decoder.destroy();
      trainer.destroy();
      reference?.destroy();
    },
  };
}
