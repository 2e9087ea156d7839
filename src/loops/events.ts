// What every loop yields: per-step metrics (TRL's names), sampled responses for the samples
// panel, curriculum records (what the loop made of its step: variants and their scores, pool
// entries, trees), periodic evaluations, checkpoints to resume from, a boundary after each
// step's events (where a run may pause), the phase the run enters (for its status line), and a
// final event carrying the trained parameters.

import type { AdapterState } from './engine';

export type RunPhaseKind = 'step' | 'evaluating' | 'saving';

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
  /** the engine's LoRA adapter sets (a loop that trains adapters over a frozen base: TTSP); absent otherwise */
  adapters?: AdapterState[];
  config: unknown;
  /**
   * The loop's own state at that step, plain JSON (generator positions, pools, buffers), handed
   * back to its body on resume; null for a loop with none (or a checkpoint from before states).
   */
  state: unknown;
}

/**
 * A curriculum record: one thing the loop made or judged this step (a variant and its scores,
 * a question, a pool entry). `kind` is one of the loop spec's `records`; the other fields are
 * plain JSON the loop's views read by name.
 */
export interface CurriculumRecord {
  kind: string;
  [field: string]: unknown;
}

export interface SampleRecord {
  prompt: string;
  response: string;
  reward: number;
  entropy: number[];
  /** the role that produced it, when the loop has several */
  role?: string;
}

export type LoopEvent =
  | { type: 'step'; step: number; seconds: number; metrics: Record<string, number> }
  | { type: 'samples'; step: number; samples: SampleRecord[] }
  | { type: 'records'; step: number; records: CurriculumRecord[] }
  | {
      type: 'eval'; step: number; set: string;
      passAtK: Record<string, number>; avgAtK: Record<string, number>; majAtK: Record<string, number>;
      meanEntropy: number; meanLength: number; histogram: number[];
      /** samples per problem, and each problem's correct ones (for standard errors across problems); absent in older runs */
      n?: number;
      correct?: number[];
    }
  | ({ type: 'checkpoint' } & LoopCheckpoint)
  // everything of step `step` has been yielded: a pause lands here (step 0: after the start's evaluation)
  | { type: 'boundary'; step: number }
  // what the run does from now until its next event: step `step` (sampling and updating), the
  // evaluation after step `step` (`detail`: its size), or the checkpoint of step `step`
  | { type: 'phase'; step: number; phase: RunPhaseKind; detail: string }
  | { type: 'done'; step: number; aborted: boolean; params: Float32Array; adapters?: AdapterState[] };
