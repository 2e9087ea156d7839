// The one outer loop of every loop (DESIGN "loops"): evaluation at the start, then per step the
// live knob changes, the body's step, and in a fixed order the step event, its samples, its
// curriculum records, the evaluation when due, the checkpoint when due, and the step boundary
// (where a run may pause); a stopped run saves its last step; the final event carries the
// parameters. The worker, the CLI and the tests all run loops through this generator.
import type { EvalOptions, EvalResult } from '../eval/evaluate';
import { loadSet } from '../world/index';
import type { BaseLoopConfig } from './base_config';
import type { AdapterState, LoopEngine, TrainSettings } from './engine';
import type { LoopEvent, OptimiserState } from './events';
import type { LoopDefinition } from './spec';
import { breathe } from '../util/breathe';

/** Knobs that are safe to change while a run trains (every loop has them); they apply from the next step. */
export interface LiveKnobs {
  lr: number;
  temperature: number;
  beta: number;
  entCoef: number;
  clipLow: number;
  clipHigh: number;
}

/** Read at the top of every step: what the user changed since the last one (or nothing). */
export interface LoopControls {
  pending(): Partial<LiveKnobs> | null;
}

/** Where a resumed run picks up: after `step` steps, with this optimiser state and the body's state. */
export interface ResumePoint {
  step: number;
  optimiser: OptimiserState;
  /** the body's state saved with the checkpoint (null: a checkpoint without one) */
  state: unknown;
  /** the engine's adapter sets at that step (a loop that trains adapters) */
  adapters?: AdapterState[];
  /** tokens generated up to that step (the token budget counts on from there; default 0) */
  tokens?: number;
}

export interface DriveOptions {
  signal?: AbortSignal;
  /** hears an evaluation's progress (the step it follows, samples drawn of all) between its decoder batches */
  onEvalProgress?: (step: number, done: number, total: number) => void;
  controls?: LoopControls;
  resume?: ResumePoint;
}

/** The k of pass@k: powers of two up to n, and n. */
export function kList(n: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (ks[ks.length - 1] !== n) ks.push(n);
  return ks;
}

/** The held-out evaluation's options: the same seed at every evaluation point. */
export function evalOptions(c: BaseLoopConfig & { maxNewTokens?: number; evalMaxNewTokens?: number }): EvalOptions {
  const maxNew = c.evalMaxNewTokens ?? c.maxNewTokens;
  return { n: c.evalN, ks: kList(c.evalN), seed: (c.seed * 1000 + 7) >>> 0, temperature: c.rl.temperature, ...(maxNew !== undefined ? { maxNew } : {}) };
}

export function evalEvent(c: BaseLoopConfig, step: number, r: EvalResult): LoopEvent {
  return {
    type: 'eval', step, set: c.evalSet, passAtK: r.passAtK, avgAtK: r.avgAtK, majAtK: r.majAtK, meanEntropy: r.meanEntropy, meanLength: r.responseLength.mean,
    histogram: r.histogram.counts, n: c.evalN, correct: r.problems.map((p) => p.c),
  };
}

/** True when step `step`'s checkpoint is due (every `checkpointEvery` steps, and always after the last). */
export function checkpointDue(c: Pick<BaseLoopConfig, 'steps' | 'checkpointEvery'>, step: number): boolean {
  return (c.checkpointEvery > 0 && step % c.checkpointEvery === 0) || step === c.steps;
}

export function evalDue(c: Pick<BaseLoopConfig, 'steps' | 'evalEvery'>, step: number): boolean {
  return (c.evalEvery > 0 && step % c.evalEvery === 0) || step === c.steps;
}

/** True when `spent` generated tokens reach the run's token budget (0 = no budget). */
export function budgetReached(c: Pick<BaseLoopConfig, 'tokenBudget'>, spent: number): boolean {
  return c.tokenBudget > 0 && spent >= c.tokenBudget;
}

/** Applies live changes; returns the config they produce, validated by the loop's own validator. */
export function applyKnobs<C extends BaseLoopConfig>(validate: (obj: unknown, where?: string) => C, c: C, k: Partial<LiveKnobs>): C {
  const { lr, ...rl } = k;
  return validate({ ...c, ...(lr !== undefined ? { lr } : {}), rl: { ...c.rl, ...rl } }, 'live change');
}

/** The knob values a step ran with, reported in its metrics (the charts mark where they changed). */
export function knobMetrics(c: BaseLoopConfig): Record<string, number> {
  return { lr: c.lr, temperature: c.rl.temperature, beta: c.rl.beta, entCoef: c.rl.entCoef, clip_low: c.rl.clipLow, clip_high: c.rl.clipHigh };
}

/** The optimiser's settings from a loop config (L_max of constant_norm: its longest response). */
export function trainSettings(c: BaseLoopConfig & { maxNewTokens?: number }, maxNewTokens: number): TrainSettings {
  return { rl: c.rl, lr: c.lr, weightDecay: c.weightDecay, maxNewTokens: c.maxNewTokens ?? maxNewTokens };
}

/**
 * Runs `def` on `engine` from the engine's current parameters, yielding its events (see the file
 * header). With `resume`, the engine holds the checkpoint's parameters, `config` is the
 * checkpoint's, and the run continues after `resume.step` exactly as the uninterrupted one: same
 * optimiser state, the body's saved state; the start's evaluation is not repeated.
 */
export async function* driveLoop<C extends BaseLoopConfig>(def: LoopDefinition<C>, engine: LoopEngine, config: C, opts: DriveOptions = {}): AsyncGenerator<LoopEvent> {
  const { signal, controls, resume } = opts;
  let c = config;
  if (resume && (!Number.isSafeInteger(resume.step) || resume.step < 0 || resume.step > c.steps)) throw new Error(`${def.spec.name}: cannot resume after step ${resume.step} of a ${c.steps}-step run`);
  const evalProblems = loadSet(c.evalSet).slice(0, c.evalProblems).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
  const settings = (cc: C) => trainSettings(cc, engine.cfg.nPositions);
  engine.configure(settings(c));
  if (resume) engine.loadOptimiserState(resume.optimiser);
  if (resume && engine.adapters) {
    if (!resume.adapters?.length) throw new Error(`${def.spec.name}: the checkpoint holds no adapter sets (${engine.adapters.names.join(', ')}), so the run cannot continue where it was`);
    engine.adapters.load(resume.adapters);
  }
  const readAdapters = async (): Promise<{ adapters?: AdapterState[] }> => (engine.adapters ? { adapters: await engine.adapters.read() } : {});
  const run = def.body(engine, c, resume ? { step: resume.step, state: resume.state } : null);
  // every evaluation samples as the first did: a live temperature change would otherwise make
  // the start and later pass@k curves incomparable
  const evalOpts = evalOptions(config);
  const evaluate = async (step: number): Promise<LoopEvent> =>
    evalEvent(c, step, await engine.evaluate(evalProblems, evalOpts, opts.onEvalProgress && ((p) => opts.onEvalProgress?.(step, p.samplesDone, p.samplesTotal))));
  const evaluating: LoopEvent = { type: 'phase', step: 0, phase: 'evaluating', detail: `${evalProblems.length} problems × ${evalOpts.n} samples` };
  const checkpoint = async (step: number): Promise<LoopEvent> => {
    const [params, optimiser, adapters] = await Promise.all([engine.readParams(), engine.readOptimiserState(), readAdapters()]);
    return { type: 'checkpoint', step, params, optimiser, ...adapters, config: c, state: run.state() };
  };
  let step = resume?.step ?? 0;
  let saved = step;
  // generated tokens so far, against the token budget (0 = off): the step that reaches it is the last
  let spent = resume?.tokens ?? 0;
  let spentOut = false;
  if (!resume) {
    yield evaluating;
    yield await evaluate(0);
    yield { type: 'boundary', step: 0 };
  }
  while (step < c.steps && !spentOut && !signal?.aborted) {
    step++;
    const change = controls?.pending();
    if (change && Object.keys(change).length) {
      c = applyKnobs(def.spec.validate, c, change);
      engine.configure(settings(c));
    }
    yield { type: 'phase', step, phase: 'step', detail: '' };
    const t0 = performance.now();
    // a body that does something after its last step (TTSP's target evaluation) asks with its own token count
    const before = spent, at = step, cc = c;
    const r = await run.step(step, c, { last: (generated) => at === cc.steps || budgetReached(cc, before + generated) });
    yield { type: 'step', step, seconds: (performance.now() - t0) / 1000, metrics: { ...r.metrics, ...knobMetrics(c) } };
    spent += r.metrics['tokens/generated'] ?? 0;
    spentOut = budgetReached(c, spent);
    if (c.samplesPerStep > 0 && r.samples?.length) yield { type: 'samples', step, samples: r.samples.slice(0, c.samplesPerStep) };
    if (r.records?.length) yield { type: 'records', step, records: r.records };
    if (evalDue(c, step) || spentOut) {
      yield { ...evaluating, step };
      yield await evaluate(step);
    }
    if (checkpointDue(c, step) || spentOut) {
      yield { type: 'phase', step, phase: 'saving', detail: '' };
      yield await checkpoint(step);
      saved = step;
    }
    yield { type: 'boundary', step };
    await breathe();
  }
  // a stopped run keeps its last step too (for export), after its last boundary
  if (step > saved) yield await checkpoint(step);
  yield { type: 'done', step, aborted: Boolean(signal?.aborted), params: await engine.readParams(), ...(await readAdapters()) };
}
