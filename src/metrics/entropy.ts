// Entropy, response-length and clip metrics of a batch of trajectories (LOOPS.md §0): the
// sampling entropy is a token mean over response tokens (each loop passes the trajectories of
// the role it reports: `entropy/solve`, `entropy/all`, per role); lengths and truncation follow
// veRL's response_length/* and the PPO clip ratios keep TRL's names. Pure and browser-safe.

/** Mean per-token sampling entropy over every response token of `trajs` (0 for none): each loop's `entropy/*`. */
export function meanEntropy(trajs: readonly { readonly entropy: ArrayLike<number> }[]): number {
  let s = 0, n = 0;
  for (const t of trajs) for (let i = 0; i < t.entropy.length; i++) (s += t.entropy[i]), n++;
  return n ? s / n : 0;
}

export interface LengthStats {
  mean: number;
  std: number;
  min: number;
  max: number;
  /** fraction of responses cut at the token limit without an end token */
  clipRatio: number;
  count: number;
}

/** Response lengths in tokens, and the fraction truncated (veRL's response_length/clip_ratio). */
export function responseLengthStats(lengths: ArrayLike<number>, truncated?: ArrayLike<boolean>): LengthStats {
  const count = lengths.length;
  if (count === 0) throw new RangeError('responseLengthStats: no responses');
  if (truncated && truncated.length !== count) throw new RangeError(`responseLengthStats: ${count} lengths but ${truncated.length} truncation flags`);
  let sum = 0, min = Infinity, max = -Infinity, cut = 0;
  for (let i = 0; i < count; i++) {
    sum += lengths[i];
    min = Math.min(min, lengths[i]);
    max = Math.max(max, lengths[i]);
    if (truncated?.[i]) cut++;
  }
  const mean = sum / count;
  let sq = 0;
  for (let i = 0; i < count; i++) sq += (lengths[i] - mean) ** 2;
  return { mean, std: Math.sqrt(sq / count), min, max, clipRatio: cut / count, count };
}

/** The clip ratios of one loss evaluation, as pgMetrics (src/rl/hyper.ts) reports them. */
export interface ClipStats {
  tokens: number;
  'clip_ratio/low_mean': number;
  'clip_ratio/high_mean': number;
  'clip_ratio/dual_mean': number;
}

export interface ClipSummary extends ClipStats {
  'clip_ratio/region_mean': number;
}

/**
 * Clip ratios over several mini-batches or epochs: each ratio is a token mean, so the parts
 * are weighted by their token counts (a plain mean of ratios would over-weight short batches).
 */
export function combineClipStats(parts: readonly ClipStats[]): ClipSummary {
  let tokens = 0, low = 0, high = 0, dual = 0;
  for (const p of parts) {
    tokens += p.tokens;
    low += p.tokens * p['clip_ratio/low_mean'];
    high += p.tokens * p['clip_ratio/high_mean'];
    dual += p.tokens * p['clip_ratio/dual_mean'];
  }
  const t = Math.max(tokens, 1);
  return {
    tokens,
    'clip_ratio/low_mean': low / t,
    'clip_ratio/high_mean': high / t,
    'clip_ratio/dual_mean': dual / t,
    'clip_ratio/region_mean': (low + high) / t,
  };
}
