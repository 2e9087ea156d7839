// TTSP's per-seed target figures from `ablate --json` run files (docs/results.md §17), shared by
// scripts/ttsp-arms.ts (its tables) and scripts/build-gallery.ts (the gallery's sentences): a seed's
// `--report` figure, its partner seed in another arm, its target curve and the evaluation nearest
// given tokens, and the target's mean@n at the end less another arm's or the frozen base's, or at
// a control's tokens less the control's, seed for seed (judged with seedDifference, src/metrics/bands.ts).
import type { SweepSeed } from '../src/explore/format';

/** A seed's `--report` figure; a run without it was not run with §17's --report. */
export function targetReport(r: SweepSeed, key: string): number {
  const v = r.report?.[key];
  if (typeof v !== 'number') throw new Error(`seed ${r.seed}: its report has no ${key} (run with the §17 --report)`);
  return v;
}

/** `r`'s seed in another arm (`where` names that arm in the error). */
export function partner(r: SweepSeed, of: readonly SweepSeed[], where: string): SweepSeed {
  const c = of.find((x) => x.seed === r.seed);
  if (!c) throw new Error(`seed ${r.seed} has no seed in ${where} to pair with`);
  return c;
}

/**
 * The target's mean@n at each seed's end less its partner's in `of` (both measured against the same
 * frozen base, or it throws: not the same sampling seed), or less the seed's frozen base when `of`
 * is null.
 */
export function targetDifferences(arm: readonly SweepSeed[], of: readonly SweepSeed[] | null, where = 'the other arm'): number[] {
  return arm.map((r) => {
    const end = targetReport(r, 'target/mean@last');
    const base = targetReport(r, 'target/base_mean@last');
    if (of === null) return end - base;
    const c = partner(r, of, where);
    if (targetReport(c, 'target/base_mean@last') !== base) throw new Error(`seed ${r.seed}: the frozen base's target mean differs from ${where}'s: not the same sampling seed`);
    return end - targetReport(c, 'target/mean@last');
  });
}

/** The target's mean@n by step, where the run evaluated it. */
export function curve(r: SweepSeed): Map<number, number> {
  const ys = r.series?.metrics['target/mean'];
  if (!r.series || !ys) throw new Error(`seed ${r.seed}: no target/mean step curve (a run from before the curves were kept)`);
  const out = new Map<number, number>();
  r.series.step.forEach((st, i) => { const y = ys[i]; if (typeof y === 'number') out.set(st, y); });
  return out;
}

/** The target evaluation of `r` whose cumulative generated tokens are nearest `tokens`: its step, tokens and mean@n. */
export function nearestInTokens(r: SweepSeed, tokens: number): { step: number; tokens: number; mean: number } {
  const s = r.series as NonNullable<SweepSeed['series']>;
  let best: { step: number; tokens: number; mean: number } | null = null;
  for (const [step, mean] of curve(r)) {
    const t = s.tokens[s.step.indexOf(step)];
    if (typeof t !== 'number') continue;
    if (best === null || Math.abs(t - tokens) < Math.abs(best.tokens - tokens)) best = { step, tokens: t, mean };
  }
  if (best === null) throw new Error(`seed ${r.seed}: no target evaluation`);
  return best;
}

/**
 * Each seed's target evaluation nearest its partner's (in `control`) generated tokens, and its mean@n
 * there less the partner's at the end: the arm against a control stopped at a token budget, at
 * equal tokens.
 */
export function atControlTokens(arm: readonly SweepSeed[], control: readonly SweepSeed[], where: string): { step: number; tokens: number; control: number; d: number }[] {
  return arm.map((r) => {
    const c = partner(r, control, where);
    const n = nearestInTokens(r, c.generatedTokens);
    return { step: n.step, tokens: n.tokens, control: c.generatedTokens, d: n.mean - targetReport(c, 'target/mean@last') };
  });
}
