// Packing trajectories into the [B, T] batch, and the aggregation weights of every mode by hand.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { aggregationCoefs, lengthOrder, packBatch, packedRows, positionsOf, rowPositions, type Trajectory } from '../../src/rl/trajectory';
import { lengthBuckets } from '../../src/model/gpt';
import { SOFTWARE_TRAIN_ROWS, trainRowsFor } from '../../src/engines/webgpu/trainer';
import type { Gpu } from '../../src/gpu/runtime';
import { pgLossRef } from '../../src/reference/pg';
import type { PgHyper } from '../../src/rl/hyper';
import type { Aggregation } from '../../src/rl/config';

const hyper: PgHyper = { epsLow: 0.2, epsHigh: 0.28, dualClipC: null, klType: null, beta: 0, klClamp: 10, entCoef: 0, ratioLevel: 'token' };

function traj(prompt: number[], response: number[], extra: Partial<Trajectory> = {}): Trajectory {
  const R = response.length;
  return {
    role: 'solve', groupId: 0, reward: 1, truncated: false, advantage: 1,
    promptTokens: prompt, responseTokens: response,
    lossMask: new Array(R).fill(1), oldLogp: response.map((_, j) => -(j + 1) / 10), entropy: response.map((_, j) => j / 4),
    ...extra,
  };
}

describe('packBatch', () => {
  it('aligns every response value with the position that predicts that token', () => {
    const p = packBatch([traj([5, 6, 7], [8, 9], { advantage: [0.5, -0.5], refLogp: [-2, -3] })], { T: 6, aggregation: 'token_mean', padToken: 0 });
    expect(Array.from(p.tokens)).toEqual([5, 6, 7, 8, 9, 0]);
    expect(Array.from(p.targets)).toEqual([6, 7, 8, 9, 0, 0]);
    // position 2 predicts 8, position 3 predicts 9
    expect(Array.from(p.mask)).toEqual([0, 0, 1, 1, 0, 0]);
    expectClose('oldLogp', p.oldLogp, [0, 0, -0.1, -0.2, 0, 0], { atol: 1e-7, rtol: 0 });
    expect(Array.from(p.adv)).toEqual([0, 0, 0.5, -0.5, 0, 0]);
    expect(Array.from(p.refLogp!)).toEqual([0, 0, -2, -3, 0, 0]);
    expect(Array.from(p.entropy)).toEqual([0, 0, 0, 0.25, 0, 0]);
    expect(Array.from(p.coef)).toEqual([0, 0, 0.5, 0.5, 0, 0]);
    expect([p.responseStart[0], p.responseLength[0], p.nSeq]).toEqual([2, 2, 1]);
  });

  it('fits P + R − 1 = T exactly (the last token is only a target); one more fails with what to change', () => {
    const p = packBatch([traj([1, 2, 3], [4, 5, 6, 7])], { T: 6, aggregation: 'token_mean' });
    expect(Array.from(p.tokens)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from(p.targets)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(() => packBatch([traj([1, 2, 3], [4, 5, 6, 7, 8])], { T: 6, aggregation: 'token_mean' })).toThrow(
      /trajectory 0 \(role solve, group 0\): 3 prompt \+ 5 response tokens need 7 positions, the batch has T = 6; raise T/,
    );
  });

  it('loss mask, truncation masking, padding rows and a shared batch size', () => {
    const a = traj([1], [2, 3, 4], { lossMask: [1, 0, 1] });
    const b = traj([1, 1], [5, 6], { truncated: true });
    const kept = packBatch([a, b], { T: 4, B: 3, aggregation: 'token_mean', maskTruncated: false });
    expect(Array.from(kept.mask)).toEqual([1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0]);
    const masked = packBatch([a, b], { T: 4, B: 3, aggregation: 'token_mean', maskTruncated: true });
    expect(Array.from(masked.mask)).toEqual([1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(masked.coef)).toEqual([0.5, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('says what is wrong with a trajectory', () => {
    const T = 8;
    const pack = (t: Trajectory, more: Trajectory[] = []) => () => packBatch([...more, t], { T, aggregation: 'token_mean' });
    expect(pack(traj([], [1]))).toThrow(/prompt is empty/);
    expect(pack(traj([1], [2, 3], { oldLogp: [-1] }))).toThrow(/oldLogp has 1 entries, the response has 2 tokens/);
    expect(pack(traj([1], [2], { advantage: undefined }))).toThrow(/run assignAdvantages before packing/);
    expect(pack(traj([1], [2, 3], { advantage: [1] }))).toThrow(/advantage has 1 entries/);
    expect(pack(traj([1], [2], { lossMask: [0.5] }))).toThrow(/lossMask\[0\] = 0.5, must be 0 or 1/);
    expect(pack(traj([1], [2], { oldLogp: [NaN] }))).toThrow(/oldLogp of response token 0 is not finite/);
    expect(pack(traj([1], [2.5]))).toThrow(/response token 0 is 2.5, not a token id/);
    expect(pack(traj([1], [2]), [traj([1], [2], { refLogp: [-1] })])).toThrow(/trajectory 1 .*has no refLogp while 1 others do/);
    expect(() => packBatch([traj([1], [2]), traj([1], [2])], { T, B: 1, aggregation: 'token_mean' })).toThrow(/2 trajectories do not fit B = 1/);
    expect(() => packBatch([traj([1], [2])], { T, aggregation: 'constant_norm' })).toThrow(/constant_norm needs L_max/);
  });
});

describe('aggregation weights by hand', () => {
  // rows: sequence 0 with 2 counted tokens, sequence 1 with 3, then a padding row; N = 2
  const mask = [1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0];
  const dims = { B: 3, T: 4 };
  const cases: [Aggregation, number, number][] = [
    ['token_mean', 1 / 5, 1 / 5], // 1/ΣM
    ['seq_mean_token_mean', 1 / 4, 1 / 6], // 1/(N·L_i): 1/(2·2), 1/(2·3)
    ['seq_mean_token_sum', 1 / 2, 1 / 2], // 1/N
    ['constant_norm', 1 / 8, 1 / 8], // 1/(N·L_max), L_max = 4
  ];
  it.each(cases)('%s', (mode, c0, c1) => {
    const c = aggregationCoefs(mask, dims, 2, mode, 4);
    expectClose(mode, c, [c0, c0, 0, 0, c1, c1, c1, 0, 0, 0, 0, 0], { atol: 0, rtol: 1e-15 });
  });

  // With ρ ≡ 1 the surrogate is ℓ = −A: sequence 0 has A = +1 (2 tokens), sequence 1 A = −1 (3 tokens).
  const lossCases: [Aggregation, number][] = [
    ['token_mean', (-2 + 3) / 5],
    ['seq_mean_token_mean', (-1 + 1) / 2],
    ['seq_mean_token_sum', (-2 + 3) / 2],
    ['constant_norm', (-2 + 3) / 8],
  ];
  it.each(lossCases)('the loss of %s', (mode, want) => {
    const p = packBatch([traj([9], [1, 2], { advantage: 1 }), traj([9], [3, 4, 5], { advantage: -1 })], { T: 4, B: 3, aggregation: mode, constantNormTokens: 4 });
    const r = pgLossRef({ logp: p.oldLogp, entropy: p.entropy, oldLogp: p.oldLogp, refLogp: null, adv: p.adv, coef: p.coef }, p, hyper);
    expect(r.loss).toBeCloseTo(want, 7);
  });

  it('seq_mean N counts every trajectory (TRL), or with seqMeanCount unmasked only those with a token in the loss (veRL)', () => {
    // sequence 1 fully masked (a truncated response under maskTruncated): N = 2 or 1
    const m = [1, 1, 0, 0, 0, 0, 0, 0];
    const d = { B: 2, T: 4 };
    expect(Array.from(aggregationCoefs(m, d, 2, 'seq_mean_token_mean')).slice(0, 2)).toEqual([1 / 4, 1 / 4]);
    expect(Array.from(aggregationCoefs(m, d, 2, 'seq_mean_token_mean', null, 'unmasked')).slice(0, 2)).toEqual([1 / 2, 1 / 2]);
    expect(Array.from(aggregationCoefs(m, d, 2, 'seq_mean_token_sum', null, 'unmasked')).slice(0, 2)).toEqual([1, 1]);
    // token_mean does not count sequences
    expect(Array.from(aggregationCoefs(m, d, 2, 'token_mean', null, 'unmasked')).slice(0, 2)).toEqual([1 / 2, 1 / 2]);
    const p = packBatch([traj([9], [1, 2], { advantage: 1 }), traj([9], [3], { advantage: 1, truncated: true })], { T: 4, aggregation: 'seq_mean_token_mean', maskTruncated: true, seqMeanCount: 'unmasked' });
    expect(Array.from(p.coef.slice(0, 2))).toEqual([1 / 2, 1 / 2]);
  });

  it('an empty mask gives zero weights rather than a division by zero', () => {
    for (const mode of ['token_mean', 'seq_mean_token_mean'] as const) {
      expect(Array.from(aggregationCoefs([0, 0, 0, 0], { B: 2, T: 2 }, 2, mode))).toEqual([0, 0, 0, 0]);
    }
  });
});

describe('length buckets of the trainer', () => {
  it('strides of 16 up to T (T/8 rounded up to 16 for long T), always ending at T', () => {
    expect(lengthBuckets(128)).toEqual([16, 32, 48, 64, 80, 96, 112, 128]);
    expect(lengthBuckets(64)).toEqual([16, 32, 48, 64]);
    expect(lengthBuckets(40)).toEqual([16, 32, 40]);
    expect(lengthBuckets(10)).toEqual([10]);
    expect(lengthBuckets(300)).toEqual([48, 96, 144, 192, 240, 288, 300]);
  });

  it('positionsOf is the longest prompt + response − 1 of a batch (what packBatch needs as T)', () => {
    const trajs = [traj([9, 9], [1, 2, 3]), traj([9], [1]), traj([9, 9, 9], [1, 2])];
    expect(positionsOf(trajs)).toBe(4);
    expect(() => packBatch(trajs, { T: 3, aggregation: 'token_mean' })).toThrow(/need 4 positions/);
    expect(packBatch(trajs, { T: positionsOf(trajs), aggregation: 'token_mean' }).T).toBe(4);
  });
});

describe('micro-batches of a packed batch (packedRows)', () => {
  const trajs = [traj([9, 9], [1, 2, 3], { advantage: [1, 2, 3], refLogp: [-1, -2, -3] }), traj([9], [4], { advantage: -1, refLogp: [-4] }), traj([9, 9, 9], [5, 6], { advantage: 0.5, refLogp: [-5, -6] })];
  const p = packBatch(trajs, { T: 8, B: 4, aggregation: 'seq_mean_token_mean', padToken: 7 });

  it('rowPositions is each row\'s prompt + response − 1 (a padding row: 1)', () => {
    expect([0, 1, 2, 3].map((b) => rowPositions(p, b))).toEqual([4, 1, 4, 1]);
  });

  it('at a shorter T keeps each row\'s first T positions: every value where a repack at that T puts it, with the whole batch\'s weights', () => {
    const m = packedRows(p, 1, 3, 3, 7, 4);
    // the same two rows packed alone at T = 4, but the weights of the whole three-sequence batch
    const alone = packBatch(trajs.slice(1), { T: 4, B: 3, aggregation: 'seq_mean_token_mean', padToken: 7 });
    expect(m.T).toBe(4);
    expect(m.B).toBe(3);
    expect(m.nSeq).toBe(2);
    for (const k of ['tokens', 'targets', 'mask', 'oldLogp', 'refLogp', 'adv', 'entropy', 'responseStart', 'responseLength'] as const) {
      expect(Array.from(m[k] as ArrayLike<number>), k).toEqual(Array.from(alone[k] as ArrayLike<number>));
    }
    // seq_mean over 3 sequences, not 2: row 0 of m (one token) weighs 1/3, row 1 (two tokens) 1/6 each
    expectClose('row 0', m.coef.slice(0, 4), [1 / 3, 0, 0, 0], { atol: 1e-7, rtol: 0 });
    expectClose('row 1', m.coef.slice(4, 8), [0, 0, 1 / 6, 1 / 6], { atol: 1e-7, rtol: 0 });
    expect(Array.from(m.coef.slice(8))).toEqual([0, 0, 0, 0]);
  });

  it('at the batch\'s own T is a plain row slice; a row that does not fit, or a T out of range, is refused', () => {
    const m = packedRows(p, 0, 2, 2, 7);
    expect(m.T).toBe(8);
    expect(Array.from(m.tokens)).toEqual(Array.from(p.tokens.slice(0, 16)));
    expect(() => packedRows(p, 0, 2, 2, 7, 3)).toThrow(/row 0 takes 4 positions, more than T = 3/);
    expect(() => packedRows(p, 0, 2, 2, 7, 9)).toThrow(/T = 9 must be an integer in 1\.\.8/);
  });
});

describe('rows shortest first for micro-batches and frozen-policy chunks (lengthOrder)', () => {
  it('sorts indices by length, equal lengths in input order', () => {
    expect(lengthOrder([4, 10, 1, 21, 4])).toEqual([2, 0, 4, 1, 3]);
    expect(lengthOrder([3, 3, 3])).toEqual([0, 1, 2]);
    expect(lengthOrder([])).toEqual([]);
  });

  it('gives chunks that pad less than input order', () => {
    // 6 lengths in chunks of 2: input order pads every chunk to 9, 8 and 7 positions (48 in all);
    // sorted, the chunks need 2, 7 and 9 (36)
    const lens = [9, 2, 8, 1, 7, 5];
    const chunkMax = (order: number[]) => [0, 2, 4].map((i) => Math.max(...order.slice(i, i + 2).map((k) => lens[k])));
    const order = lengthOrder(lens);
    expect(chunkMax(lens.map((_, i) => i))).toEqual([9, 8, 7]);
    expect(chunkMax(order)).toEqual([2, 7, 9]);
    expect([...order].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('trainer rows by adapter (trainRowsFor)', () => {
  const gpu = (softwareAdapter: boolean) => ({ softwareAdapter }) as unknown as Gpu;
  it('caps the rows of a forward at SOFTWARE_TRAIN_ROWS on software adapters only', () => {
    expect(trainRowsFor(gpu(true), 64)).toBe(SOFTWARE_TRAIN_ROWS);
    expect(trainRowsFor(gpu(true), 12)).toBe(12);
    expect(trainRowsFor(gpu(false), 64)).toBe(64);
    expect(SOFTWARE_TRAIN_ROWS).toBeLessThan(64);
  });
});
