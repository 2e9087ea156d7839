// LOOPS.md §1, the GRPO control ("vanilla RLVR"): a fixed training set with gold answers, G
// samples per problem, reward 1 iff the extracted answer equals the gold answer. Every other
// loop is compared against this one. An async generator of events; the caller drives it.
import type { Gpu } from '../gpu/runtime';
import type { GPTConfig } from '../model/config';
import { buildTensorTable } from '../model/params';
import { Decoder } from '../model/decoder';
import { PolicyTrainer } from '../rl/trainer';
import { rollout } from '../rl/rollout';
import { resolveRlConfig, validateRlConfig, type RlCoreConfig } from '../rl/config';
import { evaluateSet } from '../eval/evaluate';
import { EOS, ROLE_LIMITS, decode, listSets, loadSet, makeRng, solvePrompt } from '../world/index';
import { answerOf } from '../eval/score';
import { defaultsOf, isPlainObject, num, validateFields, type Field, type FieldSpecs } from '../config/fields';
import { ConfigError } from '../model/config';
import type { LoopEvent } from './events';

export interface GrpoConfig {
  seed: number;
  steps: number;
  problemsPerStep: number;
  groupSize: number;
  maxNewTokens: number;
  topP: number;
  lr: number;
  weightDecay: number;
  trainSet: string;
  trainProblems: number;
  evalSet: string;
  evalEvery: number;
  evalProblems: number;
  evalN: number;
  samplesPerStep: number;
  rl: RlCoreConfig;
}

const int = (min: number) => num(min, { integer: true });
const str: Field = { kind: 'string' };

export const GRPO_FIELDS: FieldSpecs<Omit<GrpoConfig, 'rl'>> = {
  seed: { default: 0, type: int(0), paper: '—', help: 'seed of problem order, sampling and evaluation' },
  steps: { default: 50, type: int(1), paper: '—', help: 'RL steps (one rollout and update each)' },
  problemsPerStep: { default: 8, type: int(1), paper: '—', help: 'problems per step (prompts of the rollout batch)' },
  groupSize: { default: 8, type: int(1), paper: '8', help: 'G: responses sampled per problem (one advantage group)' },
  maxNewTokens: { default: ROLE_LIMITS.solve.response, type: int(1), paper: '—', help: 'longest response, end token included' },
  topP: { default: 1, type: num(0, { minExclusive: true, max: 1.0000001 }), paper: '1', help: 'nucleus sampling mass during rollouts (1 = off)' },
  lr: { default: 1e-4, type: num(0, { minExclusive: true }), paper: '1e-6 (7B models)', help: 'AdamW learning rate; a 100k-parameter policy needs far more than the papers\' 7B models' },
  weightDecay: { default: 0, type: num(0), paper: '0', help: 'AdamW decoupled weight decay' },
  trainSet: { default: 'train', type: str, paper: '—', help: 'data set of training problems (see rlvr-lab sets)' },
  trainProblems: { default: 256, type: int(1), paper: '—', help: 'use the first N problems of the training set (a fixed small set shows the trend)' },
  evalSet: { default: 'eval-mixed', type: str, paper: '—', help: 'held-out set for pass@k' },
  evalEvery: { default: 10, type: int(0), paper: '—', help: 'steps between evaluations (0 = only at the start and the end)' },
  evalProblems: { default: 50, type: int(1), paper: '—', help: 'problems of the evaluation set used' },
  evalN: { default: 16, type: int(1), paper: '—', help: 'samples per evaluation problem (pass@k for k up to n)' },
  samplesPerStep: { default: 4, type: int(0), paper: '—', help: 'sampled responses reported per step for the samples panel' },
};

export const GRPO_DEFAULTS = defaultsOf(GRPO_FIELDS);

export function validateGrpoConfig(obj: unknown, where = 'grpo'): GrpoConfig {
  if (!isPlainObject(obj)) throw new ConfigError(`${where}: expected an object`);
  const { rl, ...rest } = obj;
  const base = validateFields(rest, GRPO_FIELDS, where, GRPO_DEFAULTS);
  const rlc = validateRlConfig(rl ?? {}, `${where}.rl`, resolveRlConfig('grpo'));
  const perStep = base.problemsPerStep * base.groupSize;
  if (rlc.miniBatches > perStep) throw new ConfigError(`${where}.rl.miniBatches = ${rlc.miniBatches} exceeds the ${perStep} trajectories per step; lower it or raise problemsPerStep`);
  for (const [k, v] of [['trainSet', base.trainSet], ['evalSet', base.evalSet]] as const) {
    if (!listSets().some((s) => s.name === v)) throw new ConfigError(`${where}.${k} = "${v}": unknown data set; known: ${listSets().map((s) => s.name).join(', ')}`);
  }
  return Object.freeze({ ...base, rl: rlc });
}

const kList = (n: number): number[] => {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (ks[ks.length - 1] !== n) ks.push(n);
  return ks;
};

/** Runs GRPO from `init`, yielding step, sample and evaluation events. */
export async function* runGrpo(gpu: Gpu, cfg: GPTConfig, init: Float32Array, config: GrpoConfig, signal?: AbortSignal): AsyncGenerator<LoopEvent> {
  const c = config;
  const table = buildTensorTable(cfg);
  const train = loadSet(c.trainSet).slice(0, c.trainProblems);
  const evalProblems = loadSet(c.evalSet).slice(0, c.evalProblems).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
  const rows = Math.ceil((c.problemsPerStep * c.groupSize) / c.rl.miniBatches);
  const trainer = await PolicyTrainer.create(gpu, cfg, init, c.rl, { rows, T: cfg.nPositions });
  trainer.model.setHyper({ lr: c.lr, weightDecay: c.weightDecay });
  const decoder = await Decoder.create(gpu, cfg, table, trainer.model.params, { B: Math.min(64, c.problemsPerStep * c.groupSize), Tmax: cfg.nPositions });
  const model = { cfg, table, params: trainer.model.params };
  const rand = makeRng(c.seed ^ 0x6a09e667);
  const evaluate = async (step: number): Promise<LoopEvent> => {
    const r = await evaluateSet(gpu, model, evalProblems, { n: c.evalN, ks: kList(c.evalN), seed: (c.seed * 1000 + 7) >>> 0, temperature: c.rl.temperature, maxNew: c.maxNewTokens });
    return { type: 'eval', step, set: c.evalSet, passAtK: r.passAtK, avgAtK: r.avgAtK, majAtK: r.majAtK, meanEntropy: r.meanEntropy, meanLength: r.responseLength.mean, histogram: r.histogram.counts };
  };
  yield await evaluate(0);
  let step = 0;
  while (step < c.steps && !signal?.aborted) {
    step++;
    const t0 = performance.now();
    const batch = Array.from({ length: c.problemsPerStep }, () => train[Math.floor(rand() * train.length)]);
    const trajs = await rollout(
      decoder,
      batch.map((p) => ({ prompt: solvePrompt(p.text), payload: p.answer })),
      { groupSize: c.groupSize, role: 'solve', groupIdBase: step * c.problemsPerStep, seed: (c.seed * 7777 + step) >>> 0, temperature: c.rl.temperature, topK: 0, topP: c.topP, eosToken: EOS, maxNew: c.maxNewTokens },
      (gold, response) => {
        const { answer, text } = answerOf(response);
        return { reward: answer === gold ? 1 : 0, text };
      },
    );
    const stats = await trainer.train(trajs);
    const rewards = trajs.map((t) => t.reward);
    const mean = rewards.reduce((a, x) => a + x, 0) / rewards.length;
    const lengths = trajs.map((t) => t.responseTokens.length);
    let entSum = 0, entN = 0;
    for (const t of trajs) for (let i = 0; i < t.entropy.length; i++) (entSum += t.entropy[i]), entN++;
    yield {
      type: 'step', step, seconds: (performance.now() - t0) / 1000,
      metrics: {
        reward: mean,
        reward_std: Math.sqrt(rewards.reduce((a, x) => a + (x - mean) ** 2, 0) / rewards.length),
        frac_reward_zero_std: stats.fracZeroStd,
        entropy: entN ? entSum / entN : 0,
        'completions/mean_length': lengths.reduce((a, x) => a + x, 0) / lengths.length,
        'completions/clipped_ratio': trajs.filter((t) => t.truncated).length / trajs.length,
        kept_groups: stats.keptGroups,
        dropped_groups: stats.droppedGroups,
        optimiser_steps: stats.optimiserSteps,
        rejected_steps: stats.rejectedSteps,
        lr: trainer.model.hyperparameters.lr,
        ...stats.metrics,
      },
    };
    if (c.samplesPerStep > 0) {
      yield {
        type: 'samples', step,
        samples: trajs.slice(0, c.samplesPerStep).map((t) => ({ prompt: decode(t.promptTokens as number[]), response: t.text, reward: t.reward, entropy: Array.from(t.entropy) })),
      };
    }
    if ((c.evalEvery > 0 && step % c.evalEvery === 0) || step === c.steps) yield await evaluate(step);
  }
  yield { type: 'done', step, aborted: Boolean(signal?.aborted), params: await trainer.model.readParams() };
}
