// Supervised pretraining of a base policy on the world's role mixture, on the GPU engine.
// Browser-safe: checkpoints go through the caller's `save` callback. The run is a pure
// function of (config, seed): batch s depends only on (seed, s), and a resumed run restores
// parameters, AdamW moments and the step, so it continues exactly as an uninterrupted one.
import type { Gpu } from '../gpu/runtime';
import { GPT } from '../model/gpt';
import type { GPTConfig } from '../model/config';
import { DEFAULT_CURRICULUM, DEFAULT_MIX, lrAt, maxOpsAt, pretrainBatch, type CurriculumSpec, type RoleMix } from './data';

export interface PretrainConfig {
  seed: number;
  /** maximum optimiser steps; the run may stop earlier when the held-out loss stops improving */
  steps: number;
  batchSize: number;
  seqLen: number;
  lr: number;
  warmup: number;
  weightDecay: number;
  evalEvery: number;
  /** stop after this many evaluations without a new best held-out loss (0 = never) */
  patience: number;
  evalBatches: number;
  mix: RoleMix;
  curriculum: CurriculumSpec;
  /** several whole examples per row (see pretrainBatch); false: one padded example per row */
  pack: boolean;
  /**
   * Loss weight of prompt tokens after the role token, relative to response tokens (0..1). The
   * held-out loss stays on response tokens only, so runs with different weights compare.
   */
  promptWeight: number;
}

/**
 * The shipped `small`'s recipe: `npm run pretrain -- --preset small --seed 1` reproduces it (about
 * 70 minutes here). 16 packed rows a step for 4,000 steps (the first `small` took 3,600 and its
 * held-out loss was still falling); 16 rows for 1,800 steps against 32 gave twice the updates to
 * each held-out loss with about a quarter fewer tokens.
 */
export const DEFAULT_PRETRAIN: Omit<PretrainConfig, 'seed'> = {
  steps: 4000,
  batchSize: 16,
  seqLen: 128,
  lr: 3e-3,
  warmup: 100,
  weightDecay: 0.1,
  evalEvery: 100,
  patience: 5,
  evalBatches: 4,
  mix: DEFAULT_MIX,
  curriculum: DEFAULT_CURRICULUM,
  pack: true,
  promptWeight: 1,
};

export interface PretrainState {
  step: number;
  bestEvalLoss: number;
  evalsSinceBest: number;
  tokensSeen: number;
  history: { step: number; trainLoss: number; evalLoss: number; lr: number; tokensPerS: number }[];
}

export interface PretrainHooks {
  onEval?(e: PretrainState['history'][number]): void;
  /** called every evaluation with the state to persist (and at the end) */
  save?(model: GPT, state: PretrainState): Promise<void>;
  signal?: AbortSignal;
}

/** Held-out loss: batches from a seed stream no training step uses, at the final curriculum. */
async function evalLoss(model: GPT, cfg: PretrainConfig): Promise<number> {
  let total = 0;
  for (let i = 0; i < cfg.evalBatches; i++) {
    const b = pretrainBatch(cfg.seed ^ 0x5eed5eed, 1_000_000 + i, model.B, model.T, cfg.mix, cfg.curriculum.finalMaxOps, cfg.pack);
    model.setBatch(b.tokens, b.targets, b.w);
    model.forward();
    const logp = await model.gpu.readF32(model.batch.logp);
    let s = 0;
    for (let j = 0; j < logp.length; j++) s += b.w[j] * logp[j];
    total += s;
  }
  return total / cfg.evalBatches;
}

export async function createPretrainModel(gpu: Gpu, cfg: GPTConfig, init: Float32Array, pc: PretrainConfig): Promise<GPT> {
  const model = await GPT.create(gpu, cfg, init, { B: pc.batchSize, T: pc.seqLen });
  model.setHyper({ weightDecay: pc.weightDecay });
  return model;
}

export function freshState(): PretrainState {
  return { step: 0, bestEvalLoss: Infinity, evalsSinceBest: 0, tokensSeen: 0, history: [] };
}

/** Trains from `state` until `steps`, early stop, or abort; returns the final state. */
export async function pretrain(model: GPT, pc: PretrainConfig, state: PretrainState, hooks: PretrainHooks = {}): Promise<PretrainState> {
  let t0 = performance.now();
  let tokens0 = state.tokensSeen;
  let trainLossAcc = 0;
  let trainLossN = 0;
  while (state.step < pc.steps) {
    if (hooks.signal?.aborted) break;
    const s = state.step;
    const b = pretrainBatch(pc.seed, s, pc.batchSize, pc.seqLen, pc.mix, maxOpsAt(s / pc.steps, pc.curriculum), pc.pack, pc.promptWeight);
    const lr = lrAt(s, pc.steps, pc.lr, pc.warmup);
    model.setHyper({ lr });
    model.setBatch(b.tokens, b.targets, b.w);
    model.step();
    state.step++;
    state.tokensSeen += b.responseTokens;
    if (state.step % pc.evalEvery === 0 || state.step === pc.steps) {
      const logp = await model.gpu.readF32(model.batch.logp);
      let tl = 0;
      for (let j = 0; j < logp.length; j++) tl += b.w[j] * logp[j];
      trainLossAcc += tl;
      trainLossN++;
      const status = await model.gpu.readU32(model.status);
      if (status[0] !== 0) throw new Error(`pretraining: non-finite gradients at step ${state.step}; the step was rejected`);
      const evalLossNow = await evalLoss(model, pc);
      const tokensPerS = ((state.tokensSeen - tokens0) / (performance.now() - t0)) * 1000;
      const rec = { step: state.step, trainLoss: trainLossAcc / trainLossN, evalLoss: evalLossNow, lr, tokensPerS };
      state.history.push(rec);
      trainLossAcc = 0;
      trainLossN = 0;
      if (evalLossNow < state.bestEvalLoss - 1e-4) {
        state.bestEvalLoss = evalLossNow;
        state.evalsSinceBest = 0;
      } else state.evalsSinceBest++;
      hooks.onEval?.(rec);
      await hooks.save?.(model, state);
      t0 = performance.now();
      tokens0 = state.tokensSeen;
      if (pc.patience > 0 && state.evalsSinceBest >= pc.patience) break;
    }
  }
  return state;
}
