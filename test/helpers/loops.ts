// Loops of the registry in tests, on the WebGPU engine or CPU mode's float64 engine.
import type { Gpu } from '../../src/gpu/runtime';
import type { GPTConfig } from '../../src/model/config';
import { createWebGpuEngine } from '../../src/engines/webgpu/engine';
import { createCpuEngine } from '../../src/engines/cpu/engine';
import { runLoopOn, type LocalRunOptions } from '../../src/engines/local_run';
import type { LoopEvent } from '../../src/loops/events';
import type { LoopControls, ResumePoint } from '../../src/loops/driver';

export function runOnGpu(gpu: Gpu, loop: string, cfg: GPTConfig, params: Float32Array, config: unknown, opts: LocalRunOptions = {}): AsyncGenerator<LoopEvent> {
  return runLoopOn((init, s) => createWebGpuEngine(gpu, init, s), loop, { cfg, params }, config, opts);
}

export function runOnCpu(loop: string, cfg: GPTConfig, params: Float32Array, config: unknown, opts: LocalRunOptions = {}): AsyncGenerator<LoopEvent> {
  return runLoopOn((init, s) => createCpuEngine(init, s), loop, { cfg, params }, config, opts);
}

/** Every event of a run, the step boundaries and phase marks (the status line's) left out. */
export async function collect(gen: AsyncGenerator<LoopEvent>): Promise<LoopEvent[]> {
  const out: LoopEvent[] = [];
  for await (const e of gen) if (e.type !== 'boundary' && e.type !== 'phase') out.push(e);
  return out;
}

/** A resume point as tests build it: the checkpoint's step, optimiser, body state and KL reference. */
export interface TestResume {
  step: number;
  optimiser: ResumePoint['optimiser'];
  state?: unknown;
  reference?: Float32Array;
}

/** GRPO on the WebGPU engine, boundaries left out (the events a run logs). */
export async function* runGrpo(gpu: Gpu, cfg: GPTConfig, params: Float32Array, config: unknown, signal?: AbortSignal, controls?: LoopControls, resume?: TestResume): AsyncGenerator<LoopEvent> {
  const opts: LocalRunOptions = { signal, controls, reference: resume?.reference, resume: resume ? { step: resume.step, optimiser: resume.optimiser, state: resume.state ?? null } : undefined };
  for await (const e of runOnGpu(gpu, 'grpo', cfg, params, config, opts)) if (e.type !== 'boundary' && e.type !== 'phase') yield e;
}

/** GRPO on CPU mode's float64 engine, boundaries left out. */
export async function* runGrpoCpu(cfg: GPTConfig, params: Float32Array, config: unknown, signal?: AbortSignal, controls?: LoopControls, resume?: TestResume): AsyncGenerator<LoopEvent> {
  const opts: LocalRunOptions = { signal, controls, reference: resume?.reference, resume: resume ? { step: resume.step, optimiser: resume.optimiser, state: resume.state ?? null } : undefined };
  for await (const e of runOnCpu('grpo', cfg, params, config, opts)) if (e.type !== 'boundary' && e.type !== 'phase') yield e;
}
