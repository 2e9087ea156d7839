// The GRPO control as a loop definition (LOOPS.md §1): the baseline every paper's loop is
// compared against.
import { rlPresetList } from '../base_config';
import { CORE_CHARTS, REWARD_CHART } from '../charts';
import type { LoopDefinition } from '../spec';
import { GRPO_FIELDS, GRPO_PRESETS, validateGrpoConfig, type GrpoConfig } from './config';
import { grpoBody } from './body';
import { GRPO_GUIDE } from './guide';

export const GRPO: LoopDefinition<GrpoConfig> = {
  spec: {
    name: 'grpo',
    title: 'GRPO: the vanilla RLVR control',
    paper: { title: 'DeepSeekMath (GRPO), with DAPO\'s clip-higher and token mean', url: 'https://arxiv.org/abs/2402.03300' },
    summary: 'A fixed training set with gold answers; G samples per problem; reward 1 iff the final answer is right; group-normalised advantages and a clipped policy gradient. The control every other loop is compared against.',
    fields: GRPO_FIELDS,
    rlPresets: rlPresetList(['grpo', 'grpo_original', 'dr_grpo', 'dapo', 'gspo']),
    presets: GRPO_PRESETS,
    validate: validateGrpoConfig,
    // one update is problemsPerStep × G trajectories in miniBatches parts; sampling in batches of at most 64
    shape: (c) => ({ trainRows: Math.ceil((c.problemsPerStep * c.groupSize) / c.rl.miniBatches), decodeBatch: Math.min(64, c.problemsPerStep * c.groupSize) }),
    cpuMode: true,
    recipe: { groupSize: 'groupSize', problems: ['problemsPerStep'] },
    records: [],
    views: { metrics: [REWARD_CHART, ...CORE_CHARTS.filter((c) => c.id !== 'entropy-all')] },
  },
  body: grpoBody,
  guide: GRPO_GUIDE,
};
