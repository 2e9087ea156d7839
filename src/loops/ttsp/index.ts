// TTSP as a loop definition (LOOPS.md §6): its config, presets, the two adapter sets the engine
// makes for it, its metrics, curriculum records and the views that show them (declarative,
// src/loops/spec.ts: the page draws them without knowing the loop).
import { rlPresetList, type BaseLoopConfig } from '../base_config';
import { CORE_CHARTS } from '../charts';
import { frontierDots, frontierLabel, frontierPoints } from '../frontier';
import type { LoopDefinition, MetricChartSpec } from '../spec';
import { LORA_TARGET_SETS, TTSP_FIELDS, TTSP_PRESETS, TTSP_RL_UNUSED, validateTtspConfig, type TtspConfig } from './config';
import { parseAdapterFile, type LoraSpec } from '../../model/lora';
import { PROPOSER, SOLVER, ttspBody } from './body';
import { TTSP_GUIDE, TTSP_LESSONS } from './guide';

const TTSP_CHARTS: readonly MetricChartSpec[] = [
  {
    id: 'reward', key: 'reward', title: 'Solver reward on the proposer\'s problems', unit: true, optional: true,
    note: 'Mean reward of the solver\'s attempts at this step\'s valid proposals: 1 when the answer is the proposal\'s reference result. A proposer at the frontier keeps it near ½. The generic control (solverProblems: training) has no proposer: its problems are random training problems.',
  },
  {
    id: 'vendi', key: 'vendi/cumulative', title: 'Cumulative Vendi score of the proposals', yLabel: 'effective number of problems',
    note: 'The Vendi score (exp of the entropy of the similarity matrix\'s eigenvalues) of every valid proposal so far, on the frozen base\'s embeddings: how many different problems the proposer has effectively written (for the generic control: how many different training problems it drew).',
  },
  {
    id: 'frontier', key: 'proposal/frontier', title: 'Proposals at the frontier (0 < p < 1)', unit: true, optional: true,
    note: 'Share of valid proposals the solver solves sometimes but not always: only these teach the solver (for the generic control: of its random training problems).',
  },
  ...CORE_CHARTS.filter((c) => c.id !== 'genbatches' && c.id !== 'reward'),
];

/** An adapter set of the run's rank, α and targets (all four: PEFT's default spec, without a targets list). */
function adapterSpec(name: string, c: TtspConfig): LoraSpec {
  const targets = LORA_TARGET_SETS[c.loraTargets];
  return targets.length === 4 ? { name, rank: c.loraRank, alpha: c.loraAlpha } : { name, rank: c.loraRank, alpha: c.loraAlpha, targets };
}


export const TTSP: LoopDefinition<TtspConfig> = {
  spec: {
    name: 'ttsp',
    title: 'TTSP: test-time self-play',
    // no public code or full text: LOOPS.md marks what is reconstructed (the knobs)
    paper: { title: 'Test-Time Self-Play (TTSP)' },
    summary: 'One hard target problem and no verifier on it. The base policy stays frozen; two LoRA adapters learn beside it. The proposer, shown the target and its earlier problems, writes new problems with a worked reference solution; a gate keeps those whose solution checks in the interpreter. The solver practises on them and on replayed ones; the proposer is paid most when the solver is right about half the time. The target\'s answer is only used to grade the solver every few steps.',
    fields: TTSP_FIELDS,
    rlPresets: rlPresetList(['ttsp', 'grpo', 'dr_grpo']),
    rlUnused: TTSP_RL_UNUSED,
    presets: TTSP_PRESETS,
    validate: validateTtspConfig,
    shape: (c) => ({
      trainRows: Math.min(64, Math.max(c.proposerContexts * c.proposalsPerContext, c.solverAttempts * 8)),
      decodeBatch: Math.min(64, Math.max(c.proposerContexts * c.proposalsPerContext, c.solverAttempts * 8)),
      adapters: [
        // the proposer's loss normalises by its own longest output (constant_norm's L_max)
        { spec: adapterSpec(PROPOSER, c), roles: ['propose'], seed: (c.seed * 31 + 1) >>> 0, maxNewTokens: c.maxProposalTokens },
        { spec: adapterSpec(SOLVER, c), roles: ['solve'], seed: (c.seed * 31 + 2) >>> 0, maxNewTokens: c.maxNewTokens },
      ],
    }),
    cpuMode: false,
    recipe: {
      groupSize: 'solverAttempts', problems: ['proposerContexts', 'proposalsPerContext'],
      released: { framework: '(no released code)', onRecipeFramework: false, note: 'TTSP\'s proposer, adapters and targets are not in either framework; this recipe trains its solver role only' },
    },
    // an exported TTSP checkpoint is the adapted solver: the base with the solver set merged in
    exportAdapter: SOLVER,
    records: ['ttsp.proposal'],
    views: {
      metrics: TTSP_CHARTS,
      multiLine: [
        {
          id: 'target', title: 'Target: adapted solver against the frozen base (mean@n)', unit: true,
          note: 'Every M steps the solver answers the target n times, graded by the interpreter (never a training signal). The frozen base is measured once with the same seed; the shipped list\'s mean@512 of the base is the long-run reference.',
          series: [
            { key: 'target/mean', label: 'adapted solver' }, { key: 'target/base_mean', label: 'frozen base (same seed)' },
            { key: 'target/base_mean512', label: 'base mean@512' },
          ],
        },
        {
          id: 'target-maj', title: 'Target: majority vote (maj@n)', unit: true,
          note: 'Whether the most frequent of the n answers is the target\'s true value (ties split), for the adapted solver and the frozen base: what a user would submit without a verifier.',
          series: [{ key: 'target/maj', label: 'adapted solver' }, { key: 'target/base_maj', label: 'frozen base' }],
        },
        {
          id: 'proposer', title: 'Proposer reward: mean and top-4', unit: true,
          note: 'The mean proposer reward over a step\'s proposals and the mean of its four best (the paper\'s Figure 10): the gap shows how concentrated the reward is within a batch.',
          series: [{ key: 'proposer/reward', label: 'mean' }, { key: 'proposer/top4', label: 'top-4' }],
        },
        {
          id: 'entropy-roles', title: 'Entropy per role (nats per token)', yLabel: 'nats / token',
          note: 'Mean sampling entropy per token of the proposer\'s tokens (its proposals), of the solver\'s tokens (its answers to fresh and replayed problems: entropy/solve, the one loops compare) and of both pooled (entropy/all): each adapter set moves its own role.',
          series: [{ key: 'entropy/propose', label: 'proposer' }, { key: 'entropy/solve', label: 'solver' }, { key: 'entropy/all', label: 'both pooled' }],
        },
        {
          id: 'related', title: 'Relatedness of proposals to the target, against random training problems', yLabel: 'cosine',
          note: 'Mean cosine between each valid proposal and the target, both embedded by the frozen base (mean of its final hidden states), and the same for 32 random training problems drawn once by the run\'s seed: only the gap above that baseline says the synthetic problems are about the target (proposal/related_minus_base).',
          series: [{ key: 'proposal/related', label: 'valid proposals' }, { key: 'proposal/related_base', label: 'random training problems' }],
        },
        {
          id: 'target-equivalent', title: 'Proposals that hand the solver the target (oracle)', unit: true,
          note: 'Among proposals whose reference checks and that are new: the share whose value is the target\'s answer, and the share that contains the target as a sub-expression (up to operand order). With an exact checker such a proposal certifies the target\'s answer, a verifier on the target; refuseContainsTarget refuses the second kind (rejected as contains target). Measured with the hidden answer, never a training signal.',
          series: [{ key: 'proposal/target_valued', label: 'value = target\'s answer' }, { key: 'proposal/contains_target', label: 'contains the target' }],
        },
        {
          id: 'synthetic', title: 'Fresh synthetic problems: adapted solver against the frozen base', unit: true,
          note: 'Pass rate over G_S attempts at each of the step\'s fresh valid proposals, graded against its reference: the adapted solver (its training reward) and the frozen base without adapters (the paper\'s Figure 11). Both high: the solver mostly faces problems the base already solves.',
          series: [{ key: 'reward', label: 'adapted solver' }, { key: 'synthetic/base_pass_rate', label: 'frozen base' }],
        },
        {
          id: 'replay', title: 'Replay buffer', yLabel: 'problems',
          note: 'Problems drawn from the buffer of earlier valid ones and re-answered by the current solver; kept for training when 0 < p < 1.',
          series: [{ key: 'replay/drawn', label: 'drawn' }, { key: 'replay/kept', label: 'kept' }],
        },
      ],
      stacked: [{
        id: 'rejections', title: 'Proposals rejected by the gate, by category', yLabel: 'proposals per step',
        note: 'Cut at the token limit; unparseable (no problem of the world or no answer); bad reference (a step of the solution does not check in the interpreter); answer mismatch (the steps check but the stated answer is not their result); duplicate (proposed before, or the target itself); contains target (the target is a sub-expression, refused with refuseContainsTarget). The paper\'s Figure 9: rejections should fall as the proposer learns.',
        series: [
          { key: 'rejected/cut', label: 'cut' }, { key: 'rejected/unparseable', label: 'unparseable' },
          { key: 'rejected/bad_reference', label: 'bad reference' }, { key: 'rejected/answer_mismatch', label: 'answer mismatch' },
          { key: 'rejected/duplicate', label: 'duplicate' }, { key: 'rejected/contains_target', label: 'contains target' },
        ],
      }],
      browsers: [{
        id: 'proposal-browser', title: 'Proposal browser',
        note: 'A step\'s proposer contexts (the target, then the earlier problems shown), each proposal, the gate\'s verdict, the problem and reference answer read from it, the solver\'s attempts (✓ = the reference), their pass rate p, the proposer\'s reward and the proposal\'s relatedness to the target.',
        record: 'ttsp.proposal',
        groupBy: [{ key: 'context', label: 'context (target | earlier problems)', format: 'text' }],
        columns: [
          { key: 'output', label: 'proposal', format: 'text' },
          { key: 'verdict', label: 'gate', format: 'text' },
          { key: 'answer', label: 'reference', format: 'number' },
          { key: 'answers', label: 'solver attempts', format: 'text' },
          { key: 'p', label: 'p', format: 'rate' },
          { key: 'reward', label: 'reward', format: 'number' },
          { key: 'related', label: 'cos to target', format: 'number' },
          { key: 'valid', label: 'valid', format: 'flag', filter: true },
        ],
      }],
      curves: [{
        id: 'reward-shape', title: 'What the proposer is paid', xLabel: 'solver pass rate p', yLabel: 'proposer reward',
        note: 'The chosen frontier shape against the solver\'s pass rate p; dots at the pass rates G_S attempts can give. Problems the solver always or never solves earn little.',
        points: (c: BaseLoopConfig) => frontierPoints((c as TtspConfig).proposerReward, (c as TtspConfig).tau),
        dots: (c: BaseLoopConfig) => frontierDots((c as TtspConfig).proposerReward, (c as TtspConfig).tau, (c as TtspConfig).solverAttempts),
        caption: (c: BaseLoopConfig) => {
          const s = c as TtspConfig;
          return `${frontierLabel(s.proposerReward, s.tau)}, G_S = ${s.solverAttempts}; a rejected proposal is paid ${s.invalidReward}`;
        },
      }],
    },
  },
  body: ttspBody,
  guide: TTSP_GUIDE,
  lessons: TTSP_LESSONS,
  // a run continued from another's exported adapters (PEFT files, each with its rank, α and targets)
  adapterFiles: (files, cfg) => files.map((f) => parseAdapterFile(f.bytes, cfg, f.file)),
};
