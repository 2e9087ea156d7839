// The run facts docs/results.md quotes beside its tables (time a seed took, how much of it was
// training steps and how much evaluation, generated tokens a step, a step metric's mean over the
// first and last steps), printed from the run files so that those numbers come from docs/runs too:
//   npx tsx scripts/run-facts.ts docs/runs/issue27-grpo-lr1e-4.json … [--window 30] [--metric reward,…]
// Each file is an `ablate --json`. A seed's `seconds` is its wall time (steps, evaluations and
// set-up; carried over a `--resume`, so a seed continued after a kill counts only time it ran); its steps' time is the sum of the per-step `series.seconds`; the rest is counted as
// evaluation (and set-up) and divided by the number of evaluations for a per-evaluation figure.
// What a loop measures inside its step (OpenSIR's coverage probe, TTSP's target evaluations) is in
// the step's seconds. A metric's first/last N are its first/last N reported values (a metric
// reported on some steps only spans more than N steps).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { scriptArgs } from './args';
import { readSweepText, type SweepSeed } from '../src/explore/format';

const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toLocaleString('en-GB', { minimumFractionDigits: d, maximumFractionDigits: d }) : '—');
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

function metricWindows(r: SweepSeed, name: string, window: number): string {
  const ys = r.series?.metrics[name];
  if (!ys) return `${name}: not recorded`;
  const vals = ys.filter((y): y is number => typeof y === 'number' && Number.isFinite(y));
  return `${name} first ${window} reported ${fmt(mean(vals.slice(0, window)), 3)}, last ${window} reported ${fmt(mean(vals.slice(-window)), 3)}, run mean ${fmt(mean(vals), 3)} (${vals.length} of ${ys.length} steps reported it)`;
}

function main(): void {
  const USAGE = 'usage: npx tsx scripts/run-facts.ts RUN.json … [--window N] [--metric a,b]';
  const { flags, positionals: files } = scriptArgs({
    window: { type: 'number', default: 30, help: 'steps averaged at the start and the end' },
    metric: { type: 'string', default: 'reward', help: 'step metrics, comma-separated' },
  }, USAGE);
  const window = flags.window;
  if (!Number.isInteger(window) || window < 1) throw new Error('--window: expected a whole number of steps ≥ 1');
  const metrics = flags.metric.split(',').filter(Boolean);
  if (!files.length) throw new Error(USAGE);
  for (const file of files) {
    const sweep = readSweepText(file, readFileSync(file, 'utf8'));
    for (const arm of sweep.arms) {
      process.stdout.write(`### ${basename(file, '.json')}${sweep.arms.length > 1 ? ` (${arm.label})` : ''}${arm.ablation.partial ? ' (partial)' : ''}\n\n`);
      process.stdout.write('| seed | steps | generated tokens | tokens a step | seconds | steps’ seconds (a step) | evaluations | other seconds (an evaluation) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n');
      for (const r of arm.ablation.results) {
        const stepSec = r.series ? r.series.seconds.reduce((a: number, b) => a + (b ?? 0), 0) : NaN;
        // files converted from before step curves hold the start and end evaluations only
        const evals = r.evals?.length ?? 2;
        const other = r.seconds - stepSec;
        process.stdout.write(`| ${r.seed} | ${r.steps} | ${fmt(r.generatedTokens)} | ${fmt(r.generatedTokens / r.steps)} | ${fmt(r.seconds)} | ${fmt(stepSec)} (${fmt(stepSec / r.steps, 1)}) | ${evals} | ${fmt(other)} (${evals ? fmt(other / evals) : '—'}) |\n`);
      }
      process.stdout.write('\n');
      for (const r of arm.ablation.results) process.stdout.write(`seed ${r.seed}: ${metrics.map((m) => metricWindows(r, m, window)).join('; ')}\n`);
      process.stdout.write('\n');
    }
  }
}

try {
  main();
} catch (e) {
  process.stderr.write(`run-facts: ${(e as Error).message}\n`);
  process.exit(1);
}
