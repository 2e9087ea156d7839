// Entropy, response-length and clip metrics of a batch of trajectories (LOOPS.md §0): the
// sampling entropy is a token mean over response tokens, reported overall, per role and per
// data type; lengths and truncation follow veRL's response_length/* and the PPO clip ratios
// keep TRL's names. Pure and browser-safe.

/** A token mean and the number of tokens behind it (so means can be combined). */
export interface TokenMean {
  mean: number;
  tokens: number;
}

/** One response: its per-token sampling entropies, and which tokens count (all when no mask). */
export interface EntropyRecord {
  role: string;
  dataType?: string;
  entropy: ArrayLike<number>;
  /** per response token: weight 1 counts, 0 does not; omitted = every token counts */
  mask?: ArrayLike<number>;
}

export interface EntropyReport {
  all: TokenMean;
  byRole: Record<string, TokenMean>;
  /** only records that carry a dataType */
  byDataType: Record<string, TokenMean>;
}

class Sums {
  private readonly s = new Map<string, { sum: number; tokens: number }>();
  add(key: string, sum: number, tokens: number): void {
    const cur = this.s.get(key) ?? { sum: 0, tokens: 0 };
    cur.sum += sum;
    cur.tokens += tokens;
    this.s.set(key, cur);
  }
  means(): Record<string, TokenMean> {
    const out: Record<string, TokenMean> = {};
    for (const [k, v] of [...this.s.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[k] = tokenMean(v.sum, v.tokens);
    return out;
  }
}

/** A mean of no tokens is NaN: a chart shows a gap rather than a false zero. */
const tokenMean = (sum: number, tokens: number): TokenMean => ({ mean: tokens > 0 ? sum / tokens : NaN, tokens });

function maskedSum(values: ArrayLike<number>, mask: ArrayLike<number> | undefined, from = 0, to = values.length): { sum: number; tokens: number } {
  let sum = 0;
  let tokens = 0;
  for (let i = from; i < to; i++) {
    const m = mask ? mask[i] : 1;
    sum += m * values[i];
    tokens += m;
  }
  return { sum, tokens };
}

function report(parts: readonly { role: string; dataType?: string; sum: number; tokens: number }[]): EntropyReport {
  const byRole = new Sums();
  const byType = new Sums();
  let sum = 0;
  let tokens = 0;
  for (const p of parts) {
    byRole.add(p.role, p.sum, p.tokens);
    if (p.dataType !== undefined) byType.add(p.dataType, p.sum, p.tokens);
    sum += p.sum;
    tokens += p.tokens;
  }
  return { all: tokenMean(sum, tokens), byRole: byRole.means(), byDataType: byType.means() };
}

/** Token-mean entropy of responses, overall, per role and per data type. */
export function entropyByGroup(records: readonly EntropyRecord[]): EntropyReport {
  return report(
    records.map((r) => {
      if (r.mask && r.mask.length !== r.entropy.length) throw new RangeError(`entropyByGroup: ${r.entropy.length} entropies but ${r.mask.length} mask entries`);
      return { role: r.role, dataType: r.dataType, ...maskedSum(r.entropy, r.mask) };
    }),
  );
}

/**
 * The same from a packed [B, T] batch (src/rl/trajectory.ts): row b of `entropy` and `mask`
 * belongs to rows[b]; rows past rows.length are padding and ignored.
 */
export function entropyByGroupPacked(
  entropy: ArrayLike<number>, // (B, T)
  mask: ArrayLike<number>, // (B, T)
  T: number,
  rows: readonly { role: string; dataType?: string }[],
): EntropyReport {
  if (entropy.length !== mask.length) throw new RangeError(`entropyByGroupPacked: entropy has ${entropy.length} entries, mask ${mask.length}`);
  if (rows.length * T > entropy.length) throw new RangeError(`entropyByGroupPacked: ${rows.length} rows of ${T} do not fit ${entropy.length} entries`);
  return report(rows.map((r, b) => ({ role: r.role, dataType: r.dataType, ...maskedSum(entropy, mask, b * T, (b + 1) * T) })));
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
