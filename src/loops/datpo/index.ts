// DATPO as a loop definition (LOOPS.md §5): its config, presets, metrics, curriculum records and
// the views that show them (declarative, src/loops/spec.ts).
import { rlPresetList } from '../base_config';
import { CORE_CHARTS } from '../charts';
import type { LoopDefinition, MetricChartSpec } from '../spec';
import { DATPO_FIELDS, DATPO_PRESETS, DATPO_RL_UNUSED, validateDatpoConfig, type DatpoConfig } from './config';
import { datpoBody } from './body';
import { DATPO_GUIDE, DATPO_LESSONS } from './guide';

const DATPO_CHARTS: readonly MetricChartSpec[] = [
  {
    id: 'reward', key: 'reward', title: 'Root accuracy v', unit: true, yLabel: 'mean v',
    note: 'Mean accuracy of the N root rollouts per problem: the difficulty estimate that sets each problem\'s budget (lower v, bigger tree).',
  },
  {
    id: 'leaf-accuracy', key: 'tree/leaf_accuracy', title: 'Leaf accuracy', unit: true,
    note: 'Share of all leaves (root paths and branches) that reach the right answer. Hard problems have more leaves, so this weighs them more than the root accuracy does.',
  },
  {
    id: 'tokens-problem', key: 'tokens/per_problem', title: 'Generated tokens per problem', yLabel: 'tokens',
    note: 'Roots and branches together (a fork\'s prefix is shared, not generated again): the cost DATPO is compared with GRPO at.',
  },
  {
    id: 'alpha', key: 'alpha', title: 'α, the sibling-diversity weight', yLabel: 'α',
    note: 'The weight of the diversity bonus at each step: 0.2·(1 − step/steps), reaching 0 at the last step (the released code), or constant (the ablation).',
  },
  {
    id: 'sibling-div', key: 'tree/sibling_div', title: 'Sibling diversity', optional: true, yLabel: '1 − mean cosine',
    note: 'Mean over blocks with siblings (the roots\' first blocks; the branches of one fork) of 1 − their mean cosine similarity to their siblings (embedded by the run\'s embedder: the frozen starting policy, or bags of character n-grams): how differently the branches of one node go on. The bonus is α times this.',
  },
  {
    id: 'bonus-share', key: 'tree/bonus_share', title: 'Diversity bonus against the advantage', optional: true, yLabel: 'mean |bonus| / mean |A|',
    note: 'Over the step\'s trained blocks, the mean size of the diversity bonus α·d divided by the mean size of the advantage each block trains with (base + bonus): the bonus\'s share of the update. Near 0 the run is DATPO without its bonus; it falls with α as α anneals.',
  },
  ...CORE_CHARTS.filter((c) => !['genbatches', 'reward', 'entropy-all'].includes(c.id)),
];

export const DATPO: LoopDefinition<DatpoConfig> = {
  spec: {
    name: 'datpo',
    title: 'DATPO: difficulty-adaptive tree policy optimisation',
    paper: { title: 'DATPO: Difficulty-Adaptive Sentence-entropy-guided Tree-structured Policy Optimization', url: 'https://arxiv.org/abs/2609.08650', code: 'https://github.com/colin31472/DATPO' },
    summary: 'Each problem gets a few root answers; the fewer are right, the more the loop forks them, at the trace steps where the policy was least sure, into branches that share the prefix. Every stretch of a path between forks is trained with the change in value it brought, plus a bonus, fading over the run, for going somewhere its siblings did not. The paper: pass@k rises where parallel sampling stalls.',
    fields: DATPO_FIELDS,
    rlPresets: rlPresetList(['datpo']),
    rlUnused: DATPO_RL_UNUSED,
    presets: DATPO_PRESETS,
    validate: validateDatpoConfig,
    // an update holds every block of every tree: its size varies, so 64-row pieces
    shape: (c) => ({ trainRows: 64, decodeBatch: Math.min(64, Math.max(c.problemsPerStep * c.rootRollouts, c.bnMax * 8)) }),
    cpuMode: true,
    recipe: {
      groupSize: 'rootRollouts', problems: ['problemsPerStep'],
      released: { framework: 'its own trainer', onRecipeFramework: false, note: 'DATPO\'s tree rollouts and block advantages are its own code; this recipe is the flat GRPO core it starts from' },
    },
    records: ['datpo.leaf'],
    views: {
      metrics: DATPO_CHARTS,
      multiLine: [
        {
          id: 'tree-pass', title: 'Tree pass rate against the roots\' pass@N', unit: true, yLabel: 'share of problems',
          note: 'The paper\'s PassRate: the share of problems whose tree has at least one right leaf (root path or branch: up to 52 leaves with the paper\'s budget, against N roots). Beside it, the same question of the N roots alone (pass@N: any root right), and root accuracy v (avg@N: the share of roots right). Branches grow where the roots failed: the gap between the first two is what the branches found, at the cost of their extra leaves; compare the tree with pass@N, not with v.',
          series: [{ key: 'tree/pass_rate', label: 'tree (any leaf right)' }, { key: 'tree/root_pass_rate', label: 'roots, pass@N (any root right)' }, { key: 'reward', label: 'roots, avg@N (v)' }],
        },
        {
          id: 'entropy-paths', title: 'Entropy of roots and branches (nats per token)', yLabel: 'nats / token',
          note: 'Sampling entropy of the step\'s tokens: all (every root response and branch continuation: DATPO\'s tokens all solve, so this is both entropy/solve and entropy/all), the N roots\' responses alone (comparable with GRPO\'s), and the branches\' continuations alone (sampled after the forks, where the policy was least sure).',
          series: [{ key: 'entropy/solve', label: 'all tokens' }, { key: 'entropy/root', label: 'roots' }, { key: 'entropy/branch', label: 'branches' }],
        },
        {
          id: 'no-signal', title: 'Groups with no signal: roots and trees', unit: true, yLabel: 'share of problems',
          note: 'Roots: the share of problems whose N roots are all right or all wrong (frac_reward_zero_std, measured as GRPO measures its groups of G, before any tree grows). Trees: the share whose every leaf agrees, so that every block\'s base advantage is 0 (an unsolved problem\'s branches can still find a right answer, so this is lower).',
          series: [{ key: 'frac_reward_zero_std', label: 'root groups' }, { key: 'tree/frac_reward_zero_std', label: 'whole trees' }],
        },
        {
          id: 'leaves', title: 'Leaves per problem, by difficulty', yLabel: 'leaves',
          note: 'Mean leaves per problem by its root accuracy v: unsolved (v = 0; 52 with the paper\'s budget), low (0 < v ≤ ½), high (½ < v < 1), solved (v = 1: not expanded, N leaves).',
          series: [{ key: 'leaves/v0', label: 'v = 0' }, { key: 'leaves/low', label: '0 < v ≤ ½' }, { key: 'leaves/high', label: '½ < v < 1' }, { key: 'leaves/v1', label: 'v = 1' }],
        },
        {
          id: 'localisation', title: 'Where the forks fall', unit: true, yLabel: 'share of the path',
          note: 'Fork positions relative to their root\'s length. Over the roots with two or more forks: NND, the mean distance from a fork to its nearest other fork; MPD, the mean distance between two forks; WCR@5 and WCR@10, the share of forks with another fork within 5 % or 10 % of the path. Low NND and MPD with high WCR is the localisation token-entropy forking shows; sentence entropy spreads the forks.',
          series: [{ key: 'fork/position', label: 'mean position' }, { key: 'fork/nnd', label: 'NND' }, { key: 'fork/mpd', label: 'MPD' }, { key: 'fork/wcr5', label: 'WCR@5' }, { key: 'fork/wcr10', label: 'WCR@10' }],
        },
      ],
      trees: [{
        id: 'tree-viewer', title: 'Tree viewer', record: 'datpo.leaf',
        note: 'One problem\'s rollout tree at a step: its N roots, the forks chosen on each (where the policy was least sure), and the branches grown from them, coloured by reward.',
      }],
      browsers: [{
        id: 'tree-browser', title: 'Tree browser',
        note: 'A step\'s trees, one problem at a time: its root accuracy v and budget (K̂ forks, B̂ branches), then every leaf path: the root paths with their fork positions (in tokens), each branch as its prefix ⟨fork⟩ continuation, its reward, and the advantage of its last block.',
        record: 'datpo.leaf',
        groupBy: [
          { key: 'problem', label: 'problem', format: 'text' }, { key: 'answer', label: 'answer', format: 'number' },
          { key: 'v', label: 'root accuracy v', format: 'rate' }, { key: 'forks', label: 'K̂', format: 'number' }, { key: 'branches', label: 'B̂', format: 'number' },
        ],
        columns: [
          { key: 'root', label: 'root', format: 'number' },
          { key: 'fork', label: 'forked at', format: 'number' },
          { key: 'forkAt', label: 'forks on it', format: 'text' },
          { key: 'path', label: 'path', format: 'text' },
          { key: 'reward', label: 'reward', format: 'number' },
          { key: 'advantage', label: 'last block A', format: 'number' },
        ],
      }],
    },
  },
  body: datpoBody,
  guide: DATPO_GUIDE,
  lessons: DATPO_LESSONS,
};
