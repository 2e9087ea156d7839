import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randArray, toF64 } from '../helpers/rng';
import { attentionBackwardRef, attentionForwardRef } from '../../src/reference/attention';
import type { AttentionDims } from '../../src/gpu/ops/attention';

const dims: AttentionDims = { B: 2, T: 5, C: 8, NH: 2 };
const { B, T, C, NH } = dims;

function forward(qkv: Float64Array): { out: Float64Array; lse: Float64Array } {
  const out = new Float64Array(B * T * C);
  const lse = new Float64Array(B * NH * T);
  attentionForwardRef(out, lse, qkv, dims);
  return { out, lse };
}

describe('attention reference', () => {
  it('forward: position 0 copies v_0, and lse is the logsumexp of the scaled scores', () => {
    const qkv = toF64(randArray(mulberry32(1), B * T * 3 * C));
    const { out, lse } = forward(qkv);
    for (let b = 0; b < B; b++) {
      for (let c = 0; c < C; c++) expect(out[b * T * C + c]).toBeCloseTo(qkv[b * T * 3 * C + 2 * C + c], 14);
      // position 0 attends to itself only: lse = q_0 . k_0 / sqrt(HS)
      for (let h = 0; h < NH; h++) {
        let s = 0;
        for (let c = 0; c < C / NH; c++) s += qkv[b * T * 3 * C + h * (C / NH) + c] * qkv[b * T * 3 * C + C + h * (C / NH) + c];
        expect(lse[(b * NH + h) * T]).toBeCloseTo(s / Math.sqrt(C / NH), 14);
      }
    }
  });

  it('backward matches central finite differences of sum(out * dout)', () => {
    const rand = mulberry32(2);
    const qkv = toF64(randArray(rand, B * T * 3 * C, 1.5));
    const dout = toF64(randArray(rand, B * T * C));
    const loss = (x: Float64Array): number => forward(x).out.reduce((acc, o, i) => acc + o * dout[i], 0);
    const { out, lse } = forward(qkv);
    const dqkv = new Float64Array(qkv.length);
    attentionBackwardRef(dqkv, dout, qkv, out, lse, dims);

    const eps = 1e-6;
    const fd = new Float64Array(qkv.length);
    for (let i = 0; i < qkv.length; i++) {
      const x = qkv.slice();
      x[i] = qkv[i] + eps;
      const up = loss(x);
      x[i] = qkv[i] - eps;
      fd[i] = (up - loss(x)) / (2 * eps);
    }
    // central differences: truncation O(eps^2) ~ 1e-12, rounding ~1e-16 / eps ~ 1e-10
    expectClose('dqkv vs finite differences', dqkv, fd, { atol: 1e-8, rtol: 1e-6 });
    // every part of qkv gets a gradient (q of position 0 does not: its softmax has one entry)
    const nonzero = Array.from(dqkv).filter((g) => Math.abs(g) > 1e-6).length;
    expect(nonzero).toBeGreaterThan(qkv.length * 0.8);
  });
});
