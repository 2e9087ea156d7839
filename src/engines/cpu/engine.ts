// The CPU engine: the LoopEngine (src/loops/engine.ts) on the float64 op references, for CPU
// mode (browsers without WebGPU) and for checking the WebGPU engine. Sequences are sampled one after
// another, so it is slow and meant for the `tiny` policy. Parameters live in float64 inside;
// checkpoints take them as float32, like the WebGPU engine's.
import { CpuPolicy } from './policy';
import { CpuTrainer } from './trainer';
import { CpuFrozenPolicy } from './frozen_policy';
import { rollout } from '../../rl/rollout';
import { evaluateWith } from '../../eval/evaluate';
import type { EngineInit, LoopEngine, TrainSettings } from '../../loops/engine';

export function createCpuEngine(init: EngineInit, settings: TrainSettings): LoopEngine {
  const { cfg } = init;
  if (init.adapters?.length) throw new Error('engine: CPU mode has no LoRA adapter sets; a loop that trains adapters (TTSP) runs on the WebGPU engine');
  if (init.reference.length !== init.params.length) throw new Error(`engine: the reference parameters have ${init.reference.length} floats, the policy ${init.params.length}`);
  const policy = new CpuPolicy(cfg, init.params);
  const trainer = new CpuTrainer(policy, settings.rl, settings.maxNewTokens);
  const decoder = policy.decoder({ B: init.decodeBatch, Tmax: cfg.nPositions });
  let reference: CpuFrozenPolicy | null = null;
  let current = settings;
  const configure = (s: TrainSettings): void => {
    current = s;
    trainer.setRl(s.rl, s.maxNewTokens);
    trainer.setHyper({ lr: s.lr, weightDecay: s.weightDecay });
    reference?.setTemperature(s.rl.temperature);
  };
  configure(settings);
  let klOn = false;
  const frozen = (): CpuFrozenPolicy => (reference ??= new CpuFrozenPolicy(cfg, init.reference, current.rl.temperature));
  return {
    cfg,
    kind: 'cpu',
    rollout: (prompts, opts, reward) => rollout(decoder, prompts, opts, reward),
    async train(trajs) {
      klOn ||= current.rl.beta > 0;
      return trainer.train(klOn ? await frozen().annotate(trajs) : trajs);
    },
    configure,
    embed: (seqs) => frozen().embed(seqs),
    evaluate: (problems, opts, onProgress) => evaluateWith(cfg, (shape) => policy.decoder(shape), problems, opts, onProgress),
    readParams: async () => policy.paramsF32(),
    readOptimiserState: async () => trainer.optimiserState(),
    loadOptimiserState: (s) => trainer.loadOptimiserState(s),
    destroy: () => undefined,
  };
}
