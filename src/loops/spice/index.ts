// SPICE as a loop definition (LOOPS.md §3): its config, presets, metrics, curriculum records and
// the views that show them (declarative, src/loops/spec.ts: the page draws them without knowing
// the loop).
import { rlPresetList, type BaseLoopConfig } from '../base_config';
import { CORE_CHARTS } from '../charts';
import type { LoopDefinition, MetricChartSpec } from '../spec';
import { SPICE_FIELDS, SPICE_PRESETS, SPICE_RL_UNUSED, validateSpiceConfig, type SpiceConfig } from './config';
import { frontierDots, frontierLabel, frontierPoints } from '../frontier';
import { spiceBody } from './body';
import { crossPlay } from './crossplay';
import { SPICE_GUIDE, SPICE_LESSONS } from './guide';

const SPICE_CHARTS: readonly MetricChartSpec[] = [
  {
    id: 'reward', key: 'reward', title: 'Reasoner pass rate on the challenger\'s questions', unit: true,
    note: 'Mean reward of the reasoner\'s answers: 1 when the answer is the challenger\'s gold. Unlike GRPO\'s training reward, the questions move: a rising challenger keeps this near ½.',
  },
  {
    id: 'challenger-reward', key: 'challenger/reward', title: 'Challenger reward', unit: true,
    note: 'Mean reward of the challenger\'s outputs: the chosen shape of the reasoner pass rate p (peaking at p = ½), invalid outputs paid invalidReward.',
  },
  {
    id: 'question-ops', key: 'question/ops', title: 'Question difficulty (operations, oracle)', optional: true,
    note: 'Mean number of operations in the valid questions, read off the syntax tree by the interpreter: how hard the challenger\'s questions are, beside the pass rate above.',
  },
  {
    id: 'question-frontier', key: 'question/frontier', title: 'Questions at the frontier (0 < p < 1)', unit: true, optional: true,
    note: 'Share of valid questions the reasoner solves sometimes but not always: only these give the reasoner a learning signal.',
  },
  ...CORE_CHARTS.filter((c) => c.id !== 'genbatches'),
];


export const SPICE: LoopDefinition<SpiceConfig> = {
  spec: {
    name: 'spice',
    title: 'SPICE: self-play in corpus environments',
    paper: { title: 'SPICE: Self-Play In Corpus Environments Improves Reasoning', url: 'https://arxiv.org/abs/2510.24684' },
    summary: 'One policy plays two roles. As challenger it reads a document and writes a question with a gold answer taken from the document; as reasoner it answers the question without the document. The challenger is paid most when the reasoner is right about half the time, so the questions track the reasoner\'s frontier; the document keeps the gold answers grounded.',
    fields: SPICE_FIELDS,
    rlPresets: rlPresetList(['spice', 'dr_grpo', 'grpo']),
    rlUnused: SPICE_RL_UNUSED,
    presets: SPICE_PRESETS,
    validate: validateSpiceConfig,
    // an update holds every challenger output and K answers per valid question: its size varies, so 64-row pieces
    shape: (c) => ({ trainRows: Math.min(64, c.documentsPerStep * c.questionsPerDocument * c.answersPerQuestion), decodeBatch: Math.min(64, c.documentsPerStep * c.questionsPerDocument * c.answersPerQuestion) }),
    cpuMode: true,
    recipe: {
      groupSize: 'answersPerQuestion', problems: ['documentsPerStep', 'questionsPerDocument'],
      released: { framework: '(no released code)', onRecipeFramework: false, note: 'SPICE\'s challenger and corpus are not in either framework; this recipe trains its reasoner role only' },
    },
    records: ['spice.question'],
    snapshots: 8,
    views: {
      metrics: SPICE_CHARTS,
      stacked: [{
        id: 'format-mix', title: 'Format mix of the challenger\'s outputs', yLabel: 'share of outputs',
        note: 'What the challenger wrote: a valid question with a #gold answer, no readable gold, a question that does not parse (or breaks the bounds), or an output cut at the token limit. Only valid questions are answered.',
        series: [
          { key: 'format/valid', label: 'valid' }, { key: 'format/no_gold', label: 'no gold' },
          { key: 'format/bad_question', label: 'bad question' }, { key: 'format/cut', label: 'cut at the limit' },
        ],
      }],
      multiLine: [{
        id: 'gold', title: 'Challenger: validity and what the oracle says', unit: true,
        note: 'Valid is what the loop checks. Gold accuracy (the gold answer is the question\'s true value), leak (the question hands its answer over: it evaluates to the gold and a literal equal to the gold passes straight through, as in 7+0 or max(7,2); leak base is the same flag on the world\'s own gold questions of the step\'s documents, its rate where the challenger did nothing), copy (the question is copied from the record) and grounded (the gold is a value the document shows) come from the interpreter: shown, never rewarded.',
        series: [
          { key: 'challenger/valid', label: 'valid' }, { key: 'challenger/gold_acc', label: 'gold accuracy' },
          { key: 'challenger/leak', label: 'leak' }, { key: 'challenger/leak_base', label: 'leak base rate' }, { key: 'challenger/copy', label: 'copy' }, { key: 'challenger/grounded', label: 'grounded' },
        ],
      }, {
        id: 'entropy-roles', title: 'Entropy by role (nats per token)', yLabel: 'nats / token',
        note: 'Sampling entropy per token of the step\'s responses: the reasoner\'s answers (entropy/solve, the one compared across loops), the challenger\'s outputs (how freely the policy writes questions), and every token of both roles pooled (entropy/all).',
        series: [{ key: 'entropy/solve', label: 'reasoner' }, { key: 'entropy/challenge', label: 'challenger' }, { key: 'entropy/all', label: 'both roles' }],
      }, {
        id: 'no-signal-roles', title: 'Groups with no signal by role', unit: true, yLabel: 'share of groups',
        note: 'Share of each role\'s groups whose rewards are all equal, so their advantages are 0, counted before training: the reasoner\'s (one a valid question: every answer matches the gold or none does; frac_reward_zero_std, compared across loops) and the challenger\'s (one a document: every output paid the same). The frozen-challenger ablation measures the challenger\'s too, though it does not train them.',
        series: [{ key: 'frac_reward_zero_std', label: 'reasoner groups' }, { key: 'frac_reward_zero_std/challenge', label: 'challenger groups' }],
      }],
      browsers: [{
        id: 'question-browser', title: 'Question browser',
        note: 'A step\'s documents, the challenger\'s outputs for each, the question and gold read from them, the reasoner\'s answers (✓ = the gold), their pass rate p, the challenger\'s reward, and the oracle\'s flags.',
        record: 'spice.question',
        groupBy: [{ key: 'document', label: 'document (worked record)', format: 'text' }],
        columns: [
          { key: 'output', label: 'challenger output', format: 'text' },
          { key: 'gold', label: 'gold', format: 'number' },
          { key: 'value', label: 'true value', format: 'number' },
          { key: 'ops', label: 'ops', format: 'number' },
          { key: 'answers', label: 'reasoner answers', format: 'text' },
          { key: 'p', label: 'p', format: 'rate' },
          { key: 'reward', label: 'reward', format: 'number' },
          { key: 'valid', label: 'valid', format: 'flag', filter: true },
          { key: 'goldCorrect', label: 'gold = true value', format: 'flag', filter: true },
          { key: 'leak', label: 'hands the answer over', format: 'flag', filter: true },
          { key: 'copy', label: 'copied', format: 'flag', filter: true },
        ],
      }],
      crossPlay: {
        id: 'cross-play', title: 'Cross-play: reasoners against challengers',
        rows: 'reasoner at step', columns: 'challenger at step',
        note: 'Cell (i, j): how often the reasoner of checkpoint i answers the questions the challenger of checkpoint j writes (the same prompts as the run\'s: a document each, or none in the no-corpus ablation; one question a prompt, the same sampling seed for every checkpoint). Down a column, later reasoners on fixed questions: the reasoner improving. Along a row, later challengers against a fixed reasoner: the questions getting harder. The same answers are graded two ways: by the challenger\'s gold (what the run rewards; the gold is often wrong, so a reasoner can score by agreeing with the challenger\'s mistakes) and by the question\'s true value (the interpreter). Computed on demand from the run\'s checkpoints (step 0 is the starting policy).',
        gradings: [
          { key: 'gold', label: 'graded by the challenger\'s gold', note: 'an answer counts when it is the challenger\'s gold: the reward the run trained the reasoner on' },
          { key: 'value', label: 'graded by the true value (oracle)', note: 'an answer counts when it is the question\'s value as the interpreter computes it: never a reward, so this is the reasoner\'s real accuracy on these questions' },
        ],
      },
      curves: [{
        id: 'reward-shape', title: 'What the challenger is paid', xLabel: 'reasoner pass rate p', yLabel: 'challenger reward',
        note: 'The chosen reward shape against the reasoner\'s pass rate p; dots at the pass rates K answers can give (k of K right). Questions the reasoner always or never solves earn little: the challenger is pushed to the reasoner\'s frontier.',
        points: (c: BaseLoopConfig) => frontierPoints((c as SpiceConfig).challengerReward, (c as SpiceConfig).tau),
        dots: (c: BaseLoopConfig) => frontierDots((c as SpiceConfig).challengerReward, (c as SpiceConfig).tau, (c as SpiceConfig).answersPerQuestion),
        caption: (c: BaseLoopConfig) => {
          const s = c as SpiceConfig;
          return `${frontierLabel(s.challengerReward, s.tau)}, K = ${s.answersPerQuestion}; invalid outputs: ${s.invalidReward}`;
        },
      }],
    },
  },
  body: spiceBody,
  guide: SPICE_GUIDE,
  lessons: SPICE_LESSONS,
  crossPlay,
};
