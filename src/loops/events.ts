// What every loop yields: per-step metrics (TRL's names), sampled responses for the samples
// panel, periodic evaluations, checkpoints to resume from, and a final event carrying the
// trained parameters.

/** AdamW moments (the trainable buffer's layout) and the optimiser's step count (bias correction). */
export interface OptimiserState {
  m: Float32Array;
  v: Float32Array;
  step: number;
}

/**
 * Everything a loop needs to continue exactly where it was after `step` completed steps: the
 * parameters, the optimiser state and the loop's config as it stood then (live changes applied).
 * The config is the loop's own type; whoever stores it validates it again before resuming.
 */
export interface LoopCheckpoint {
  step: number;
  params: Float32Array;
  optimiser: OptimiserState;
  config: unknown;
}

export type LoopEvent =
  | { type: 'step'; step: number; seconds: number; metrics: Record<string, number> }
  | { type: 'samples'; step: number; samples: { prompt: string; response: string; reward: number; entropy: number[] }[] }
  | {
      type: 'eval'; step: number; set: string;
      passAtK: Record<string, number>; avgAtK: Record<string, number>; majAtK: Record<string, number>;
      meanEntropy: number; meanLength: number; histogram: number[];
    }
  | ({ type: 'checkpoint' } & LoopCheckpoint)
  | { type: 'done'; step: number; aborted: boolean; params: Float32Array };
