// OpenSIR as a loop definition (LOOPS.md §4): its config, presets, metrics, curriculum records and
// the views that show them (declarative, src/loops/spec.ts: the page draws them without knowing
// the loop).
import { CONCEPT_TAGS } from '../../world/index';
import { rlPresetList, type BaseLoopConfig } from '../base_config';
import { CORE_CHARTS } from '../charts';
import type { LoopDefinition, MetricChartSpec } from '../spec';
import { OPENSIR_FIELDS, OPENSIR_PRESETS, OPENSIR_RL_UNUSED, validateOpensirConfig, type OpensirConfig } from './config';
import { solvability } from './logic';
import { opensirBody } from './body';
import { OPENSIR_GUIDE, OPENSIR_LESSONS } from './guide';

const OPENSIR_CHARTS: readonly MetricChartSpec[] = [
  {
    id: 'reward', key: 'reward', title: 'Student reward', unit: false,
    note: 'Mean reward of the students\' answers to this step\'s legal problems: 1 for agreeing with the majority (the pseudo-label, not the truth) plus 0.1 for an answer in the #answer form.',
  },
  {
    id: 'teacher-reward', key: 'teacher/reward', title: 'Teacher reward',
    note: 'Mean R_T = sol + div + 0.1·fmt + len over the teacher\'s outputs (0 for an illegal one).',
  },
  {
    id: 'solve-rate', key: 'student/solve_rate', title: 'Solve rate (agreement)', unit: true, optional: true,
    note: 'Mean over legal problems of s = count(a*)/#parsable answers: how often the students agree with their own majority. The window [s_min, s_max] pays the teacher for problems that are neither trivial nor hopeless.',
  },
  {
    id: 'solve-var', key: 'student/solve_rate_var', title: 'Solve-rate variance', optional: true,
    note: 'Variance of s across the step\'s legal problems. The paper: co-training keeps it much lower than student-only training.',
  },
  {
    id: 'pool-size', key: 'pool/size', title: 'Pool size (problems)',
    note: 'Problems in the pool: the seed problem and every legal problem the teacher has written.',
  },
  {
    id: 'coverage', key: 'pool/concepts', title: 'Concept coverage (distinct concept signatures so far)',
    note: 'Distinct concept signatures in the pool: operation count, operators, functions, depth, nesting and magnitude, read off the syntax tree (our world has 8 concept tags, not the paper\'s free-text concepts, so a signature stands in for a concept). Longer problems make new signatures too. The paper: the diversity reward nearly doubles coverage.',
  },
  {
    id: 'probe-coverage', key: 'probe/concepts', title: 'Concept coverage on fixed probe prompts', optional: true,
    note: 'Distinct concept signatures among the problems the teacher writes for the same probe prompts with the same sampling seed (probeEvery, probePrompts × probeSamples outputs; never trained on). Step 1 is the base. Unlike the pool\'s running count, which can only grow, this falls when the teacher narrows onto a few templates.',
  },
  {
    id: 'tag-sets', key: 'pool/tag_sets', title: 'Concept combinations in the pool', optional: true,
    note: 'Distinct sets of concept tags the pool\'s problems show (read off the tree): which combinations of functions, nesting, large values and operators the curriculum has reached.',
  },
  ...CORE_CHARTS.filter((c) => c.id !== 'genbatches'),
];

export const OPENSIR: LoopDefinition<OpensirConfig> = {
  spec: {
    name: 'opensir',
    title: 'OpenSIR: open-ended self-improving reasoner',
    paper: { title: 'OpenSIR: Open-Ended Self-Improving Reasoner', url: 'https://arxiv.org/abs/2511.00602', code: 'https://github.com/EdinburghNLP/OpenSIR' },
    summary: 'From a pool holding only 1+1, the policy as teacher writes new problems with their concepts; as student it answers each several times, and the majority answer stands in for the truth. The teacher is paid for problems the students agree on sometimes but not always, that are unlike the pool, and that take long answers; the pool grows into a curriculum nobody wrote.',
    fields: OPENSIR_FIELDS,
    rlPresets: rlPresetList(['opensir', 'grpo']),
    rlUnused: OPENSIR_RL_UNUSED,
    presets: OPENSIR_PRESETS,
    validate: validateOpensirConfig,
    // a step samples teacherGroups × teacherSamples problems and studentSamples answers to each legal one; it trains on one group of each
    shape: (c) => ({ trainRows: Math.max(c.teacherSamples, c.studentSamples), decodeBatch: Math.min(64, c.teacherGroups * c.teacherSamples * c.studentSamples) }),
    cpuMode: true,
    recipe: {
      groupSize: 'studentSamples', problems: ['teacherGroups', 'teacherSamples'],
      released: { framework: 'TRL', onRecipeFramework: true, note: 'OpenSIR is built on TRL\'s GRPOTrainer: the TRL keys of this recipe are its keys; the teacher, its rewards and the pool are its own code' },
    },
    records: ['opensir.pool'],
    views: {
      metrics: OPENSIR_CHARTS,
      multiLine: [
        {
          id: 'components', title: 'Teacher reward components',
          note: 'Means over the step\'s legal problems: sol (the solvability triangle), div (unlike this step\'s other problems and the pool), len (mean answer length over l_base); fmt over all outputs (the legal ratio).',
          series: [{ key: 'teacher/sol', label: 'sol' }, { key: 'teacher/div', label: 'div' }, { key: 'teacher/fmt', label: 'fmt' }, { key: 'teacher/len', label: 'len' }],
        },
        {
          id: 'entropy-roles', title: 'Sampling entropy by role (nats per token)', yLabel: 'nats / token',
          note: 'Mean sampling entropy over the response tokens of each role: the students\' answers (solving, the entropy compared across loops) and the teacher\'s problems with their concept tags; all pools every response token of the step.',
          series: [{ key: 'entropy/solve', label: 'students (solving)' }, { key: 'entropy/teach', label: 'teacher' }, { key: 'entropy/all', label: 'all tokens' }],
        },
        {
          id: 'zero-std-roles', title: 'Groups with no signal, by role', unit: true,
          note: 'Share of the step\'s sampled groups whose rewards are all equal, before the selection keeps one group of each role: the students\' groups (every answer agrees with the majority, or none parses) and the teacher\'s groups (every output scores the same R_T).',
          series: [{ key: 'frac_reward_zero_std', label: 'students' }, { key: 'frac_reward_zero_std/teach', label: 'teacher' }],
        },
        {
          id: 'validity', title: 'Validity: legal, and what the oracle says', unit: true,
          note: 'Legal is what the loop checks (the problem parses). True-label agreement (the majority answer is the interpreter\'s value) and concepts right (every claimed tag is one the syntax tree shows, and as many as allowed: all of them, at most three) come from the oracle: shown, never rewarded.',
          series: [{ key: 'teacher/legal', label: 'legal' }, { key: 'oracle/label_agreement', label: 'true-label agreement' }, { key: 'oracle/concepts_exact', label: 'concepts right' }],
        },
      ],
      stacked: [{
        id: 'topics', title: 'Topic mix of the step\'s legal problems', yLabel: 'share of problems',
        note: 'Each legal problem by its rarest concept (a function, nesting, large values, then the operators), read off the syntax tree: how the curriculum moves between topics.',
        series: CONCEPT_TAGS.map((t) => ({ key: `topic/${t}`, label: t })),
      }],
      maps: [{
        id: 'pool-map', title: 'The pool\'s problems, embedded (PCA)', record: 'opensir.pool', vector: 'embedding', colorBy: 'step', label: 'problem',
        note: 'Each legal problem\'s embedding (the embedder the run uses) projected on the pool\'s first two principal components, coloured by the step it joined: a curriculum that explores spreads out; one that repeats a template stays in a knot.',
      }],
      browsers: [{
        id: 'pool-table', title: 'Pool table', record: 'opensir.pool', scope: 'all', sortable: true,
        note: 'Every problem the teacher added (the seed problem aside): its concepts claimed and read off the tree, the step it joined, the students\' answers, solve rate and pseudo-label against the true value, and its reward parts. Click a column\'s head to sort.',
        groupBy: [],
        columns: [
          { key: 'problem', label: 'problem', format: 'text' },
          { key: 'claimed', label: 'concepts claimed', format: 'text' },
          { key: 'actual', label: 'concepts (tree)', format: 'text' },
          { key: 'step', label: 'step', format: 'number' },
          { key: 'solveRate', label: 'solve rate', format: 'rate' },
          { key: 'label', label: 'pseudo-label', format: 'number' },
          { key: 'value', label: 'true value', format: 'number' },
          { key: 'agree', label: 'label true', format: 'flag', filter: true },
          { key: 'sol', label: 'sol', format: 'number' },
          { key: 'div', label: 'div', format: 'number' },
          { key: 'reward', label: 'R_T', format: 'number' },
          { key: 'studentTrained', label: 'student trained', format: 'flag', filter: true },
        ],
      }],
      curves: [{
        id: 'solvability', title: 'What the teacher is paid for solvability', xLabel: 'solve rate s', yLabel: 'sol',
        note: 'The triangle on [s_min, s_max], peaking at its midpoint, y₂ at the edges and 0 outside; dots at the solve rates the students can give.',
        points: (c: BaseLoopConfig) => {
          const o = c as OpensirConfig;
          return Array.from({ length: 201 }, (_, i) => ({ x: i / 200, y: solvability(i / 200, o.sMin, o.sMax, o.studentSamples) }));
        },
        dots: (c: BaseLoopConfig) => {
          const o = c as OpensirConfig;
          return Array.from({ length: o.studentSamples + 1 }, (_, k) => ({ x: k / o.studentSamples, y: solvability(k / o.studentSamples, o.sMin, o.sMax, o.studentSamples) }));
        },
        caption: (c: BaseLoopConfig) => {
          const o = c as OpensirConfig;
          return `window [${o.sMin}, ${o.sMax}], ${o.studentSamples} answers a problem`;
        },
      }],
    },
  },
  body: opensirBody,
  guide: OPENSIR_GUIDE,
  lessons: OPENSIR_LESSONS,
};
