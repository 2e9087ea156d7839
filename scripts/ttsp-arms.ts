// TTSP's arms on a target, against its control, from the run files (docs/results.md §17): for each
// seed the adapted solver's target mean@n at its last step, the frozen base's (same sampling seed),
// the end − base, the majority vote, the steps and generated tokens it took, the held-out pass@1
// start → end; then each arm − the control at the end, at the arm's target evaluation nearest the
// control's generated tokens (equal tokens) and at the last step both evaluated the target (equal
// steps), seed for seed, with mean ± standard error
// over the seeds and the claim rule (beyond two standard errors, the same sign in two seeds or
// more); pooled over the targets, the seeds of every target as the units, where an arm's position
// is filled in more than one target.
//   npx tsx scripts/ttsp-arms.ts --control GENERIC_T1.json ARM_T1.json … [--control GENERIC_T2.json ARM_T2.json …]
// Each `--control` starts a target: its file is the control (the generic arm), the files after it
// the arms on the same target; each file an `ablate --json` (seeds merged by `--from-json`).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readSweepText, type SweepSeed } from '../src/explore/format';
import { isEffect, meanSe, seedDifference } from '../src/metrics/bands';
import { atControlTokens, curve, partner, targetDifferences, targetReport as report } from './ttsp-seeds';

interface Run { file: string; target: string; seeds: SweepSeed[] }
interface Group { control: Run; arms: Run[] }

const f3 = (x: number | null) => (x !== null && Number.isFinite(x) ? x.toFixed(3) : '—');
const pm = (m: number, se: number) => `${m >= 0 ? '+' : ''}${f3(m)} ± ${f3(se)}`;
const sign = (v: number) => (v > 0 ? '+' : v < 0 ? '−' : '0');

function read(file: string): Run {
  const arm = readSweepText(file, readFileSync(file, 'utf8')).arms;
  if (arm.length !== 1) throw new Error(`${file}: expected one arm (an ablate --json), found ${arm.length}`);
  const a = arm[0].ablation;
  if (a.loop !== 'ttsp') throw new Error(`${file}: a ${a.loop} run, not ttsp`);
  return { file, target: String(a.config.target), seeds: [...a.results].sort((x, y) => x.seed - y.seed) };
}

/** The last step at which every seed of both runs evaluated the target (equal steps), or null. */
function commonStep(a: Run, b: Run): number | null {
  const sets = [...a.seeds, ...b.seeds].map((r) => new Set(curve(r).keys()));
  const common = [...sets[0]].filter((st) => sets.every((x) => x.has(st)));
  return common.length ? Math.max(...common) : null;
}

/** The target mean at the end, less `of`'s (another arm's, or this seed's frozen base when `of` is null), seed for seed. */
const differences = (arm: Run, of: Run | null): number[] => targetDifferences(arm.seeds, of?.seeds ?? null, of ? basename(of.file) : undefined);

function verdict(perSeed: readonly number[]): string {
  const d = seedDifference(perSeed);
  return `${pm(d.mean, d.se)} (${perSeed.map(sign).join('')}; ${isEffect(d) ? 'an effect by the claim rule' : 'no effect by the claim rule'})`;
}

function table(run: Run): string {
  const rows = run.seeds.map((r) => {
    const heldStart = r.start.passAtK['1'];
    const heldEnd = r.end.passAtK['1'];
    return `| ${r.seed} | ${r.steps} | ${r.generatedTokens} | ${f3(report(r, 'target/mean@last'))} | ${f3(report(r, 'target/base_mean@last'))} | ${pm(report(r, 'target/mean@last') - report(r, 'target/base_mean@last'), 0).replace(' ± 0.000', '')} | ${report(r, 'target/maj@last')} | ${[...curve(r)].map(([st, y]) => `${st}: ${f3(y)}`).join(', ')} | ${f3(heldStart)} → ${f3(heldEnd)} |`;
  });
  const m = (k: string) => meanSe(run.seeds.map((r) => report(r, k)));
  const st = meanSe(run.seeds.map((r) => r.steps));
  const tok = meanSe(run.seeds.map((r) => r.generatedTokens));
  const end = m('target/mean@last');
  const base = m('target/base_mean@last');
  return [
    `${basename(run.file)} (target ${run.target}, ${run.seeds.length} seeds)`,
    '| seed | steps | generated tokens | target mean@n end | frozen base | end − base | maj end | target mean@n by step | held-out pass@1 start → end |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    `| mean ± s.e. | ${f3(st.mean)} | ${Math.round(tok.mean)} ± ${Math.round(tok.se)} | ${pm(end.mean, end.se).replace('+', '')} | ${pm(base.mean, base.se).replace('+', '')} | ${verdict(differences(run, null))} | | | ${f3(meanSe(run.seeds.map((r) => r.start.passAtK['1'])).mean)} → ${f3(meanSe(run.seeds.map((r) => r.end.passAtK['1'])).mean)} |`,
  ].join('\n');
}

function main(): void {
  const args = process.argv.slice(2);
  const groups: Group[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--control') {
      const f = args[++i];
      if (f === undefined || f.startsWith('--')) throw new Error('--control: expected a run file');
      groups.push({ control: read(f), arms: [] });
    } else if (args[i].startsWith('--')) {
      throw new Error(`${args[i]}: unknown option`);
    } else {
      const g = groups.at(-1);
      if (!g) throw new Error(`${args[i]}: an arm before any --control`);
      g.arms.push(read(args[i]));
    }
  }
  if (!groups.length || groups.some((g) => !g.arms.length)) throw new Error('usage: npx tsx scripts/ttsp-arms.ts --control GENERIC.json ARM.json … [--control GENERIC2.json ARM2.json …]');
  const out: string[] = [];
  for (const g of groups) {
    for (const a of g.arms) if (a.target !== g.control.target) throw new Error(`${a.file}: target ${a.target}, its control ${g.control.file} ${g.control.target}`);
    out.push(`## target ${g.control.target}`, '', table(g.control), '');
    for (const a of g.arms) {
      const d = differences(a, g.control);
      out.push(table(a), '', `${basename(a.file)} − ${basename(g.control.file)} at the end (equal tokens where the control was stopped at this arm's), seeds ${a.seeds.map((r) => r.seed).join(', ')}: ${d.map((x) => pm(x, 0).replace(' ± 0.000', '')).join(', ')}; ${verdict(d)}`);
      const near = atControlTokens(a.seeds, g.control.seeds, basename(g.control.file));
      out.push(`at the control's tokens (each seed's target evaluation nearest the control seed's ${near.map((n) => n.control).join(', ')} generated tokens: step ${near.map((n) => `${n.step} at ${n.tokens}`).join(', ')}): ${near.map((n) => pm(n.d, 0).replace(' ± 0.000', '')).join(', ')}; ${verdict(near.map((n) => n.d))}`);
      const st = commonStep(a, g.control);
      if (st === null) out.push('at equal steps: no step at which both evaluated the target in every seed', '');
      else {
        const e = a.seeds.map((r) => (curve(r).get(st) as number) - (curve(partner(r, g.control.seeds, basename(g.control.file))).get(st) as number));
        out.push(`at equal steps (step ${st}, the last both evaluated the target in every seed): ${e.map((x) => pm(x, 0).replace(' ± 0.000', '')).join(', ')}; ${verdict(e)}`, '');
      }
    }
  }
  if (groups.length > 1) {
    out.push(`## pooled over ${groups.length} targets (seeds × targets as the units)`, '');
    const positions = Math.max(...groups.map((g) => g.arms.length));
    for (let p = 0; p < positions; p++) {
      const filled = groups.filter((g) => g.arms[p]);
      if (filled.length < 2) continue;
      const vsControl = filled.flatMap((g) => differences(g.arms[p], g.control));
      const vsBase = filled.flatMap((g) => differences(g.arms[p], null));
      out.push(`arm ${p + 1} (${filled.map((g) => basename(g.arms[p].file)).join(', ')}): − control ${verdict(vsControl)}; − frozen base ${verdict(vsBase)}`);
    }
    out.push(`controls (${groups.map((g) => basename(g.control.file)).join(', ')}): − frozen base ${verdict(groups.flatMap((g) => differences(g.control, null)))}`, '');
  }
  process.stdout.write(out.join('\n'));
}

main();
