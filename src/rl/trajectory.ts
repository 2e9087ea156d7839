// Trajectories (LOOPS.md §0) and their packing into the padded [B, T] batch the model trains on.
//
// A trajectory of P prompt and R response tokens is the sequence s = prompt ++ response. Row b
// of the batch holds tokens[t] = s[t] and targets[t] = s[t + 1]: position t predicts s[t + 1],
// so response token j is the target of position P − 1 + j, and the sequence needs
// P + R − 1 ≤ T positions (its last token is only ever a target). Everything per response
// token (loss mask, old / reference log-probs, advantage) lands on that position.
import type { Role } from '../world/tokenizer';
import type { Aggregation, SeqMeanCount } from './config';

export interface Trajectory {
  role: Role;
  /** free label for metrics (e.g. SvS 'oqa' | 'vps' | 'spa') */
  dataType?: string;
  /** advantages are computed per (role, groupId), never pooled across roles */
  groupId: number;
  promptTokens: ArrayLike<number>;
  responseTokens: ArrayLike<number>;
  /** per response token: 1 = in the loss, 0 = masked (e.g. OpenSIR concept tokens) */
  lossMask: ArrayLike<number>;
  /** per response token: log π_old at sampling */
  oldLogp: ArrayLike<number>;
  /** per response token: entropy of the sampling distribution */
  entropy: ArrayLike<number>;
  reward: number;
  /** one value for the whole response, or one per response token (DATPO blocks) */
  advantage?: number | ArrayLike<number>;
  /** per response token: log π_ref, when a KL penalty is used */
  refLogp?: ArrayLike<number>;
  /** hit maxNewTokens without an end token */
  truncated: boolean;
}

export interface PackOptions {
  /** positions per row */
  T: number;
  /** rows; default = number of trajectories. Rows past them are padding (weight 0). */
  B?: number;
  aggregation: Aggregation;
  /** L_max of constant_norm (the loop's maxNewTokens); required for that mode */
  constantNormTokens?: number | null;
  /** mask truncated responses out of the loss */
  maskTruncated?: boolean;
  /** N of the seq_mean_* modes: every trajectory ('all', default, TRL) or those with a token in the loss ('unmasked', veRL) */
  seqMeanCount?: SeqMeanCount;
  /** token id written at padding positions (never in the loss) */
  padToken?: number;
}

export interface PackedBatch {
  B: number;
  T: number;
  /** trajectories packed (rows 0..nSeq−1); the N of the aggregation */
  nSeq: number;
  tokens: Uint32Array; // (B, T)
  targets: Uint32Array; // (B, T)
  mask: Float32Array; // (B, T) 1 where the target is a response token in the loss
  coef: Float32Array; // (B, T) aggregation weight c_t (0 where mask is 0)
  oldLogp: Float32Array; // (B, T)
  refLogp: Float32Array | null; // (B, T); null when no trajectory carries one
  adv: Float32Array; // (B, T)
  entropy: Float32Array; // (B, T) sampling entropy (metrics)
  /** per row: first position whose target is a response token, and the response length */
  responseStart: Int32Array; // (B)
  responseLength: Int32Array; // (B)
}

/**
 * c_t of each aggregation mode over a [B, T] mask of rows 0..nSeq−1 (see LOOPS.md §0). N of the
 * seq_mean_* modes counts every trajectory, as TRL does; veRL counts only the rows with a token
 * in the loss (`seqMeanCount: 'unmasked'`), which differs when whole responses are masked.
 */
export function aggregationCoefs(mask: ArrayLike<number>, dims: { B: number; T: number }, nSeq: number, mode: Aggregation, lMax?: number | null, seqMeanCount: SeqMeanCount = 'all'): Float64Array {
  const { B, T } = dims;
  const coef = new Float64Array(B * T);
  if (mode === 'constant_norm' && !(typeof lMax === 'number' && lMax >= 1)) {
    throw new Error(`aggregation constant_norm needs L_max: pass constantNormTokens (the loop's maxNewTokens), got ${lMax}`);
  }
  let total = 0;
  const lengths = new Float64Array(B);
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) lengths[b] += mask[b * T + t];
  for (let b = 0; b < B; b++) total += lengths[b];
  let counted = nSeq;
  if (seqMeanCount === 'unmasked') {
    counted = 0;
    for (let b = 0; b < nSeq; b++) if (lengths[b] > 0) counted++;
  }
  const N = Math.max(counted, 1);
  for (let b = 0; b < B; b++) {
    let scale: number;
    if (mode === 'token_mean') scale = total > 0 ? 1 / total : 0;
    else if (mode === 'seq_mean_token_mean') scale = lengths[b] > 0 ? 1 / (N * lengths[b]) : 0;
    else if (mode === 'seq_mean_token_sum') scale = 1 / N;
    else scale = 1 / (N * (lMax as number));
    for (let t = 0; t < T; t++) coef[b * T + t] = mask[b * T + t] * scale;
  }
  return coef;
}

function describe(k: number, tr: Trajectory): string {
  return `trajectory ${k} (role ${tr.role}, group ${tr.groupId})`;
}

function checkTrajectory(k: number, tr: Trajectory, T: number): void {
  const P = tr.promptTokens.length;
  const R = tr.responseTokens.length;
  const what = describe(k, tr);
  if (P < 1) throw new Error(`${what}: the prompt is empty; the first response token needs a position to be predicted from`);
  if (P + R - 1 > T) {
    throw new Error(`${what}: ${P} prompt + ${R} response tokens need ${P + R - 1} positions, the batch has T = ${T}; raise T or lower maxNewTokens / the prompt length`);
  }
  for (const [name, a] of [['lossMask', tr.lossMask], ['oldLogp', tr.oldLogp], ['entropy', tr.entropy]] as const) {
    if (a.length !== R) throw new Error(`${what}: ${name} has ${a.length} entries, the response has ${R} tokens`);
  }
  if (tr.refLogp && tr.refLogp.length !== R) throw new Error(`${what}: refLogp has ${tr.refLogp.length} entries, the response has ${R} tokens`);
  if (tr.advantage === undefined) throw new Error(`${what}: no advantage; run assignAdvantages before packing`);
  if (typeof tr.advantage !== 'number' && tr.advantage.length !== R) {
    throw new Error(`${what}: advantage has ${tr.advantage.length} entries, the response has ${R} tokens (or give one number)`);
  }
  for (let j = 0; j < R; j++) {
    const m = tr.lossMask[j];
    if (m !== 0 && m !== 1) throw new Error(`${what}: lossMask[${j}] = ${m}, must be 0 or 1`);
    if (m === 0) continue;
    const a = typeof tr.advantage === 'number' ? tr.advantage : tr.advantage[j];
    const bad = !Number.isFinite(tr.oldLogp[j]) ? 'oldLogp' : !Number.isFinite(a) ? 'advantage' : tr.refLogp && !Number.isFinite(tr.refLogp[j]) ? 'refLogp' : null;
    if (bad) throw new Error(`${what}: ${bad} of response token ${j} is not finite`);
  }
  for (const [name, a] of [['prompt', tr.promptTokens], ['response', tr.responseTokens]] as const) {
    for (let j = 0; j < a.length; j++) {
      if (!Number.isInteger(a[j]) || a[j] < 0) throw new Error(`${what}: ${name} token ${j} is ${a[j]}, not a token id`);
    }
  }
}

/** Packs trajectories into rows 0..n−1 of a padded [B, T] batch with aggregation weights. */
export function packBatch(trajs: readonly Trajectory[], opts: PackOptions): PackedBatch {
  const T = opts.T;
  const B = opts.B ?? trajs.length;
  if (!Number.isInteger(T) || T < 1) throw new Error(`packBatch: T = ${T} must be a positive integer`);
  if (!Number.isInteger(B) || B < 1) throw new Error(`packBatch: B = ${B} must be a positive integer (an empty batch has nothing to train on)`);
  if (trajs.length > B) throw new Error(`packBatch: ${trajs.length} trajectories do not fit B = ${B} rows; split them into mini-batches`);
  const withRef = trajs.filter((tr) => tr.refLogp !== undefined).length;
  if (withRef !== 0 && withRef !== trajs.length) {
    const k = trajs.findIndex((tr) => tr.refLogp === undefined);
    throw new Error(`packBatch: ${describe(k, trajs[k])} has no refLogp while ${withRef} others do; compute it for all or none`);
  }
  const BT = B * T;
  const pad = opts.padToken ?? 0;
  const out: PackedBatch = {
    B, T, nSeq: trajs.length,
    tokens: new Uint32Array(BT).fill(pad), targets: new Uint32Array(BT).fill(pad),
    mask: new Float32Array(BT), coef: new Float32Array(BT),
    oldLogp: new Float32Array(BT), refLogp: withRef ? new Float32Array(BT) : null,
    adv: new Float32Array(BT), entropy: new Float32Array(BT),
    responseStart: new Int32Array(B), responseLength: new Int32Array(B),
  };
  trajs.forEach((tr, b) => {
    checkTrajectory(b, tr, T);
    const P = tr.promptTokens.length;
    const R = tr.responseTokens.length;
    const tok = (t: number): number => (t < P ? tr.promptTokens[t] : tr.responseTokens[t - P]);
    const row = b * T;
    for (let t = 0; t < Math.min(P + R, T); t++) out.tokens[row + t] = tok(t);
    for (let t = 0; t < P + R - 1; t++) out.targets[row + t] = tok(t + 1);
    const keep = opts.maskTruncated && tr.truncated ? 0 : 1;
    const adv = tr.advantage as number | ArrayLike<number>;
    for (let j = 0; j < R; j++) {
      const i = row + P - 1 + j;
      out.mask[i] = tr.lossMask[j] * keep;
      out.oldLogp[i] = tr.oldLogp[j];
      out.entropy[i] = tr.entropy[j];
      out.adv[i] = typeof adv === 'number' ? adv : adv[j];
      if (out.refLogp) out.refLogp[i] = (tr.refLogp as ArrayLike<number>)[j];
    }
    out.responseStart[b] = P - 1;
    out.responseLength[b] = R;
  });
  out.coef.set(aggregationCoefs(out.mask, { B, T }, trajs.length, opts.aggregation, opts.constantNormTokens, opts.seqMeanCount));
  return out;
}

/** The positions the longest of `trajs` takes in a packed row (prompt + response − 1). */
export function positionsOf(trajs: readonly Trajectory[]): number {
  return trajs.reduce((m, tr) => Math.max(m, tr.promptTokens.length + tr.responseTokens.length - 1), 1);
}

/**
 * The indices of `lengths` shortest first (a stable sort: equal lengths keep their order). The
 * trainer's micro-batches and the frozen policy's chunks take rows in this order, so each runs
 * at the length bucket of its own longest row rather than at the longest of an arbitrary mix.
 */
export function lengthOrder(lengths: readonly number[]): number[] {
  return lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b]);
}

/** The positions row `b` of a packed batch takes (prompt + response − 1; a padding row: 1). */
export function rowPositions(p: PackedBatch, b: number): number {
  return Math.max(1, p.responseStart[b] + p.responseLength[b]);
}

/**
 * Rows [r0, r1) of a packed batch as a batch of `rows` rows (the rest padding): the micro-batches
 * of gradient accumulation. The aggregation weights stay those of the whole batch, so the
 * micro-batches' gradients add up to the whole batch's. With `T` (at most the batch's), each row
 * keeps its first T positions: a micro-batch of short rows runs at a shorter length; every row
 * must fit (rowPositions ≤ T).
 */
export function packedRows(p: PackedBatch, r0: number, r1: number, rows: number, padToken = 0, T = p.T): PackedBatch {
  const n = r1 - r0;
  if (!(Number.isInteger(r0) && Number.isInteger(r1) && r0 >= 0 && r1 <= p.B && n >= 1 && n <= rows)) {
    throw new Error(`packedRows: rows [${r0}, ${r1}) of a ${p.B}-row batch into ${rows} rows`);
  }
  if (!(Number.isInteger(T) && T >= 1 && T <= p.T)) throw new Error(`packedRows: T = ${T} must be an integer in 1..${p.T}`);
  for (let b = r0; b < r1; b++) {
    if (rowPositions(p, b) > T) throw new Error(`packedRows: row ${b} takes ${rowPositions(p, b)} positions, more than T = ${T}`);
  }
  // per position (B, T) arrays keep the first T columns of each row; per row arrays copy through
  const cut = <A extends Float32Array | Uint32Array | Int32Array>(a: A, make: (n: number) => A, perPosition: boolean, fill = 0): A => {
    const per = perPosition ? T : 1;
    const out = make(rows * per);
    if (fill !== 0) out.fill(fill);
    if (!perPosition || T === p.T) out.set(a.subarray(r0 * per, r1 * per));
    else for (let b = r0; b < r1; b++) out.set(a.subarray(b * p.T, b * p.T + T), (b - r0) * T);
    return out;
  };
  return {
    B: rows, T, nSeq: Math.max(0, Math.min(p.nSeq, r1) - r0),
    tokens: cut(p.tokens, (k) => new Uint32Array(k), true, padToken), targets: cut(p.targets, (k) => new Uint32Array(k), true, padToken),
    mask: cut(p.mask, (k) => new Float32Array(k), true), coef: cut(p.coef, (k) => new Float32Array(k), true),
    oldLogp: cut(p.oldLogp, (k) => new Float32Array(k), true), refLogp: p.refLogp ? cut(p.refLogp, (k) => new Float32Array(k), true) : null,
    adv: cut(p.adv, (k) => new Float32Array(k), true), entropy: cut(p.entropy, (k) => new Float32Array(k), true),
    responseStart: cut(p.responseStart, (k) => new Int32Array(k), false), responseLength: cut(p.responseLength, (k) => new Int32Array(k), false),
  };
}
