// Float64 CPU references of the matmul family (shaders/matmul.wgsl, shaders/matmul_bias_backward.wgsl).
import type { MatmulDims, MatmulOpts } from '../gpu/ops/matmul';

type Arr = ArrayLike<number>;

/**
 * out[M,N] = alpha * op(A) @ op(B) + (accumulate ? out : 0) + (bias ? bias[N] : 0).
 * op(A) is A[M,K] or, with transA, A stored [K,M]; op(B) is B[K,N] or, with transB, B stored [N,K].
 * Every sum runs over k = 0..K-1 in order from +0; only the loop nest is chosen so the inner loop
 * reads memory contiguously (CPU mode trains with this), which leaves the results bit for bit.
 */
export function matmulRef(out: Float64Array, a: Arr, b: Arr, bias: Arr | null, dims: MatmulDims, opts: MatmulOpts = {}): void {
  const { M, K, N } = dims;
  const alpha = opts.alpha ?? 1;
  const transA = opts.transA === true;
  const sums = new Float64Array(N);
  for (let m = 0; m < M; m++) {
    if (opts.transB) {
      for (let n = 0; n < N; n++) {
        let sum = 0;
        for (let k = 0; k < K; k++) sum += (transA ? a[k * M + m] : a[m * K + k]) * b[n * K + k];
        sums[n] = sum;
      }
    } else {
      sums.fill(0);
      for (let k = 0; k < K; k++) {
        const av = transA ? a[k * M + m] : a[m * K + k];
        const row = k * N;
        for (let n = 0; n < N; n++) sums[n] += av * b[row + n];
      }
    }
    for (let n = 0; n < N; n++) {
      let r = alpha * sums[n];
      if (opts.accumulate) r += out[m * N + n];
      if (bias) r += bias[n];
      out[m * N + n] = r;
    }
  }
}

/** out[M,N] = inp[M,K] @ weight[K,N] + bias[N] (GPT-2 Conv1D, weight stored [in, out]). */
export function matmulForwardRef(out: Float64Array, inp: Arr, weight: Arr, bias: Arr | null, dims: MatmulDims): void {
  matmulRef(out, inp, weight, bias, dims);
}

/** dbias[N] += sum over rows of dout[M,N]. */
export function matmulBiasBackwardRef(dbias: Float64Array, dout: Arr, dims: { M: number; N: number }): void {
  for (let m = 0; m < dims.M; m++) for (let n = 0; n < dims.N; n++) dbias[n] += dout[m * dims.N + n];
}

/**
 * Backward of matmulForwardRef: dinp = dout @ weight^T (`+=` with accumulateDinp),
 * dweight += inp^T @ dout, dbias += column sums of dout. Null outputs are skipped.
 */
export function matmulBackwardRef(
  dinp: Float64Array | null,
  dweight: Float64Array | null,
  dbias: Float64Array | null,
  dout: Arr,
  inp: Arr,
  weight: Arr,
  dims: MatmulDims,
  opts: { accumulateDinp?: boolean } = {},
): void {
  const { M, K, N } = dims;
  if (dinp) matmulRef(dinp, dout, weight, null, { M, K: N, N: K }, { transB: true, accumulate: opts.accumulateDinp });
  if (dweight) matmulRef(dweight, inp, dout, null, { M: K, K: M, N }, { transA: true, accumulate: true });
  if (dbias) matmulBiasBackwardRef(dbias, dout, { M, N });
}
