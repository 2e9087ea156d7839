// The engine a loop's body runs on. Two implement it: the WebGPU engine
// (src/engines/webgpu/engine.ts, our WGSL kernels) and the CPU engine (src/engines/cpu/engine.ts,
// the float64 op references, CPU mode's), so a loop is written once and runs on either; a test
// runs the same loop on both and compares.
// Types only: nothing here computes.
import type { GPTConfig } from '../model/config';
import type { EvalOptions, EvalProblem, EvalProgress, EvalResult } from '../eval/evaluate';
import type { RlCoreConfig } from '../rl/config';
import type { Rollout, RolloutOptions, RolloutPrompt } from '../rl/rollout';
import type { TrainStats } from '../rl/update';
import type { Trajectory } from '../rl/trajectory';
import type { OptimiserState } from './events';
import type { LoraSpec } from '../model/lora';
import type { Role } from '../world/index';

/** The reward of one response: its value and the decoded text before the end token. */
export type RewardFn<P> = (payload: P, response: readonly number[]) => { reward: number; text: string };

/** What the optimiser and the loss use now; set before the first step and after each live change. */
export interface TrainSettings {
  rl: RlCoreConfig;
  lr: number;
  weightDecay: number;
  /** the loop's longest response: constant_norm's L_max unless rl.constantNormTokens sets one */
  maxNewTokens: number;
}

export interface LoopEngine {
  /** the policy's architecture */
  readonly cfg: GPTConfig;
  /** 'webgpu' or 'cpu', for the run's record */
  readonly kind: string;
  /**
   * G responses per prompt (opts.groupSize), sampled with the KV cache from the current policy
   * with the given seed, each scored by `reward`: trajectories grouped by (role, groupId).
   */
  rollout<P>(prompts: readonly RolloutPrompt<P>[], opts: RolloutOptions, reward: RewardFn<P>): Promise<Rollout<P>[]>;
  /**
   * One RL update on `trajs` (advantages per role and group unless external, filtering, μ epochs
   * over mini-batches, gradient accumulation over rows that do not fit at once). With β > 0 the
   * engine scores the trajectories under the run's frozen starting policy first (the KL term).
   */
  train(trajs: readonly Trajectory[]): Promise<TrainStats>;
  /** Sets the optimiser's and the loss's settings; applies from the next rollout and update. */
  configure(s: TrainSettings): void;
  /** Held-out evaluation of the current policy: n solve samples per problem, pass@k, avg@k, maj@k. */
  /** `onProgress` hears after each decoder batch how many samples are drawn */
  evaluate(problems: readonly EvalProblem[], opts: EvalOptions, onProgress?: (p: EvalProgress) => void): Promise<EvalResult>;
  /**
   * Embeddings of token sequences (e.g. problems written by the policy): the mean over each
   * sequence's positions of the final hidden states of the run's frozen starting policy, the
   * KL reference's parameters (no second model). The same text always embeds the same.
   */
  embed(seqs: readonly (readonly number[])[]): Promise<Float32Array[]>;
  /**
   * The base parameters. With adapter sets (`adapters`) the base is frozen: these are the
   * starting parameters, bit for bit, and the optimiser state is empty (zeros, step 0).
   */
  readParams(): Promise<Float32Array>;
  readOptimiserState(): Promise<OptimiserState>;
  loadOptimiserState(s: OptimiserState): void;
  /** Frees what the engine holds (GPU buffers); the engine is unusable after. */
  destroy(): void;
  /** present when the engine was made with adapter sets (EngineInit.adapters) */
  readonly adapters?: AdapterControl;
}

/**
 * A LoRA adapter set a loop trains instead of the base (TTSP's proposer and solver): the rollouts
 * of its roles sample with it, the trajectories of its roles train it (its own AdamW state), and
 * the base stays frozen. The held-out evaluation samples with the set that serves `solve`.
 */
export interface AdapterSetInit {
  spec: LoraSpec;
  roles: readonly Role[];
  /** seed of initLora when `init` is not given (A random, B = 0: the set starts as the base) */
  seed: number;
  /** starting values in the adapter table's layout (a reloaded adapter) */
  init?: Float32Array;
  /** the longest output of its roles (constant_norm's L_max; default: the loop's maxNewTokens) */
  maxNewTokens?: number;
}

/** One adapter set's values and optimiser state (a checkpoint of it). */
export interface AdapterState {
  spec: LoraSpec;
  params: Float32Array;
  optimiser: OptimiserState;
}

export interface AdapterControl {
  readonly names: readonly string[];
  read(): Promise<AdapterState[]>;
  /** puts saved sets back (a resumed run); every set of the engine must be given, of the same rank and α */
  load(states: readonly AdapterState[]): void;
}

/** What an engine is made from: the policy, where the KL reference starts, and sizes. */
export interface EngineInit {
  cfg: GPTConfig;
  /** the parameters to train from */
  params: Float32Array;
  /** the frozen reference of the KL term: the run's starting policy (a resumed run's base) */
  reference: Float32Array;
  /** trajectories per forward/backward on the trainer (larger updates accumulate gradients over several) */
  trainRows: number;
  /** sequences per decoder batch */
  decodeBatch: number;
  /** LoRA adapter sets to train instead of the base (the WebGPU engine only) */
  adapters?: readonly AdapterSetInit[];
}
