// A sweep file's arms as a grid to run live (a gallery entry's "Run it live"): each arm's loop,
// base policy, config and seeds as the file recorded them, every run's config checked by its loop's
// validator first (refused naming the arm and the field); a control arm again matched in generated
// tokens to its arm's seeds. The configs run as recorded: an `ablate --json` file's evaluate only at
// the start and the end and save no checkpoint before the end (a reload mid-run restarts that run).
import { ConfigError } from '../util/errors';
import { isLoopName, loopNamed } from '../loops/registry';
import type { BaseLoopConfig } from '../loops/base_config';
import type { Sweep } from './format';
import type { ArmPlan, Expanded, RunPlan } from './grid';
import { MAX_GRID_RUNS } from './grid';

/** "public/models/small" → "small": files name the folder, the page the policy. */
export const policyOfBase = (base: string): string => base.replace(/\/+$/, '').replace(/^.*\//, '');

const FIELD_OF_MESSAGE = /^[a-z]+\.((?:rl\.)?[A-Za-z]+) = /;

export function plansOfSweep(s: Sweep, catalog: { names: readonly string[]; defaultPolicy: string | null } | null): Expanded {
  if (catalog === null) return { ok: false, arm: null, field: 'policy', message: 'the list of base policies has not loaded' };
  const arms: ArmPlan[] = [];
  const perArm: RunPlan[][] = [];
  const total = s.arms.reduce((a, x) => a + x.ablation.results.length, 0);
  if (total > MAX_GRID_RUNS) return { ok: false, arm: null, field: null, message: `${total} runs; a grid holds at most ${MAX_GRID_RUNS}` };
  for (const a of s.arms) {
    const { loop, base, config } = a.ablation;
    if (!isLoopName(loop)) return { ok: false, arm: a.label, field: 'loop', message: `arm ${a.label}: unknown loop "${loop}"` };
    const policy = policyOfBase(base);
    if (!catalog.names.includes(policy)) return { ok: false, arm: a.label, field: 'policy', message: `arm ${a.label}: its base policy ${base} is not one this page offers (${catalog.names.join(', ')})` };
    const spec = loopNamed(loop).spec;
    const runs: RunPlan[] = [];
    for (const r of [...a.ablation.results].sort((x, y) => x.seed - y.seed)) {
      let c: BaseLoopConfig;
      try {
        // tokenBudget 1 stands in for a control's matched tokens (set when its matched run ends)
        c = spec.validate({ ...config, seed: r.seed, ...(a.matchedTo ? { tokenBudget: 1 } : {}) }, loop);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        return { ok: false, arm: a.label, field: FIELD_OF_MESSAGE.exec(e.message)?.[1] ?? null, message: `arm ${a.label} (seed ${r.seed}): ${e.message}` };
      }
      runs.push({ key: `${a.id}/${r.seed}`, armId: a.id, seed: r.seed, loop, policy, config: c, ...(a.matchedTo ? { matchKey: `${a.matchedTo}/${r.seed}` } : {}) });
    }
    arms.push({ id: a.id, label: a.label, knobs: a.knobs, loop, policy, config: runs[0].config, ...(a.control ? { control: true } : {}), ...(a.matchedTo ? { matchedTo: a.matchedTo } : {}) });
    perArm.push(runs);
  }
  // seed by seed, as a grid's runs are; control arms after the others, so the runs they match come first
  const order = [...perArm.keys()].sort((i, j) => Number(!!arms[i].matchedTo) - Number(!!arms[j].matchedTo));
  const longest = Math.max(...perArm.map((r) => r.length));
  const runs = Array.from({ length: longest }, (_, k) => order.flatMap((i) => (perArm[i][k] ? [perArm[i][k]] : []))).flat();
  for (const r of runs) if (r.matchKey && !runs.some((x) => x.key === r.matchKey)) return { ok: false, arm: r.armId, field: 'matchedTo', message: `arm ${r.armId}: matched to ${r.matchKey}, which the file does not hold` };
  return { ok: true, arms, runs };
}
