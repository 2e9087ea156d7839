// Sampling-based evaluation of a policy on a problem set: n solve responses per problem from
// the KV-cache decoder, many (problem, sample) pairs per generate call, the answers checked
// against the gold, then pass@k / avg@k / maj@k (src/metrics/passk.ts). Browser-safe: the
// caller supplies the Gpu and the parameters already on it.
import type { Gpu } from '../gpu/runtime';
import type { GPTConfig } from '../model/config';
import type { TensorTable } from '../model/params';
import { Decoder } from '../model/decoder';
import type { SamplingDecoder } from '../rl/rollout';
import { EOS, ROLE_LIMITS, solvePrompt, VOCAB_SIZE } from '../world';
import { accuracyHistogram, meanAvgAtK, meanMajAtK, meanPassAtK, type AccuracyHistogram, type MetricAtK } from '../metrics/passk';
import { responseLengthStats, type LengthStats } from '../metrics/entropy';
import { scoreRow, type ScoredSample } from './score';

export interface EvalModel {
  cfg: GPTConfig;
  table: TensorTable;
  /** the flat parameter buffer laid out by `table` */
  params: GPUBuffer;
}

export interface EvalProblem {
  id: string | number;
  text: string;
  answer: number;
}

export interface EvalOptions {
  /** samples per problem */
  n: number;
  /** the k of pass@k, avg@k and maj@k, each in [1, n] */
  ks: readonly number[];
  seed: number;
  /** sampling temperature (default 1.0: the policy's own distribution) */
  temperature?: number;
  /** nucleus mass in (0, 1], 1 = off (default) */
  topP?: number;
  /** 0 = off (default) */
  topK?: number;
  /** most response tokens, EOS included (default: the solve role's limit; the context may cut it shorter) */
  maxNew?: number;
  /** sequences per generate call (default 64) */
  batch?: number;
  /** an engine with adapter sets samples the frozen base instead of the set that serves `solve` */
  frozenBase?: boolean;
}

export const EVAL_DEFAULTS = { temperature: 1, topP: 1, topK: 0, maxNew: ROLE_LIMITS.solve.response, batch: 64 } as const;

export interface EvalProgress {
  samplesDone: number;
  samplesTotal: number;
  /** problems whose n samples are all drawn */
  problemsDone: number;
  problemsTotal: number;
}

export interface ProblemResult {
  id: string | number;
  n: number;
  /** correct samples */
  c: number;
  gold: number;
  /** each sample's answer (null: none, or truncated) */
  answers: (number | null)[];
}

export interface EvalResult {
  problems: ProblemResult[];
  passAtK: MetricAtK;
  avgAtK: MetricAtK;
  majAtK: MetricAtK;
  histogram: AccuracyHistogram;
  /** token-mean sampling entropy over every response token */
  meanEntropy: number;
  /** response lengths in tokens; clipRatio = fraction truncated */
  responseLength: LengthStats;
}

function checkOptions(o: Required<EvalOptions>, problems: readonly EvalProblem[]): void {
  const int = (v: number, min: number) => Number.isInteger(v) && v >= min;
  if (problems.length === 0) throw new RangeError('evaluateSet: no problems');
  if (!int(o.n, 1)) throw new RangeError(`evaluateSet: n must be a positive integer, got ${o.n}`);
  if (o.ks.length === 0) throw new RangeError('evaluateSet: no k given');
  for (const k of o.ks) if (!int(k, 1) || k > o.n) throw new RangeError(`evaluateSet: k = ${k} must be an integer in [1, n = ${o.n}]`);
  if (!int(o.seed, 0) || o.seed > 0xffffffff) throw new RangeError(`evaluateSet: seed must be an integer in [0, 2^32), got ${o.seed}`);
  if (!int(o.batch, 1)) throw new RangeError(`evaluateSet: batch must be a positive integer, got ${o.batch}`);
  if (!int(o.maxNew, 1)) throw new RangeError(`evaluateSet: maxNew must be a positive integer, got ${o.maxNew}`);
}

/**
 * Why the model cannot serve the world at all, or null: another vocabulary than the world's
 * tokenizer, or a context that cannot hold the longest solve prompt and one answer token.
 */
export function whyModelCannotServe(cfg: GPTConfig): string | null {
  if (cfg.vocabSize !== VOCAB_SIZE) return `the model's vocabulary has ${cfg.vocabSize} tokens, the world's tokenizer ${VOCAB_SIZE}`;
  const need = ROLE_LIMITS.solve.prompt + 1;
  if (cfg.nPositions < need) return `the model's context is ${cfg.nPositions} tokens; the world's solve prompts need up to ${need} with one answer token`;
  return null;
}

/** Why the model cannot sample solve responses for these problems (tokenizer, context), or null. */
export function whyModelCannotSolve(cfg: GPTConfig, problems: readonly EvalProblem[]): string | null {
  if (cfg.vocabSize !== VOCAB_SIZE) return `the model's vocabulary has ${cfg.vocabSize} tokens, the world's tokenizer ${VOCAB_SIZE}`;
  for (const p of problems) {
    const len = solvePrompt(p.text).length;
    if (len >= cfg.nPositions) return `problem ${p.id} has a ${len}-token prompt; the model's context is ${cfg.nPositions}`;
  }
  return null;
}

/** A well-mixed u32 seed per generate call, so batches draw independent samples. */
export function batchSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Samples opts.n solve responses for every problem and counts the correct ones. Pairs are laid
 * out problem-major (problem i, sample j → pair i·n + j) and cut into batches of opts.batch
 * sequences; batch g draws with batchSeed(seed, g). The result is deterministic for a given
 * (seed, n, batch, problem list) on one device.
 */
export async function evaluateSet(
  gpu: Gpu,
  model: EvalModel,
  problems: readonly EvalProblem[],
  options: EvalOptions,
  onProgress?: (p: EvalProgress) => void,
): Promise<EvalResult> {
  const create = (shape: { B: number; Tmax: number }) => Decoder.create(gpu, model.cfg, model.table, model.params, shape);
  return evaluateWith(model.cfg, create, problems, options, onProgress);
}

/** A sampler evaluateWith can create and free; `destroy` is absent where there is nothing to free. */
export type EvalDecoder = SamplingDecoder & { destroy?(): void };

/**
 * evaluateSet with the decoder left to the caller (CPU mode passes src/engines/cpu/policy.ts's): the
 * same batches, seeds, scoring and summary.
 */
export async function evaluateWith(
  cfg: GPTConfig,
  createDecoder: (shape: { B: number; Tmax: number }) => Promise<EvalDecoder> | EvalDecoder,
  problems: readonly EvalProblem[],
  options: EvalOptions,
  onProgress?: (p: EvalProgress) => void,
): Promise<EvalResult> {
  const o: Required<EvalOptions> = {
    ...options,
    frozenBase: options.frozenBase ?? false,
    temperature: options.temperature ?? EVAL_DEFAULTS.temperature,
    topP: options.topP ?? EVAL_DEFAULTS.topP,
    topK: options.topK ?? EVAL_DEFAULTS.topK,
    maxNew: options.maxNew ?? EVAL_DEFAULTS.maxNew,
    batch: options.batch ?? EVAL_DEFAULTS.batch,
  };
  checkOptions(o, problems);
  const unfit = whyModelCannotSolve(cfg, problems);
  if (unfit) throw new RangeError(`evaluateSet: ${unfit}`);
  const prompts = problems.map((p) => solvePrompt(p.text));
  const longest = Math.max(...prompts.map((p) => p.length));
  const total = problems.length * o.n;
  const B = Math.min(o.batch, total);
  const Tmax = Math.min(cfg.nPositions, longest + o.maxNew);
  const decoder = await createDecoder({ B, Tmax });
  try {
    const samples = await sampleAll(decoder, prompts, o, problems.length, onProgress);
    return summarize(problems, samples, o);
  } finally {
    decoder.destroy?.();
  }
}

/** n samples of every prompt, problem-major, in decoder batches; the last batch is padded. */
async function sampleAll(decoder: SamplingDecoder, prompts: number[][], o: Required<EvalOptions>, nProblems: number, onProgress?: (p: EvalProgress) => void): Promise<ScoredSample[]> {
  const { B, Tmax } = decoder;
  const total = nProblems * o.n;
  const samples: ScoredSample[] = [];
  for (let g = 0; g * B < total; g++) {
    // The last batch is padded with copies of the last pair; their samples are dropped.
    const pairs = Array.from({ length: B }, (_, r) => Math.min(g * B + r, total - 1));
    const gen = await decoder.generate(
      pairs.map((pair) => prompts[Math.floor(pair / o.n)]),
      { temperature: o.temperature, topK: o.topK, topP: o.topP, seed: batchSeed(o.seed, g), eosToken: EOS, maxNew: o.maxNew },
    );
    for (let r = 0; r < B && g * B + r < total; r++) samples.push(scoreRow(gen, Tmax, r));
    onProgress?.({ samplesDone: samples.length, samplesTotal: total, problemsDone: Math.floor(samples.length / o.n), problemsTotal: nProblems });
  }
  return samples;
}

function summarize(problems: readonly EvalProblem[], samples: readonly ScoredSample[], o: Required<EvalOptions>): EvalResult {
  const results: ProblemResult[] = problems.map((p, i) => {
    const answers = samples.slice(i * o.n, (i + 1) * o.n).map((s) => s.answer);
    return { id: p.id, n: o.n, c: answers.filter((a) => a === p.answer).length, gold: p.answer, answers };
  });
  let entropy = 0;
  let tokens = 0;
  for (const s of samples) {
    entropy += s.entropySum;
    tokens += s.length;
  }
  return {
    problems: results,
    passAtK: meanPassAtK(results, o.ks),
    avgAtK: meanAvgAtK(results, o.ks),
    majAtK: meanMajAtK(results.map((r) => ({ answers: r.answers, gold: r.gold })), o.ks),
    histogram: accuracyHistogram(results),
    meanEntropy: tokens > 0 ? entropy / tokens : NaN,
    responseLength: responseLengthStats(samples.map((s) => s.length), samples.map((s) => s.truncated)),
  };
}
