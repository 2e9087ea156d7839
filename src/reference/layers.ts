// Float64 CPU references of the layer kernels (src/gpu/ops/layers.ts), llm.c's formulas.
// Accumulation rules match the GPU: layernorm dinp/dweight/dbias +=, gelu dinp =,
// encoder dwte/dwpe +=.
type Arr = ArrayLike<number>;

const LN_EPS = 1e-5;
const GELU_SCALE = Math.sqrt(2 / Math.PI);

/** out[N,C] = (inp - mean) * rstd * weight + bias; mean[N], rstd[N] cached. Two-pass variance. */
export function layernormForwardRef(out: Float64Array, mean: Float64Array, rstd: Float64Array, inp: Arr, weight: Arr, bias: Arr, N: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const o = n * C;
    let m = 0;
    for (let c = 0; c < C; c++) m += inp[o + c];
    m /= C;
    let v = 0;
    for (let c = 0; c < C; c++) v += (inp[o + c] - m) ** 2;
    v /= C;
    const r = 1 / Math.sqrt(v + LN_EPS);
    for (let c = 0; c < C; c++) out[o + c] = (inp[o + c] - m) * r * weight[c] + bias[c];
    mean[n] = m;
    rstd[n] = r;
  }
}

/** dinp += , dweight += , dbias += for layernormForwardRef. */
export function layernormBackwardRef(
  dinp: Float64Array,
  dweight: Float64Array,
  dbias: Float64Array,
  dout: Arr,
  inp: Arr,
  weight: Arr,
  mean: Arr,
  rstd: Arr,
  N: number,
  C: number,
): void {
  for (let n = 0; n < N; n++) {
    const o = n * C;
    const m = mean[n];
    const r = rstd[n];
    let dnormMean = 0;
    let dnormNormMean = 0;
    for (let c = 0; c < C; c++) {
      const norm = (inp[o + c] - m) * r;
      const dnorm = weight[c] * dout[o + c];
      dnormMean += dnorm;
      dnormNormMean += dnorm * norm;
    }
    dnormMean /= C;
    dnormNormMean /= C;
    for (let c = 0; c < C; c++) {
      const norm = (inp[o + c] - m) * r;
      const dnorm = weight[c] * dout[o + c];
      dbias[c] += dout[o + c];
      dweight[c] += norm * dout[o + c];
      dinp[o + c] += (dnorm - dnormMean - norm * dnormNormMean) * r;
    }
  }
}

/** out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) over n elements. */
export function geluForwardRef(out: Float64Array, inp: Arr, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i];
    out[i] = 0.5 * x * (1 + Math.tanh(GELU_SCALE * (x + 0.044715 * x ** 3)));
  }
}

/** dinp = gelu'(inp) * dout over n elements (=, not +=). */
export function geluBackwardRef(dinp: Float64Array, inp: Arr, dout: Arr, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i];
    const t = Math.tanh(GELU_SCALE * (x + 0.044715 * x ** 3));
    const local = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GELU_SCALE * (1 + 3 * 0.044715 * x * x);
    dinp[i] = local * dout[i];
  }
}

/** out[b,t,:] = wte[tokens[b,t], :] + wpe[t, :]. */
export function encoderForwardRef(out: Float64Array, tokens: Arr, wte: Arr, wpe: Arr, B: number, T: number, C: number): void {
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C;
      const w = tokens[b * T + t] * C;
      for (let c = 0; c < C; c++) out[o + c] = wte[w + c] + wpe[t * C + c];
    }
  }
}

/** dwte[tokens[b,t], :] += dout[b,t,:]; dwpe[t, :] += dout[b,t,:]. */
export function encoderBackwardRef(dwte: Float64Array, dwpe: Float64Array, dout: Arr, tokens: Arr, B: number, T: number, C: number): void {
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C;
      const w = tokens[b * T + t] * C;
      for (let c = 0; c < C; c++) {
        dwte[w + c] += dout[o + c];
        dwpe[t * C + c] += dout[o + c];
      }
    }
  }
}
