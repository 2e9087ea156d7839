// The float64 references of src/reference/layers.ts: every backward against central finite
// differences of the scalar loss L = sum(out * g), and the accumulation rules.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randInts, randn, toF64 } from '../helpers/rng';
import {
  encoderBackwardRef,
  encoderForwardRef,
  geluBackwardRef,
  geluForwardRef,
  layernormBackwardRef,
  layernormForwardRef,
} from '../../src/reference/layers';

const H = 1e-5;
// central differences in float64: truncation ~H^2, round-off ~1e-16 * |L| / H
const FD_TOL = { atol: 1e-7, rtol: 1e-6 };

const dotSum = (a: Float64Array, g: Float64Array): number => a.reduce((s, v, i) => s + v * g[i], 0);

/** d loss / d x[i] for every i by central differences (x is perturbed in place and restored). */
function numericGrad(x: Float64Array, loss: () => number): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i];
    x[i] = x0 + H;
    const lp = loss();
    x[i] = x0 - H;
    const lm = loss();
    x[i] = x0;
    out[i] = (lp - lm) / (2 * H);
  }
  return out;
}

describe('layernorm reference', () => {
  it.each([
    [3, 5, 0],
    [2, 17, 0],
    [4, 8, 1e3],
  ])('backward matches finite differences (N=%i C=%i offset=%d)', (N, C, offset) => {
    const rand = mulberry32(N * 100 + C);
    const inp = toF64(randn(rand, N * C)).map((v) => v + offset);
    const weight = toF64(randn(rand, C));
    const bias = toF64(randn(rand, C));
    const g = toF64(randn(rand, N * C));
    const out = new Float64Array(N * C);
    const mean = new Float64Array(N);
    const rstd = new Float64Array(N);
    const loss = (): number => {
      layernormForwardRef(out, mean, rstd, inp, weight, bias, N, C);
      return dotSum(out, g);
    };
    loss();
    const dinp = new Float64Array(N * C);
    const dweight = new Float64Array(C);
    const dbias = new Float64Array(C);
    layernormBackwardRef(dinp, dweight, dbias, g, inp, weight, mean, rstd, N, C);
    expectClose('dinp', dinp, numericGrad(inp, loss), FD_TOL);
    expectClose('dweight', dweight, numericGrad(weight, loss), FD_TOL);
    expectClose('dbias', dbias, numericGrad(bias, loss), FD_TOL);
  });

  it('normalises rows and caches mean and rstd', () => {
    const C = 4;
    const inp = [1, 2, 3, 6, 5, 5, 5, 5];
    const out = new Float64Array(8);
    const mean = new Float64Array(2);
    const rstd = new Float64Array(2);
    layernormForwardRef(out, mean, rstd, inp, [1, 1, 1, 1], [0, 0, 0, 0.5], 2, C);
    expect(mean[0]).toBe(3);
    expect(rstd[0]).toBeCloseTo(1 / Math.sqrt(3.5 + 1e-5), 12);
    expect(rstd[1]).toBeCloseTo(1 / Math.sqrt(1e-5), 9);
    expect(Array.from(out.slice(4))).toEqual([0, 0, 0, 0.5]);
  });

  it('accumulates into dinp, dweight and dbias', () => {
    const N = 2;
    const C = 3;
    const rand = mulberry32(7);
    const inp = toF64(randn(rand, N * C));
    const weight = toF64(randn(rand, C));
    const dout = toF64(randn(rand, N * C));
    const out = new Float64Array(N * C);
    const mean = new Float64Array(N);
    const rstd = new Float64Array(N);
    layernormForwardRef(out, mean, rstd, inp, weight, new Float64Array(C), N, C);
    const fresh = [new Float64Array(N * C), new Float64Array(C), new Float64Array(C)] as const;
    layernormBackwardRef(...fresh, dout, inp, weight, mean, rstd, N, C);
    const pre = [new Float64Array(N * C).fill(1), new Float64Array(C).fill(2), new Float64Array(C).fill(3)] as const;
    layernormBackwardRef(...pre, dout, inp, weight, mean, rstd, N, C);
    expectClose('dinp +=', pre[0], fresh[0].map((v) => v + 1), { atol: 1e-12, rtol: 0 });
    expectClose('dweight +=', pre[1], fresh[1].map((v) => v + 2), { atol: 1e-12, rtol: 0 });
    expectClose('dbias +=', pre[2], fresh[2].map((v) => v + 3), { atol: 1e-12, rtol: 0 });
  });
});

describe('gelu reference', () => {
  it('matches known values of the tanh approximation', () => {
    const out = new Float64Array(4);
    geluForwardRef(out, [0, 1, -1, 20], 4);
    expectClose('gelu', out, [0, 0.8411919906082768, -0.15880800939172324, 20], { atol: 1e-12, rtol: 0 });
  });

  it('backward matches finite differences and overwrites dinp', () => {
    const n = 64;
    const rand = mulberry32(3);
    const inp = toF64(randn(rand, n, 2));
    const dout = toF64(randn(rand, n));
    const out = new Float64Array(n);
    const dinp = new Float64Array(n).fill(5);
    geluBackwardRef(dinp, inp, dout, n);
    const loss = (): number => {
      geluForwardRef(out, inp, n);
      return dotSum(out, dout);
    };
    expectClose('gelu dinp', dinp, numericGrad(inp, loss), FD_TOL);
  });
});

describe('encoder reference', () => {
  it('backward matches finite differences and accumulates', () => {
    const [B, T, C, V, Tmax] = [2, 3, 4, 5, 4];
    const rand = mulberry32(11);
    const tokens = randInts(rand, B * T, V);
    tokens[0] = tokens[1] = 4; // a repeated token
    const wte = toF64(randn(rand, V * C));
    const wpe = toF64(randn(rand, Tmax * C));
    const g = toF64(randn(rand, B * T * C));
    const out = new Float64Array(B * T * C);
    const loss = (): number => {
      encoderForwardRef(out, tokens, wte, wpe, B, T, C);
      return dotSum(out, g);
    };
    const dwte = new Float64Array(V * C).fill(0.5);
    const dwpe = new Float64Array(Tmax * C).fill(-0.25);
    encoderBackwardRef(dwte, dwpe, g, tokens, B, T, C);
    expectClose('dwte', dwte, numericGrad(wte, loss).map((v) => v + 0.5), FD_TOL);
    expectClose('dwpe', dwpe, numericGrad(wpe, loss).map((v) => v - 0.25), FD_TOL);
  });
});
