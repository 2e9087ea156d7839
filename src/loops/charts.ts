// The training charts every loop shows (the shared core's metrics, TRL's names); a loop's spec
// lists these and adds its own.
import type { MetricChartSpec } from './spec';

/**
 * What the charts' x axis counts: training steps, a run's cumulative compute time, or its
 * cumulative generated tokens (every response token its step sampled: the cost loops are compared
 * at, LOOPS.md). Time and tokens are both a per-run "clock" summed over its steps. Declared here
 * because a loop's paper lesson names the axis it compares on (lessons.ts); the page's clocks
 * (state/charts/wallTime.ts) compute it.
 */
export type XAxisMode = 'step' | 'time' | 'tokens';

export const REWARD_CHART: MetricChartSpec = {
  id: 'reward', key: 'reward', title: 'Reward', unit: true, yLabel: 'mean reward',
  note: 'Mean reward of the step\'s sampled responses: 1 when the final answer is right. The signal RL climbs; it should rise.',
};

/** The pooled sampling entropy: every token a step sampled, all roles (a loop of one role draws it equal to entropy/solve). */
export const ENTROPY_ALL_CHART: MetricChartSpec = {
  id: 'entropy-all', key: 'entropy/all', title: 'Entropy of every sampled token (nats per token)', yLabel: 'nats / token', optional: true,
  note: 'The sampling entropy averaged over every response token the step sampled, all roles pooled (writing variants, questions, problems and proposals included): what veRL logs as actor/entropy over a mixed batch, so what the SvS paper plots. It differs between loops partly by construction; compare loops on entropy while solving.',
};

export const CORE_CHARTS: readonly MetricChartSpec[] = [
  {
    id: 'entropy', key: 'entropy/solve', title: 'Policy entropy while solving (nats per token)', yLabel: 'nats / token',
    note: 'How unsure the policy is at each sampled token of its answers to problems (the temperature-scaled distribution): the solving tokens only, in every loop (GRPO\'s and DATPO\'s answers, SvS\'s originals and variants, SPICE\'s reasoner, OpenSIR\'s students, TTSP\'s solver), so loops compare on the same tokens. GRPO tends to drive it down: the policy commits and explores less, which caps pass@k for large k. The entropy of every token a step sampled, all roles pooled (what veRL logs as actor/entropy over a mixed batch), is entropy/all.',
  },
  ENTROPY_ALL_CHART,
  {
    id: 'length', key: 'completions/mean_length', title: 'Response length (tokens)', yLabel: 'tokens',
    note: 'Mean length of the sampled responses, end token included. Step traces grow with problem size; a collapse or a run to the limit is a warning.',
  },
  {
    id: 'clip', key: 'clip_ratio/region_mean', title: 'Clip fraction', unit: true,
    fixedBy: (c) => (c.rl.epochs === 1 && c.rl.miniBatches === 1 ? 'one epoch of one mini-batch: the ratio is exactly 1' : null),
    note: 'Share of tokens whose ratio π/π_old left the clip range. With one epoch and one mini-batch the ratio is exactly 1 and this stays 0.',
  },
  {
    id: 'kl', key: 'kl', title: 'KL to the reference', yLabel: 'nats / token',
    fixedBy: (c) => (c.rl.beta === 0 ? 'β = 0: no KL is measured' : null),
    note: 'Estimated KL between the policy and the frozen base (the policy the run started from). Measured once β has been > 0; with β = 0 nothing holds the policy near the base.',
  },
  {
    id: 'filtered', key: 'frac_reward_zero_std', title: 'Groups with no signal', unit: true,
    note: 'Share of the step\'s solving groups whose rewards are all equal (all wrong or all right), measured before any keep rule of the loop: their advantages are 0, so they teach nothing. DAPO filters them.',
  },
  {
    id: 'genbatches', key: 'gen_batches', title: 'Generation batches per step', optional: true, yLabel: 'batches',
    note: 'With dynamic sampling (DAPO), how many batches of new problems the step drew to find enough groups with signal (1 = the first was enough).',
  },
  {
    id: 'gradnorm', key: 'grad_norm', title: 'Gradient norm', optional: true, yLabel: 'L2 norm',
    note: 'Global norm of the policy gradient before clipping (maxGradNorm).',
  },
  {
    id: 'lr', key: 'lr', title: 'Learning rate', yLabel: 'step size',
    fixedBy: () => 'no schedule: it changes only when changed live',
    note: 'The AdamW step size in use at each step.',
  },
];
