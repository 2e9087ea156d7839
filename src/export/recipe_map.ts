// Where each lab knob goes in TRL's GRPOConfig and in veRL's ppo_trainer config, and which do not
// go anywhere. One row per knob: the value, the framework's key (null: it has none), and a note
// when the translation is approximate or absent. The key names are those of the pinned versions
// (RECIPE_VERSIONS); test/fixtures/recipe_keys/ holds the names each defines there.
import type { BaseLoopConfig } from '../loops/base_config';
import { loopNamed } from '../loops/registry';
import type { FieldSpec } from '../config/fields';
import { ConfigError } from '../util/errors';
import type { RlCoreConfig } from '../rl/config';
import { ROLE_LIMITS } from '../world/roles';
import type { YamlValue } from './yaml';

export type Framework = 'trl' | 'verl';
export const FRAMEWORKS: readonly Framework[] = ['trl', 'verl'];

export const RECIPE_VERSIONS = { trl: 'trl 1.9.0 (transformers >= 4.56.2)', verl: 'verl 0.7.0' } as const;

export interface KnobRow {
  /** the lab's name: a loop field or rl.<field> */
  knob: string;
  value: unknown;
  /** the framework's key (veRL: dotted Hydra path), or null where it has none */
  key: string | null;
  /** what the key is set to (absent: the lab's value) */
  set?: YamlValue;
  note?: string;
}

/** The solving core every loop shares: the solve prompts, G answers each, the verifier's reward. */
export interface SolveCore {
  problemsPerStep: number;
  groupSize: number;
  maxNewTokens: number;
  topP: number;
  trainSet: string;
  trainProblems: number;
  /** which loop fields these came from, e.g. groupSize ← studentSamples */
  from: Readonly<Record<string, string>>;
}

type Cfg = BaseLoopConfig & Record<string, unknown>;
const n = (c: Cfg, k: string, d: number) => (typeof c[k] === 'number' ? (c[k] as number) : d);

/**
 * The loop's solving role, as a GRPO run of it would be set up (LOOPS.md: the solver of each
 * loop): the fields its definition names (spec.recipe) read from the run's config.
 */
export function solveCore(loop: string, c: Cfg): SolveCore {
  const spec = loopNamed(loop).spec;
  if (!spec.recipe) throw new ConfigError(`loop ${loop} declares no recipe (its spec's recipe field): its runs cannot be exported to TRL or veRL`);
  const { groupSize, problems } = spec.recipe;
  const fields = spec.fields as Readonly<Record<string, FieldSpec<unknown>>>;
  const field = (k: string) => n(c, k, fields[k].default as number);
  return {
    maxNewTokens: n(c, 'maxNewTokens', ROLE_LIMITS.solve.response),
    topP: n(c, 'topP', 1),
    trainSet: typeof c.trainSet === 'string' ? c.trainSet : 'train',
    trainProblems: n(c, 'trainProblems', 256),
    groupSize: field(groupSize),
    problemsPerStep: problems.reduce((p, k) => p * field(k), 1),
    from: { groupSize, problemsPerStep: problems.join(' × ') },
  };
}

const TRL_LOSS: Partial<Record<RlCoreConfig['aggregation'], string>> = { token_mean: 'dapo', seq_mean_token_mean: 'grpo', constant_norm: 'dr_grpo' };
const VERL_AGG: Record<RlCoreConfig['aggregation'], string> = { token_mean: 'token-mean', seq_mean_token_mean: 'seq-mean-token-mean', seq_mean_token_sum: 'seq-mean-token-sum', constant_norm: 'seq-mean-token-sum-norm' };
const VERL_KL: Record<RlCoreConfig['klType'], string> = { k1: 'k1', k2: 'k2', k3: 'low_var_kl' };
const TRL_ADV_EPS = 1e-4;
const VERL_ADV_EPS = 1e-6;
/** dual clip cannot be switched off in veRL: a c this large never binds */
const VERL_NO_DUAL_CLIP = 1e9;
/** the lab's AdamW (src/model/gpt.ts DEFAULT_ADAMW) */
const ADAM = { beta1: 0.9, beta2: 0.95, eps: 1e-8 };

export function knobRows(fw: Framework, loop: string, c: Cfg): KnobRow[] {
  const rl = c.rl;
  const core = solveCore(loop, c);
  const trl = fw === 'trl';
  const rows: KnobRow[] = [];
  const row = (knob: string, value: unknown, key: string | null, extra: Omit<KnobRow, 'knob' | 'value' | 'key'> = {}) => rows.push({ knob, value, key, ...extra });
  const perStep = core.problemsPerStep * core.groupSize;
  const lMax = rl.constantNormTokens ?? core.maxNewTokens;

  // ---- the run
  row('seed', c.seed, trl ? 'seed' : 'data.seed');
  row('steps', c.steps, trl ? 'max_steps' : 'trainer.total_training_steps');
  row('lr', c.lr, trl ? 'learning_rate' : 'actor_rollout_ref.actor.optim.lr');
  row('weightDecay', c.weightDecay, trl ? 'weight_decay' : 'actor_rollout_ref.actor.optim.weight_decay');
  if (trl) {
    row('(AdamW β1)', ADAM.beta1, 'adam_beta1');
    row('(AdamW β2)', ADAM.beta2, 'adam_beta2');
    row('(AdamW ε)', ADAM.eps, 'adam_epsilon');
    row('(constant learning rate)', 'constant', 'lr_scheduler_type');
  } else {
    row('(AdamW β1, β2)', [ADAM.beta1, ADAM.beta2], 'actor_rollout_ref.actor.optim.betas');
    row('(constant learning rate)', 'constant', 'actor_rollout_ref.actor.optim.lr_scheduler_type');
  }
  row('rl.maxGradNorm', rl.maxGradNorm, trl ? 'max_grad_norm' : 'actor_rollout_ref.actor.grad_clip');
  row(`${core.from.problemsPerStep}`, core.problemsPerStep, trl ? null : 'data.train_batch_size', trl ? { note: `prompts per step: TRL's generation batch is per_device_train_batch_size × steps_per_generation = ${perStep} completions (one process)` } : {});
  row(`${core.from.groupSize}`, core.groupSize, trl ? 'num_generations' : 'actor_rollout_ref.rollout.n');
  row('maxNewTokens', core.maxNewTokens, trl ? 'max_completion_length' : 'data.max_response_length');
  if (!trl) {
    row('(solve prompt limit)', ROLE_LIMITS.solve.prompt, 'data.max_prompt_length');
    if (rl.dynamicSampling) row('(gen batch = train batch)', core.problemsPerStep, 'data.gen_batch_size', { note: 'DAPO recipe: prompts per generation batch' });
  }
  row('rl.temperature', rl.temperature, trl ? 'temperature' : 'actor_rollout_ref.rollout.temperature');
  row('topP', core.topP, trl ? 'top_p' : 'actor_rollout_ref.rollout.top_p');

  // ---- the update
  row('rl.epochs', rl.epochs, trl ? 'num_iterations' : 'actor_rollout_ref.actor.ppo_epochs');
  if (perStep % rl.miniBatches !== 0) {
    row('rl.miniBatches', rl.miniBatches, null, { note: `${perStep} trajectories a step do not split into ${rl.miniBatches} equal mini-batches; the frameworks need equal ones` });
  } else if (trl) {
    row('rl.miniBatches', rl.miniBatches, 'steps_per_generation');
    row('(mini-batch size)', perStep / rl.miniBatches, 'per_device_train_batch_size', { note: 'completions per optimiser step on one process; with P processes divide by P' });
    row('(no accumulation)', 1, 'gradient_accumulation_steps');
  } else {
    row('rl.miniBatches', rl.miniBatches, 'actor_rollout_ref.actor.ppo_mini_batch_size', { set: core.problemsPerStep / rl.miniBatches, note: 'veRL counts mini-batches in prompts (each with its n responses)' });
  }
  row('rl.clipLow', rl.clipLow, trl ? 'epsilon' : 'actor_rollout_ref.actor.clip_ratio_low');
  row('rl.clipHigh', rl.clipHigh, trl ? 'epsilon_high' : 'actor_rollout_ref.actor.clip_ratio_high');
  if (trl) row('rl.dualClipC', rl.dualClipC, null, rl.dualClipC === null ? { note: 'off, as in TRL (no dual clip)' } : { note: 'TRL has no dual clip (its `delta` is INTELLECT-2\'s two-sided clip, another rule)' });
  else row('rl.dualClipC', rl.dualClipC, 'actor_rollout_ref.actor.clip_ratio_c', rl.dualClipC === null ? { set: VERL_NO_DUAL_CLIP, note: 'veRL always applies its dual clip; a c this large never binds (off)' } : {});
  if (trl) row('rl.ratioLevel', rl.ratioLevel, 'importance_sampling_level');
  else row('rl.ratioLevel', rl.ratioLevel, 'actor_rollout_ref.actor.policy_loss.loss_mode', { set: rl.ratioLevel === 'sequence' ? 'gspo' : 'vanilla' });

  const agg = rl.aggregation;
  if (trl) {
    const loss = TRL_LOSS[agg];
    if (!loss) row('rl.aggregation', agg, null, { note: 'TRL has no sequence mean of token sums' });
    else row('rl.aggregation', agg, 'loss_type', { set: loss, ...(agg === 'constant_norm' && lMax !== core.maxNewTokens ? { note: `TRL's dr_grpo divides by max_completion_length (${core.maxNewTokens}), not constantNormTokens ${lMax}` } : agg === 'token_mean' ? { note: 'dapo: Σℓ over the tokens of the whole accumulated batch' } : {}) });
  } else {
    row('rl.aggregation', agg, 'actor_rollout_ref.actor.loss_agg_mode', { set: VERL_AGG[agg], ...(agg === 'constant_norm' ? { note: 'veRL divides the summed token losses by loss_scale_factor only, not by the number of sequences as the lab does: the gradient is N times the lab\'s (lower lr by N to match)' } : {}) });
    if (agg === 'constant_norm') row('rl.constantNormTokens', rl.constantNormTokens, 'actor_rollout_ref.actor.loss_scale_factor', { set: lMax });
  }
  if (agg !== 'constant_norm' && rl.constantNormTokens !== null) row('rl.constantNormTokens', rl.constantNormTokens, null, { note: 'used only by constant_norm' });
  row('rl.seqMeanCount', rl.seqMeanCount, null, { note: trl ? 'TRL counts every trajectory (all)' + (rl.seqMeanCount === 'all' ? ', as set' : '; unmasked does not translate') : 'veRL counts sequences with a token in the loss (unmasked)' + (rl.seqMeanCount === 'unmasked' ? ', as set' : '; all does not translate') });

  // ---- advantages
  const adv = rl.advantage;
  if (trl) {
    if (adv === 'group_std' || adv === 'none' || adv === 'batch_std') row('rl.advantage', adv, 'scale_rewards', { set: adv === 'group_std' ? 'group' : adv === 'none' ? 'none' : 'batch' });
    else row('rl.advantage', adv, null, { note: 'external advantages (DATPO\'s tree blocks) come from the loop itself; see its released code' });
  } else {
    if (adv === 'group_std' || adv === 'none') {
      row('rl.advantage', adv, 'algorithm.adv_estimator', { set: 'grpo' });
      row('rl.advantage', adv, 'algorithm.norm_adv_by_std_in_grpo', { set: adv === 'group_std' });
    } else row('rl.advantage', adv, null, { note: adv === 'batch_std' ? 'veRL\'s GRPO estimator has no batch std' : 'external advantages (DATPO\'s tree blocks) come from the loop itself; see its released code' });
  }
  const eps = trl ? TRL_ADV_EPS : VERL_ADV_EPS;
  row('rl.advEps', rl.advEps, null, { note: `${trl ? 'TRL' : 'veRL'} adds a fixed ${eps} to the std${rl.advEps === eps ? ', as set' : `; ${rl.advEps} does not translate`}` });
  row('rl.bessel', rl.bessel, null, { note: rl.bessel ? 'torch.std (n − 1), as set' : 'both use torch.std (n − 1); false does not translate' });
  const singletonOk = trl ? rl.singletonAdvantage === 'zero' : rl.singletonAdvantage === 'verl';
  row('rl.singletonAdvantage', rl.singletonAdvantage, null, { note: `${trl ? 'TRL: a group of one has std NaN→0, A = 0 (zero)' : 'veRL: a group of one gets mean 0, std 1, A = r (verl)'}${singletonOk ? ', as set' : '; does not translate'}${core.groupSize === 1 ? ' (this set-up has groups of one)' : ''}` });

  // ---- KL, entropy
  if (trl) {
    row('rl.beta', rl.beta, 'beta');
    row('rl.klType', rl.klType, null, { note: rl.klType === 'k3' ? 'TRL\'s KL is k3 only, as set' : `TRL's KL is k3 only; ${rl.klType} does not translate` });
  } else {
    row('rl.beta', rl.beta, 'actor_rollout_ref.actor.use_kl_loss', { set: rl.beta > 0 });
    row('rl.beta', rl.beta, 'actor_rollout_ref.actor.kl_loss_coef');
    row('rl.klType', rl.klType, 'actor_rollout_ref.actor.kl_loss_type', { set: VERL_KL[rl.klType] });
  }
  row('rl.klClamp', rl.klClamp, null, { note: trl ? 'TRL does not clamp δ' : 'veRL clamps δ to ±20 and k3 to ±10; the lab\'s clamp of δ does not translate' });
  row('rl.entCoef', rl.entCoef, trl ? 'entropy_coef' : 'actor_rollout_ref.actor.entropy_coeff');

  // ---- data filters
  if (trl) {
    row('rl.filterZeroVariance', rl.filterZeroVariance, null, { note: rl.filterZeroVariance ? 'TRL keeps zero-variance groups (their A = 0 but they count in the normaliser)' : 'off, as in TRL' });
    row('rl.dynamicSampling', rl.dynamicSampling, null, { note: rl.dynamicSampling ? 'TRL has no dynamic sampling: each step trains on the first batch' : 'off, as in TRL' });
    row('rl.maxGenBatches', rl.maxGenBatches, null, { note: 'no dynamic sampling in TRL' });
    row('rl.maskTruncated', rl.maskTruncated, 'mask_truncated_completions');
  } else {
    if (rl.filterZeroVariance && !rl.dynamicSampling) row('rl.filterZeroVariance', true, null, { note: 'veRL\'s filter_groups always samples again to refill the batch; dropping without refilling does not translate' });
    else row('rl.filterZeroVariance', rl.filterZeroVariance, rl.dynamicSampling ? 'algorithm.filter_groups.metric' : null, rl.dynamicSampling ? { set: 'acc' } : { note: 'off' });
    // filter_groups exists only in the DAPO recipe's config (dapo_trainer), which run.sh then uses
    row('rl.dynamicSampling', rl.dynamicSampling, rl.dynamicSampling ? 'algorithm.filter_groups.enable' : null, { note: rl.dynamicSampling ? 'DAPO recipe (recipe.dapo.main_dapo)' : 'off' });
    row('rl.maxGenBatches', rl.maxGenBatches, rl.dynamicSampling ? 'algorithm.filter_groups.max_num_gen_batches' : null, rl.dynamicSampling ? {} : { note: 'used only by dynamic sampling' });
    row('rl.maskTruncated', rl.maskTruncated, null, { note: rl.maskTruncated ? 'veRL has no mask of truncated responses (DAPO\'s overlong buffer is a reward shape, another rule)' : 'off' });
  }

  // ---- evaluation and reporting
  row('evalSet / evalProblems', `${c.evalSet} / ${c.evalProblems}`, null, { note: 'the held-out file data/test.jsonl' });
  // 0 means "at the start and the end only" in the lab; the frameworks have no such setting
  const every = (k: 'evalEvery' | 'checkpointEvery') => (c[k] > 0 ? c[k] : null);
  if (trl) {
    row('evalEvery', c.evalEvery, every('evalEvery') ? 'eval_steps' : null, every('evalEvery') ? {} : { note: 'TRL: evaluation off (eval_strategy no); run trainer.evaluate() at the end' });
    row('(evaluate every evalEvery steps)', every('evalEvery') ? 'steps' : 'no', 'eval_strategy');
  } else row('evalEvery', c.evalEvery, 'trainer.test_freq', { set: every('evalEvery') ?? -1, ...(every('evalEvery') ? {} : { note: 'veRL: -1 evaluates only before training (val_before_train)' }) });
  row('evalN', c.evalN, trl ? 'num_generations_eval' : 'actor_rollout_ref.rollout.val_kwargs.n');
  if (trl) row('(evaluation batch)', c.evalN, 'per_device_eval_batch_size', { note: 'a multiple of num_generations_eval' });
  else {
    row('(sampled evaluation)', true, 'actor_rollout_ref.rollout.val_kwargs.do_sample');
    row('rl.temperature', rl.temperature, 'actor_rollout_ref.rollout.val_kwargs.temperature', { note: 'the lab evaluates pass@k by sampling at the run\'s temperature' });
    row('topP', core.topP, 'actor_rollout_ref.rollout.val_kwargs.top_p');
  }
  if (trl) row('checkpointEvery', c.checkpointEvery, every('checkpointEvery') ? 'save_steps' : null, every('checkpointEvery') ? {} : { note: 'train.py saves the final model' });
  if (trl) row('(save every checkpointEvery steps)', every('checkpointEvery') ? 'steps' : 'no', 'save_strategy');
  else row('checkpointEvery', c.checkpointEvery, 'trainer.save_freq', { set: every('checkpointEvery') ?? -1 });
  row('samplesPerStep', c.samplesPerStep, null, { note: 'the lab\'s samples panel; frameworks log their own' });
  row('tokenBudget', c.tokenBudget, null, { note: c.tokenBudget > 0 ? 'no token budget stop in the framework: stop by steps' : 'off' });
  row('trainSet / trainProblems', `${core.trainSet} / ${core.trainProblems}`, null, { note: 'the training file data/train.jsonl' });
  return rows;
}

/** The rows with a key, as the config the framework reads (veRL: nested by the dotted path). */
export function frameworkConfig(rows: readonly KnobRow[], fw: Framework): Record<string, YamlValue> {
  const flat: Record<string, YamlValue> = {};
  for (const r of rows) if (r.key) flat[r.key] = (r.set ?? r.value) as YamlValue;
  if (fw === 'trl') return flat;
  const nested: Record<string, YamlValue> = {};
  for (const [path, v] of Object.entries(flat)) {
    const parts = path.split('.');
    let at = nested as Record<string, YamlValue>;
    for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, YamlValue>;
    at[parts[parts.length - 1]] = v;
  }
  return nested;
}

/** Keys a runnable config needs that no lab knob sets (output, logging, devices, micro-batches). */
export function plumbing(fw: Framework, dynamicSampling: boolean): Record<string, YamlValue> {
  if (fw === 'trl') return { output_dir: 'out', logging_steps: 1, bf16: false, report_to: 'none', remove_unused_columns: false, log_completions: true };
  return {
    'actor_rollout_ref.model.path': 'model',
    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu': 8,
    'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu': 8,
    'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu': 8,
    'actor_rollout_ref.rollout.name': 'vllm',
    'actor_rollout_ref.rollout.tensor_model_parallel_size': 1,
    'actor_rollout_ref.rollout.gpu_memory_utilization': 0.4,
    'data.train_files': 'data/train.parquet',
    'data.val_files': 'data/test.parquet',
    'data.prompt_key': 'prompt',
    'data.filter_overlong_prompts': false,
    'custom_reward_function.path': 'reward.py',
    'custom_reward_function.name': 'compute_score',
    'reward_model.reward_manager': dynamicSampling ? 'dapo' : 'naive',
    ...(dynamicSampling ? { 'reward_model.overlong_buffer.enable': false } : {}),
    'trainer.logger': ['console'],
    'trainer.project_name': 'rlvr_lab',
    'trainer.experiment_name': 'recipe',
    'trainer.n_gpus_per_node': 1,
    'trainer.nnodes': 1,
    'trainer.total_epochs': 1000,
    'trainer.val_before_train': true,
  };
}
