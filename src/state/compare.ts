// Run comparison, free of React: which runs overlay on the charts, how each is labelled (its
// set-up's difference from the first selected run), and, when the selected runs differ only by
// seed, their mean with a min–max band at every step all of them have reached.
import type { BaseLoopConfig } from '../loops/base_config';
import { formatValue, loopLabel } from './launcher';

/** What a run was started with: enough to say how two runs differ. */
export interface RunSetup {
  loop: string;
  policy: string;
  config: BaseLoopConfig;
}

function flatten(s: RunSetup): Record<string, unknown> {
  const { rl, ...rest } = s.config;
  return { loop: s.loop, policy: s.policy, ...rest, ...Object.fromEntries(Object.entries(rl).map(([k, v]) => [`rl.${k}`, v])) };
}

/** The keys (`seed`, `rl.beta`, `policy`…) whose values differ between two set-ups. */
export function differingKeys(base: RunSetup, other: RunSetup): string[] {
  const a = flatten(other);
  const b = flatten(base);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !Object.is(a[k], b[k]));
}

/**
 * "seed 4, rl.beta 0.04": `other`'s values where it differs from `base`; "same set-up" if none.
 * A run of another loop is named by its loop (and its policy when that differs too): their
 * configs have different fields, so a field-by-field difference would say nothing.
 */
export function configDiffLabel(base: RunSetup, other: RunSetup): string {
  if (base.loop !== other.loop) return `${loopLabel(other.loop)}${base.policy !== other.policy ? ` · ${other.policy}` : ''}`;
  const a = flatten(other);
  const keys = differingKeys(base, other);
  return keys.length === 0 ? 'same set-up' : keys.map((k) => `${k} ${formatValue(a[k])}`).join(', ');
}

/** True when two or more set-ups are identical but for their seeds (so a mean over seeds means something). */
export function onlySeedsDiffer(setups: readonly RunSetup[]): boolean {
  if (setups.length < 2) return false;
  const seeds = new Set(setups.map((s) => s.config.seed));
  return seeds.size === setups.length && setups.every((s) => differingKeys(setups[0], s).every((k) => k === 'seed'));
}

export interface BandPoint {
  x: number;
  mean: number;
  lo: number;
  hi: number;
}

/**
 * Mean, min and max over series at each x that every series reports with a finite value; each
 * series is parallel arrays of x and y.
 */
export function meanBand(series: readonly { xs: readonly number[]; ys: readonly number[] }[]): BandPoint[] {
  if (series.length === 0) return [];
  const maps = series.map((s) => {
    const m = new Map<number, number>();
    s.xs.forEach((x, i) => Number.isFinite(s.ys[i]) && m.set(x, s.ys[i]));
    return m;
  });
  const xs = [...maps[0].keys()].filter((x) => maps.every((m) => m.has(x))).sort((a, b) => a - b);
  return xs.map((x) => {
    const ys = maps.map((m) => m.get(x)!);
    return { x, mean: ys.reduce((a, y) => a + y, 0) / ys.length, lo: Math.min(...ys), hi: Math.max(...ys) };
  });
}

/** A run as the charts show it beside others. */
export interface ShownRun<R> {
  run: R;
  /** legend text: the base run's label, or the difference from the base */
  name: string;
}

/**
 * The runs the charts draw: the ticked runs when two or more are ticked, in the order they were
 * ticked (the first ticked is the one the others are labelled against, named with its loop),
 * else the selected run alone. `liveChanges` says what was
 * changed in a run while it trained ("lr → 5e-5 at step 12"; null: nothing): a run's set-up is
 * then more than its config, so its label says so and a seed mean is not drawn. `seeds`: the
 * ticked runs differ only by seed, so the charts add their mean and band.
 */
export function shownRuns<R extends RunSetup & { id: string; index: number; label: string }>(
  order: readonly string[], byId: Readonly<Record<string, R>>, compared: readonly string[], selected: string | null,
  liveChanges: (r: R) => string | null = () => null,
): { runs: ShownRun<R>[]; seeds: boolean } {
  const ticked = compared.filter((id) => order.includes(id) && byId[id]).map((id) => byId[id]);
  if (ticked.length < 2) return { runs: selected && byId[selected] ? [{ run: byId[selected], name: byId[selected].label }] : [], seeds: false };
  const base = ticked[0];
  const live = ticked.map(liveChanges);
  const name = (r: R, i: number): string => {
    const own = i === 0 ? `${r.label} · first ticked` : `#${r.index}: ${configDiffLabel(base, r)}`;
    return live[i] ? `${own}; changed live: ${live[i]}` : own;
  };
  return {
    runs: ticked.map((r, i) => ({ run: r, name: name(r, i) })),
    seeds: onlySeedsDiffer(ticked) && live.every((l) => l === null),
  };
}

/**
 * The shown runs whose lines are drawn: all of them but those a click on the compare legend hid
 * (the axes rescale to these); every one hidden keeps them all, so the axes do not collapse.
 */
export function visibleRuns<T extends { run: { id: string } }>(shown: { runs: readonly T[] }, hidden: readonly string[]): readonly T[] {
  if (shown.runs.length < 2) return shown.runs;
  const visible = shown.runs.filter((r) => !hidden.includes(r.run.id));
  return visible.length > 0 ? visible : shown.runs;
}
