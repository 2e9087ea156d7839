// The mean every loop, the RL core and the page's summaries report: a sum from 0, left to right,
// divided by the count. One implementation, so a figure computed in two places is the same to
// the last bit (the same seed gives the same run).

/** The mean; 0 for none (a caller leaves a quantity out when it has nothing to measure). */
export function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length ? s / xs.length : 0;
}

/** The share of true values (0 for none). */
export const rateOf = (xs: readonly boolean[]): number => mean(xs.map((x) => (x ? 1 : 0)));
