// A loop of the registry on an engine made for it, outside the run manager: the engine is sized
// by the loop's spec, driven by the loop driver and freed when the generator ends (also when it
// is abandoned). For tests, fixtures and scripts; the page and the CLI go through the run
// manager (src/lab/worker/runs.ts), which adds pause, checkpoints and halts.
import type { BaseLoopConfig } from '../loops/base_config';
import { driveLoop, trainSettings, type DriveOptions } from '../loops/driver';
import type { EngineInit, LoopEngine, TrainSettings } from '../loops/engine';
import type { LoopEvent } from '../loops/events';
import { loopNamed } from '../loops/registry';
import type { GPTConfig } from '../model/config';

export type EngineMaker = (init: EngineInit, settings: TrainSettings) => Promise<LoopEngine> | LoopEngine;

export interface LocalRunOptions extends DriveOptions {
  /** the KL reference's parameters (default: `params`, the run's start; a resumed run passes its base) */
  reference?: Float32Array;
}

export async function* runLoopOn(
  makeEngine: EngineMaker, loop: string, base: { cfg: GPTConfig; params: Float32Array }, config: unknown, opts: LocalRunOptions = {},
): AsyncGenerator<LoopEvent> {
  const def = loopNamed(loop);
  const c: BaseLoopConfig = def.spec.validate(config, loop);
  const engine = await makeEngine({ cfg: base.cfg, params: base.params, reference: opts.reference ?? base.params, ...def.spec.shape(c) }, trainSettings(c, base.cfg.nPositions));
  try {
    yield* driveLoop(def, engine, c, opts);
  } finally {
    engine.destroy();
  }
}
