// The `rlvr-lab ablate` commands that reproduce a grid headless (one per arm, each writing the arm's
// --json file; a control arm reads its matched arm's file with --match-tokens). An arm's config
// goes in a file beside the command (--config), holding only what differs from the loop's
// defaults; ablate itself sets the seed, steps and evaluation size from its flags, evaluates only
// at the start and the end, and saves no checkpoints or samples.
import { isLoopName, loopNamed } from '../loops/registry';
import { isUploadName } from '../state/files/policyUpload';
import type { ArmPlan, RunPlan } from './grid';

/** Fields `ablate` sets itself (from its flags, or fixed): left out of an arm's --config file. */
const ABLATE_SETS = ['seed', 'steps', 'evalN', 'evalProblems', 'evalEvery', 'samplesPerStep', 'checkpointEvery', 'tokenBudget'];

/** What differs from the loop's defaults, `rl` compared key by key (what --config needs). */
export function configOverrides(loop: string, config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const defaults = isLoopName(loop) ? (loopNamed(loop).spec.validate({}, loop) as unknown as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (ABLATE_SETS.includes(k)) continue;
    if (k === 'rl' && v && typeof v === 'object') {
      const d = (defaults.rl ?? {}) as Record<string, unknown>;
      const rl = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([rk, rv]) => JSON.stringify(rv) !== JSON.stringify(d[rk])));
      if (Object.keys(rl).length) out.rl = rl;
    } else if (JSON.stringify(v) !== JSON.stringify(defaults[k])) out[k] = v;
  }
  return out;
}

/** A file name from an arm's id (arm1, control). */
const fileOf = (arm: Pick<ArmPlan, 'id'>) => arm.id.replace(/[^\w.-]/g, '_');

function policyFlag(policy: string): string {
  if (isUploadName(policy)) return `--ckpt PATH/TO/${policy.slice(policy.indexOf(':') + 1).replace(/[^\w.-]/g, '_')} # uploaded in the page: give its exported folder`;
  // a sweep file's base is a folder (public/models/small); the page's is the policy's name
  return policy.includes('/') ? `--ckpt ${policy}` : `--preset ${policy}`;
}

/** One arm's command, its config file written first by a here-document. */
export function armCommand(arm: Pick<ArmPlan, 'id' | 'loop' | 'policy' | 'config' | 'label' | 'matchedTo'>, seeds: readonly number[]): string {
  const c = arm.config as unknown as Record<string, unknown> & { steps: number; evalN: number; evalProblems: number };
  const overrides = configOverrides(arm.loop, c);
  const file = fileOf(arm);
  const hasConfig = Object.keys(overrides).length > 0;
  const lines = [`# ${arm.label}`];
  if (hasConfig) lines.push(`cat > ${file}.config.json <<'EOF'`, JSON.stringify(overrides, null, 1), 'EOF');
  const flags = [
    `--loop ${arm.loop}`, policyFlag(arm.policy), `--seeds ${seeds.join(',')}`, `--steps ${c.steps}`, `--eval-n ${c.evalN}`, `--eval-problems ${c.evalProblems}`,
    ...(hasConfig ? [`--config ${file}.config.json`] : []),
    ...(arm.matchedTo ? [`--match-tokens ${fileOf({ id: arm.matchedTo })}.json`] : []),
    `--json ${file}.json`,
  ];
  // a policy flag with a comment must come last on its line
  const comment = flags.find((f) => f.includes(' # '));
  const body = flags.filter((f) => f !== comment);
  lines.push(`npm run ablate -- ${body.join(' ')}${comment ? ` ${comment}` : ''}`);
  return lines.join('\n');
}

/** Every arm's command, control arms after the arm they are matched to. */
export function ablateCommands(g: { arms: readonly ArmPlan[]; runs: readonly RunPlan[] }): string[] {
  const seedsOf = (id: string) => g.runs.filter((r) => r.armId === id).map((r) => r.seed);
  return [...g.arms.filter((a) => !a.control), ...g.arms.filter((a) => a.control)].map((a) => armCommand(a, seedsOf(a.id)));
}

/** The commands as one shell script (the explorer's "commands" download). */
export function commandsScript(title: string, commands: readonly string[]): string {
  return ['#!/bin/sh', `# ${title}: the rlvr-lab ablate commands that reproduce this grid headless (run from the repository root)`, '# then: open each arm*.json in the page\'s explorer (Import), or all at once', 'set -e', '', ...commands.flatMap((c) => [c, '']), ''].join('\n');
}

/** A sweep's commands: those it carries, else each arm's from its ablation. */
export function sweepCommands(s: { commands?: readonly string[]; arms: readonly { id: string; label: string; matchedTo?: string; ablation: { loop: string; base: string; config: Record<string, unknown>; results: readonly { seed: number }[] } }[] }): string[] {
  if (s.commands?.length) return [...s.commands];
  return s.arms.map((a) => armCommand({ id: a.id, label: a.label, loop: a.ablation.loop, policy: a.ablation.base, config: a.ablation.config as never, matchedTo: a.matchedTo }, a.ablation.results.map((r) => r.seed)));
}
