import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randArray, toF64 } from '../helpers/rng';
import { matmulBackwardRef, matmulForwardRef, matmulRef } from '../../src/reference/matmul';

function transpose(x: ArrayLike<number>, rows: number, cols: number): Float64Array {
  const t = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = x[r * cols + c];
  return t;
}

describe('matmulRef', () => {
  it('computes a hand-checked product with bias, alpha and accumulate', () => {
    // A = [[1,2,3],[4,5,6]] (2x3), B = [[1,0],[0,1],[1,1]] (3x2): A@B = [[4,5],[10,11]]
    const a = [1, 2, 3, 4, 5, 6];
    const b = [1, 0, 0, 1, 1, 1];
    const out = Float64Array.from([100, 200, 300, 400]);
    matmulRef(out, a, b, [0.5, -0.5], { M: 2, K: 3, N: 2 }, { alpha: 2, accumulate: true });
    expect(Array.from(out)).toEqual([100 + 8 + 0.5, 200 + 10 - 0.5, 300 + 20 + 0.5, 400 + 22 - 0.5]);
  });

  it('reads transposed operands as their stored transposes', () => {
    const rand = mulberry32(3);
    const [M, K, N] = [3, 5, 4];
    const a = toF64(randArray(rand, M * K));
    const b = toF64(randArray(rand, K * N));
    const want = new Float64Array(M * N);
    matmulRef(want, a, b, null, { M, K, N });
    for (const [transA, transB] of [[true, false], [false, true], [true, true]]) {
      const got = new Float64Array(M * N);
      matmulRef(got, transA ? transpose(a, M, K) : a, transB ? transpose(b, K, N) : b, null, { M, K, N }, { transA, transB });
      expectClose(`tA=${transA} tB=${transB}`, got, want, { atol: 1e-14, rtol: 0 });
    }
  });
});

describe('matmulBackwardRef', () => {
  // L = sum(out * G) with out = inp @ weight + bias, so dL/dout = G: each gradient entry is
  // checked against a central difference of L (exact up to float64 rounding, L is linear).
  const [M, K, N] = [4, 3, 5];
  const rand = mulberry32(11);
  const inp = toF64(randArray(rand, M * K));
  const weight = toF64(randArray(rand, K * N));
  const bias = toF64(randArray(rand, N));
  const G = toF64(randArray(rand, M * N));

  function loss(): number {
    const out = new Float64Array(M * N);
    matmulForwardRef(out, inp, weight, bias, { M, K, N });
    return out.reduce((s, v, i) => s + v * G[i], 0);
  }

  function numericGrad(x: Float64Array): Float64Array {
    const g = new Float64Array(x.length);
    const h = 1e-6;
    for (let i = 0; i < x.length; i++) {
      const x0 = x[i];
      x[i] = x0 + h;
      const lp = loss();
      x[i] = x0 - h;
      const lm = loss();
      x[i] = x0;
      g[i] = (lp - lm) / (2 * h);
    }
    return g;
  }

  it('matches central differences', () => {
    const dinp = new Float64Array(M * K);
    const dweight = new Float64Array(K * N);
    const dbias = new Float64Array(N);
    matmulBackwardRef(dinp, dweight, dbias, G, inp, weight, { M, K, N });
    // h = 1e-6 on a linear loss of O(1) terms: rounding error ~ 1e-16 / 1e-6 = 1e-10
    const tol = { atol: 1e-8, rtol: 1e-8 };
    expectClose('dinp', dinp, numericGrad(inp), tol);
    expectClose('dweight', dweight, numericGrad(weight), tol);
    expectClose('dbias', dbias, numericGrad(bias), tol);
  });

  it('overwrites dinp by default, accumulates it on request, always accumulates dweight and dbias', () => {
    const fresh = { dinp: new Float64Array(M * K), dweight: new Float64Array(K * N), dbias: new Float64Array(N) };
    matmulBackwardRef(fresh.dinp, fresh.dweight, fresh.dbias, G, inp, weight, { M, K, N });
    const dinp = new Float64Array(M * K).fill(7);
    const dweight = new Float64Array(K * N).fill(7);
    const dbias = new Float64Array(N).fill(7);
    matmulBackwardRef(dinp, dweight, dbias, G, inp, weight, { M, K, N });
    expectClose('dinp =', dinp, fresh.dinp, { atol: 1e-14, rtol: 0 });
    expectClose('dweight +=', dweight, fresh.dweight.map((v) => v + 7), { atol: 1e-14, rtol: 0 });
    expectClose('dbias +=', dbias, fresh.dbias.map((v) => v + 7), { atol: 1e-14, rtol: 0 });
    dinp.fill(7);
    matmulBackwardRef(dinp, null, null, G, inp, weight, { M, K, N }, { accumulateDinp: true });
    expectClose('dinp +=', dinp, fresh.dinp.map((v) => v + 7), { atol: 1e-14, rtol: 0 });
  });
});
