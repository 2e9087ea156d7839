// The tables of docs/results.md §11 (issue 27, experiment 1), printed from the run files so that
// every number there comes from docs/runs by this command:
//   npx tsx scripts/issue27-tables.ts docs/runs/issue27-grpo-lr1e-4.json docs/runs/issue27-grpo-lr3e-5.json [--work] [--step N]
// Each file is one arm (an `ablate --json`). With --work, seeds still running are read too, from
// the checkpoints ablate keeps in docs/runs/work/<file name>/ (their evaluations so far; marked
// "in progress"). The equal-steps comparison is at the last step both arms evaluated, or at step N
// with --step N (a design's named step; an error unless both arms evaluated it). Statistics as §11 fixes them: pass@k per problem from the kept counts, changes
// and differences paired by problem (src/metrics/bands.ts), the claim rule of isEffect (beyond two
// standard errors pooled, the same sign in at least two seeds); entropy and maj@k across seeds.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { scriptArgs } from './args';
import { readSweepText, type SweepEval } from '../src/explore/format';
import { isEffect, meanSe, pairedDifference, passPerProblem, type PairedDifference, type ProblemCountsEval } from '../src/metrics/bands';
import { seedRunId, workStore } from '../src/cli/ablate_resume';

interface Seed {
  seed: number;
  /** evaluations by step */
  evals: Map<number, SweepEval>;
  /** cumulative generated tokens after each step (step 0: 0) */
  tokens: Map<number, number>;
  inProgress: boolean;
  /** the step of its last evaluation, where the arm's seeds end at different steps (evals and tokens hold it under END too) */
  endStep?: number;
}
interface Arm {
  name: string;
  seeds: Seed[];
}

const KS_TABLE = [1, 2, 4, 8, 16, 32, 64];
const KS_CURVE = [1, 8, 32, 64];

function seedOf(seed: number, evals: readonly SweepEval[], steps: readonly number[], tokens: readonly (number | null)[], inProgress: boolean): Seed {
  const t = new Map<number, number>([[0, 0]]);
  steps.forEach((s, i) => t.set(s, tokens[i] ?? NaN));
  return { seed, evals: new Map(evals.map((e) => [e.step, e])), tokens: t, inProgress };
}

async function readArm(file: string, withWork: boolean): Promise<Arm> {
  const name = basename(file, '.json');
  const seeds: Seed[] = [];
  let seedList: number[] = [];
  if (existsSync(file)) {
    const ab = readSweepText(file, readFileSync(file, 'utf8')).arms[0].ablation;
    for (const r of ab.results) seeds.push(seedOf(r.seed, r.evals ?? [r.start, r.end], r.series?.step ?? [], r.series?.tokens ?? [], false));
    seedList = /--seeds ([\d,]+)/.exec(ab.command ?? '')?.[1].split(',').map(Number) ?? [];
  }
  const work = join('docs', 'runs', 'work', name);
  if (withWork && existsSync(work)) {
    const store = workStore(work);
    for (const info of await store.list()) {
      const seed = Number(/^ablate-(\d+)$/.exec(info.runId)?.[1]);
      if (!Number.isInteger(seed) || seeds.some((s) => s.seed === seed) || (seedList.length && !seedList.includes(seed))) continue;
      const c = await store.load(seedRunId(seed));
      if (!c) continue;
      let sum = 0;
      const steps = c.history.steps.filter((e) => e.step <= c.step);
      const toks = steps.map((e) => (sum += e.metrics['tokens/generated'] ?? 0));
      seeds.push(seedOf(seed, c.history.evals.filter((e) => e.step <= c.step) as SweepEval[], steps.map((e) => e.step), toks, true));
    }
  }
  seeds.sort((a, b) => a.seed - b.seed);
  // seeds run to a token budget end at different steps: their ends are compared as one point, "end"
  const done = seeds.filter((s) => !s.inProgress);
  const lastOf = (s: Seed) => Math.max(...s.evals.keys());
  if (new Set(done.map(lastOf)).size > 1) {
    for (const s of done) {
      const last = lastOf(s);
      s.evals.set(END, s.evals.get(last) as SweepEval);
      s.tokens.set(END, s.tokens.get(last) ?? NaN);
      s.endStep = last;
    }
  }
  return { name, seeds };
}

/** The step key of a seed's last evaluation where an arm's seeds end at different steps (a token budget). */
const END = -1;
/** A step as the tables name it. */
const label = (arm: Arm, step: number) => (step === END ? `end (step ${arm.seeds.filter((s) => s.endStep !== undefined).map((s) => s.endStep).join(', ')})` : `step ${step}`);
/** Steps in table order: the shared end after every numbered step. */
const inOrder = (steps: Iterable<number>) => [...steps].sort((a, b) => (a === END ? 1 : b === END ? -1 : a - b));

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const pm = (m: number, se: number) => `${f3(m)} ± ${f3(se)}`;
const sign = (x: number) => (x > 0 ? '+' : x < 0 ? '−' : '0');
const counts = (e: SweepEval): ProblemCountsEval => ({ n: e.n as number, correct: e.correct as number[] });
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const head = (cells: string[]) => [row(cells), row(cells.map(() => '---'))].join('\n');

/** A paired difference as a cell: pooled mean ± s.e., each seed's sign, and whether the claim rule holds. */
/** pairedDifference, NaN where k is past the samples drawn. */
function paired(a: readonly ProblemCountsEval[], b: readonly ProblemCountsEval[], k: number): PairedDifference {
  if ([...a, ...b].some((e) => k > e.n)) return { mean: NaN, se: NaN, problems: 0, perSeed: [], withinTwoSe: true };
  return pairedDifference(a, b, k);
}

function diffCell(d: PairedDifference): string {
  if (!Number.isFinite(d.mean)) return '–';
  const verdict = isEffect(d) ? (d.mean > 0 ? ' **up**' : ' **down**') : '';
  return `${pm(d.mean, d.se)} (${d.perSeed.map(sign).join('')})${verdict}`;
}

/** The seeds of an arm that evaluated at `step` (with per-problem counts). */
const at = (arm: Arm, step: number) => arm.seeds.filter((s) => s.evals.get(step)?.correct && s.evals.has(0));
const meanTokens = (seeds: readonly Seed[], step: number) => meanSe(seeds.map((s) => s.tokens.get(step))).mean;

/** An evaluation figure (entropy, maj@k) across seeds, and its change from step 0 per seed. */
function acrossSeeds(seeds: readonly Seed[], step: number, get: (e: SweepEval) => number | null | undefined): { level: string; change: string } {
  const lv = meanSe(seeds.map((s) => get(s.evals.get(step) as SweepEval)));
  const ch = seeds.map((s) => (get(s.evals.get(step) as SweepEval) ?? NaN) - (get(s.evals.get(0) as SweepEval) ?? NaN));
  const c = meanSe(ch);
  return { level: pm(lv.mean, lv.se), change: `${pm(c.mean, c.se)} (${ch.map(sign).join('')})` };
}

function curveTable(arm: Arm): string {
  const steps = inOrder(new Set(arm.seeds.flatMap((s) => [...s.evals.keys()])));
  const lines = [head(['step', 'seeds', 'generated tokens (mean)', 'held-out entropy', 'entropy change', ...KS_CURVE.map((k) => `pass@${k}`), ...KS_CURVE.map((k) => `pass@${k} change (paired)`)])];
  for (const step of steps) {
    const seeds = at(arm, step);
    if (!seeds.length) continue;
    const ent = acrossSeeds(seeds, step, (e) => e.meanEntropy);
    const level = KS_CURVE.map((k) => f3(meanSe(seeds.map((s) => passOf(s, step, k))).mean));
    const change = KS_CURVE.map((k) => (step === 0 ? '0' : diffCell(paired(seeds.map((s) => counts(s.evals.get(step) as SweepEval)), seeds.map((s) => counts(s.evals.get(0) as SweepEval)), k))));
    lines.push(row([step === END ? label(arm, step) : step, `${seeds.length}${seeds.some((s) => s.inProgress) ? ` (${seeds.filter((s) => s.inProgress).length} in progress)` : ''}`, Math.round(meanTokens(seeds, step)), ent.level, step === 0 ? '0' : ent.change, ...level, ...change]));
  }
  return lines.join('\n');
}

/** pass@k for k = 1 … 64 and maj@k at one step against step 0. */
function endTable(arm: Arm, step: number): string {
  const seeds = at(arm, step);
  if (!seeds.length) return `(no seed of ${arm.name} has reached ${label(arm, step)})`;
  const lines = [head(['k', 'pass@k step 0', `pass@k ${label(arm, step)}`, 'change (paired by problem; seeds’ signs)', 'maj@k step 0', `maj@k ${label(arm, step)}`, 'maj@k change (across seeds)'])];
  for (const k of KS_TABLE) {
    const p = (st: number) => f3(meanSe(seeds.map((s) => passOf(s, st, k))).mean);
    const d = paired(seeds.map((s) => counts(s.evals.get(step) as SweepEval)), seeds.map((s) => counts(s.evals.get(0) as SweepEval)), k);
    const maj = acrossSeeds(seeds, step, (e) => e.majAtK?.[String(k)]);
    const maj0 = meanSe(seeds.map((s) => (s.evals.get(0) as SweepEval).majAtK?.[String(k)]));
    lines.push(row([k, p(0), p(step), diffCell(d), f3(maj0.mean), maj.level, maj.change]));
  }
  return lines.join('\n');
}

/** A seed's pass@k at a step: the mean over problems of the unbiased estimator from the kept counts (any k ≤ n). */
function passOf(s: Seed, step: number, k: number): number {
  if (k > ((s.evals.get(step) as SweepEval).n ?? 0)) return NaN;
  const per = passPerProblem(counts(s.evals.get(step) as SweepEval), k);
  return per.reduce((x, y) => x + y, 0) / per.length;
}

/** Arm a − arm b at equal steps (the last step both reached, or `atStep`) and at equal generated tokens. */
function armTable(arm1: Arm, arm2: Arm, atStep?: number): string {
  // the seeds both arms have, so each seed pair shares its seed (and its step-0 draw)
  const both = arm1.seeds.filter((s) => arm2.seeds.some((t) => t.seed === s.seed)).map((s) => s.seed);
  if (!both.length) return '(the arms share no seed yet)';
  const a = { ...arm1, seeds: arm1.seeds.filter((s) => both.includes(s.seed)) }, b = { ...arm2, seeds: arm2.seeds.filter((s) => both.includes(s.seed)) };
  const common = (arm: Arm) => [...new Set(arm.seeds.flatMap((s) => [...s.evals.keys()]))].filter((st) => at(arm, st).length === arm.seeds.length);
  const stepsA = common(a), stepsB = common(b);
  if (atStep !== undefined && !(stepsA.includes(atStep) && stepsB.includes(atStep))) throw new Error(`--step ${atStep}: not evaluated in every seed of both arms (${a.name}: ${inOrder(stepsA).join(', ')}; ${b.name}: ${inOrder(stepsB).join(', ')})`);
  const equal = atStep ?? Math.max(...stepsA.filter((s) => s !== END && stepsB.includes(s)));
  // each arm's last point: its seeds' shared end where they end at different steps
  const lastOf = (steps: number[]) => (steps.includes(END) ? END : Math.max(...steps));
  const endA = lastOf(stepsA), endB = lastOf(stepsB);
  const tokensT = Math.min(meanTokens(a.seeds, endA), meanTokens(b.seeds, endB));
  // the point with the most tokens at or under the smaller total
  const lastUnder = (arm: Arm, steps: number[]) => steps.filter((s) => meanTokens(arm.seeds, s) <= tokensT).reduce((best, st) => (meanTokens(arm.seeds, st) > meanTokens(arm.seeds, best) ? st : best));
  const tA = lastUnder(a, stepsA), tB = lastUnder(b, stepsB);
  // §11's rule takes the last evaluation at or under the smaller total, so on a coarse grid it can
  // pass over one a few tokens above it: the evaluation nearest that total is shown beside it then
  const nearest = (arm: Arm, steps: number[]) => steps.reduce((best, st) => (Math.abs(meanTokens(arm.seeds, st) - tokensT) < Math.abs(meanTokens(arm.seeds, best) - tokensT) ? st : best));
  const nA = nearest(a, stepsA), nB = nearest(b, stepsB);
  const withNearest = nA !== tA || nB !== tB;
  const ev = (arm: Arm, st: number) => arm.seeds.map((s) => counts(s.evals.get(st) as SweepEval));
  const at2 = (sa: number, sb: number) => `${label(a, sa)} (${Math.round(meanTokens(a.seeds, sa))} tokens) vs ${label(b, sb)} (${Math.round(meanTokens(b.seeds, sb))} tokens)`;
  const lines = [
    `${a.name} − ${b.name}, seeds ${both.join(', ')}; equal steps: step ${equal} (${Math.round(meanTokens(a.seeds, equal))} vs ${Math.round(meanTokens(b.seeds, equal))} tokens); equal tokens: ${at2(tA, tB)}${withNearest ? `; nearest tokens: ${at2(nA, nB)}` : ''}`,
    '',
    head(['k', 'equal steps: difference (paired by problem; seeds’ signs)', 'equal tokens: difference', ...(withNearest ? ['nearest tokens: difference'] : [])]),
  ];
  for (const k of KS_TABLE) lines.push(row([`pass@${k}`, diffCell(paired(ev(a, equal), ev(b, equal), k)), diffCell(paired(ev(a, tA), ev(b, tB), k)), ...(withNearest ? [diffCell(paired(ev(a, nA), ev(b, nB), k))] : [])]));
  const ent = (st: number, arm: Arm) => arm.seeds.map((s) => (s.evals.get(st) as SweepEval).meanEntropy ?? NaN);
  const entDiff = (sa: number, sb: number) => {
    const d = ent(sa, a).map((x, i) => x - (ent(sb, b)[i] ?? NaN));
    const m = meanSe(d);
    return `${pm(m.mean, m.se)} (${d.map(sign).join('')}; across seeds)`;
  };
  lines.push(row(['held-out entropy', entDiff(equal, equal), entDiff(tA, tB), ...(withNearest ? [entDiff(nA, nB)] : [])]));
  return lines.join('\n');
}

async function main(): Promise<void> {
  const USAGE = 'usage: npx tsx scripts/issue27-tables.ts ARM.json … [--work] [--step N]';
  const { flags, given, positionals: files } = scriptArgs({
    work: { type: 'boolean', default: false, help: 'read unfinished seeds from their work folders too' },
    step: { type: 'number', help: 'compare the two arms at this step as well' },
  }, USAGE);
  const withWork = flags.work;
  const atStep = given.has('step') ? flags.step : undefined;
  if (atStep !== undefined && (!Number.isInteger(atStep) || atStep < 0)) throw new Error(`--step: expected a step number, got ${atStep}`);
  if (!files.length) throw new Error(USAGE);
  if (atStep !== undefined && files.length !== 2) throw new Error('--step compares two arms: give two files');
  const arms = await Promise.all(files.map((f) => readArm(f, withWork)));
  for (const arm of arms) {
    const done = arm.seeds.filter((s) => !s.inProgress).map((s) => s.seed);
    const running = arm.seeds.filter((s) => s.inProgress).map((s) => `${s.seed} (to step ${Math.max(...s.evals.keys())})`);
    process.stdout.write(`### ${arm.name}: seeds finished ${done.join(', ') || 'none'}${running.length ? `; in progress ${running.join(', ')}` : ''}\n\nCurves (vs step 0, equal steps):\n\n${curveTable(arm)}\n\n`);
    const keys = arm.seeds.flatMap((s) => [...s.evals.keys()]);
    const last = keys.includes(END) ? END : Math.max(...keys);
    if (last === END || (Number.isFinite(last) && last > 0)) process.stdout.write(`At ${label(arm, last)} against step 0:\n\n${endTable(arm, last)}\n\n`);
  }
  if (arms.length === 2 && arms.every((a) => a.seeds.length > 0)) process.stdout.write(`### Between the arms\n\n${armTable(arms[0], arms[1], atStep)}\n`);
}

main().catch((e) => {
  process.stderr.write(`issue27-tables: ${(e as Error).message}\n`);
  process.exit(1);
});
