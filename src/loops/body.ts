// A loop's body: what happens inside one RL step (sampling for its roles, rewards, the update)
// and the state it carries between steps. The driver (driver.ts) does everything else the same
// way for every loop: live knob changes, the step event, samples, records, evaluations,
// checkpoints, step boundaries, the final event.
import type { BaseLoopConfig } from './base_config';
import type { LoopEngine } from './engine';
import type { CurriculumRecord, SampleRecord } from './events';

/** What a step reports; the driver adds the knob values (lr, temperature, …) to `metrics`. */
export interface StepResult {
  metrics: Record<string, number>;
  /** up to samplesPerStep sampled responses for the samples panel */
  samples?: SampleRecord[];
  records?: CurriculumRecord[];
}

/** What the driver tells a step about the run around it. */
export interface StepContext {
  /**
   * Whether this step is the run's last, given the tokens it generated (its `tokens/generated`):
   * step == steps, or those tokens bring the run to its tokenBudget (the driver stops after it).
   */
  last(generated: number): boolean;
}

export interface LoopRun<C extends BaseLoopConfig> {
  /** Step `step` (1-based) under config `c` (live changes applied); `ctx` is absent outside the driver. */
  step(step: number, c: C, ctx?: StepContext): Promise<StepResult>;
  /** The state to resume from after the last completed step, as plain JSON (null: none). */
  state(): unknown;
}

/** Where a resumed run picks up: after `step` steps, with the body's saved state (null if none was saved). */
export interface BodyResume {
  step: number;
  state: unknown;
}

/** Makes a loop's run on an engine; with `resume`, it continues exactly as the uninterrupted run would. */
export type LoopBody<C extends BaseLoopConfig> = (engine: LoopEngine, config: C, resume: BodyResume | null) => LoopRun<C>;
