// What every loop yields: per-step metrics (TRL's names), sampled responses for the samples
// panel, periodic evaluations, and a final event carrying the trained parameters.
export type LoopEvent =
  | { type: 'step'; step: number; seconds: number; metrics: Record<string, number> }
  | { type: 'samples'; step: number; samples: { prompt: string; response: string; reward: number; entropy: number[] }[] }
  | {
      type: 'eval'; step: number; set: string;
      passAtK: Record<string, number>; avgAtK: Record<string, number>; majAtK: Record<string, number>;
      meanEntropy: number; meanLength: number; histogram: number[];
    }
  | { type: 'done'; step: number; aborted: boolean; params: Float32Array };
