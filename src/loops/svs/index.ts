// SvS as a loop definition (LOOPS.md §2): its config, presets, metrics, curriculum records and
// the views that show them. Its charts and browser are declarative (src/loops/spec.ts): the page
// draws them without knowing the loop.
import { rlPresetList } from '../base_config';
import { CORE_CHARTS } from '../charts';
import type { LoopDefinition, MetricChartSpec } from '../spec';
import { SVS_FIELDS, SVS_PRESETS, SVS_RL_UNUSED, validateSvsConfig, type SvsConfig } from './config';
import { svsBody } from './body';
import { SVS_GUIDE, SVS_LESSONS } from './guide';

const SVS_CHARTS: readonly MetricChartSpec[] = [
  {
    id: 'reward', key: 'reward', title: 'Reward on the original problems (OQA)', unit: true,
    note: 'Mean reward of the answers to the step\'s training problems: 1 when the final answer is right.',
  },
  ...CORE_CHARTS,
  {
    id: 'challenging', key: 'challenging', title: 'Challenging problems per step',
    note: 'Problems whose pass rate p is in the challenging band acc_l ≤ p ≤ acc_h (1 to 4 of 8 with the paper\'s values): only their correct solutions seed variants.',
  },
  {
    id: 'spa-pass', key: 'spa/pass_rate', title: 'Pass rate on the variants (SPA)', unit: true,
    note: 'Answers to the policy\'s own variants that match the ORIGINAL answer. Near 1, the variants are too easy (or leak the answer); near 0, they are wrong or unsolvable.',
  },
];

export const SVS: LoopDefinition<SvsConfig> = {
  spec: {
    name: 'svs',
    title: 'SvS: self-play with variational problem synthesis',
    paper: { title: 'Beyond Pass@1: Self-play with Variational Problem Synthesis Sustains RLVR', url: 'https://arxiv.org/abs/2508.14029', code: 'https://github.com/MasterVito/SvS' },
    summary: 'The policy solves training problems; from its correct solutions of the problems it finds hard it writes variant problems with the same answer, and solves those too. Variants earn a reward only when the policy solves them sometimes but not always, so leaking the answer does not pay. The paper: entropy holds and pass@k keeps rising where GRPO\'s stalls.',
    fields: SVS_FIELDS,
    rlPresets: rlPresetList(['svs', 'grpo', 'dr_grpo']),
    rlUnused: SVS_RL_UNUSED,
    presets: SVS_PRESETS,
    validate: validateSvsConfig,
    // the update holds OQA, VPS and SPA groups: its size varies, so the trainer accumulates gradients over 64-row pieces
    shape: (c) => ({ trainRows: Math.min(64, c.problemsPerStep * c.groupSize), decodeBatch: Math.min(64, c.problemsPerStep * c.groupSize) }),
    cpuMode: true,
    recipe: {
      groupSize: 'groupSize', problems: ['problemsPerStep'],
      released: { framework: 'veRL', onRecipeFramework: true, note: 'SvS is built on veRL: the veRL keys of this recipe are its keys; its own constants (below) are the variational-synthesis step around them' },
    },
    records: ['svs.variant'],
    views: {
      metrics: SVS_CHARTS,
      stacked: [{
        id: 'mix', title: 'Data mix per step (trajectories trained on)', yLabel: 'trajectories',
        note: 'What the update trained on: answers to originals (OQA), variant problems (VPS) and answers to variants (SPA), after each group\'s keep rule.',
        series: [{ key: 'mix/oqa', label: 'OQA' }, { key: 'mix/vps', label: 'VPS' }, { key: 'mix/spa', label: 'SPA' }],
      }],
      multiLine: [
        {
          id: 'variants', title: 'Variants: reward, extraction and what the oracle says', unit: true,
          note: 'VPS reward is what the policy is paid; extracted = parses as a problem. True validity (evaluates to the original answer) and leak come from the interpreter, which the paper cannot run: shown, never rewarded. A variant leaks when it hands the answer over and its original did not: it evaluates to the answer and one of its numbers is the answer with the rest cancelling out (36+0, 36*1, max(36,2), (36+5)-5); a number that merely equals the answer is no leak. True validity of the variants trained counts only those whose SPA group the update trained on (0 < p̂ < 1): a wrong variant there teaches the policy a wrong answer. The leak base rate is the same flag on gold, truly valid rewrites of the step\'s source problems (as many as the policy wrote): the rate a variant that hands nothing over still scores.',
          series: [
            { key: 'vps/reward', label: 'VPS reward' }, { key: 'vps/extracted', label: 'extracted' },
            { key: 'vps/true_valid', label: 'true validity' }, { key: 'vps/leak', label: 'leak rate' },
            { key: 'vps/leak_base', label: 'leak base rate (gold variants)' },
            { key: 'spa/true_valid', label: 'true validity of the variants trained (SPA groups kept)' },
          ],
        },
        {
          id: 'entropy-tasks', title: 'Sampling entropy by task (nats per token)', yLabel: 'nats / token',
          note: 'Mean sampling entropy over the response tokens of each task: answers to the originals (OQA), variant problems written (VPS), answers to the variants (SPA). Solving is OQA and SPA together, the entropy compared across loops; all pools every response token of the step, variant writing included (what veRL logs over the mixed batch, and so what the paper plots).',
          series: [
            { key: 'entropy/oqa', label: 'OQA' }, { key: 'entropy/vps', label: 'VPS (writing variants)' }, { key: 'entropy/spa', label: 'SPA' },
            { key: 'entropy/solve', label: 'solving (OQA + SPA)' }, { key: 'entropy/all', label: 'all tokens' },
          ],
        },
        {
          id: 'zero-std-tasks', title: 'Groups with no signal, by task', unit: true,
          note: 'Share of each task\'s sampled groups whose rewards are all equal, before the keep rules drop them: OQA and SPA answer groups (all right or all wrong), VPS groups of one solution\'s variants (every R_v equal). The shared chart counts the solving groups, OQA and SPA together.',
          series: [{ key: 'frac_reward_zero_std/oqa', label: 'OQA' }, { key: 'frac_reward_zero_std/vps', label: 'VPS' }, { key: 'frac_reward_zero_std/spa', label: 'SPA' }],
        },
      ],
      browsers: [{
        id: 'variant-browser', title: 'Variant browser',
        note: 'The latest step\'s challenging problems: each correct solution, the variants written from it, their answers\' pass rate p̂ against the original answer, R_v, and the oracle\'s flags.',
        record: 'svs.variant',
        groupBy: [
          // one group per correct solution (two solutions may read the same)
          { key: 'source', label: 'solution #', format: 'number' },
          { key: 'problem', label: 'problem', format: 'text' }, { key: 'answer', label: 'answer', format: 'number' },
          { key: 'problemPassRate', label: 'its pass rate p', format: 'rate' }, { key: 'solution', label: 'correct solution', format: 'text' },
        ],
        columns: [
          { key: 'variant', label: 'variant', format: 'text' },
          { key: 'pHat', label: 'p̂', format: 'rate' },
          { key: 'reward', label: 'R_v', format: 'number' },
          { key: 'kept', label: 'kept', format: 'flag', filter: true },
          { key: 'parsed', label: 'parses', format: 'flag', filter: true },
          { key: 'trueValid', label: 'true value = answer', format: 'flag', filter: true },
          { key: 'leak', label: 'hands the answer over', format: 'flag', filter: true },
          { key: 'copy', label: 'copy', format: 'flag', filter: true },
        ],
      }],
    },
  },
  body: svsBody,
  guide: SVS_GUIDE,
  lessons: SVS_LESSONS,
};
