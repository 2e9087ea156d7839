// Float64 CPU reference of the fused log-softmax (shaders/softmax_logp.wgsl, src/gpu/ops/loss.ts).
type Arr = ArrayLike<number>;

export interface SoftmaxRefOutputs {
  logp: Float64Array; // (R)
  entropy: Float64Array; // (R)
  dlogits: Float64Array | null; // (R, V), overwritten
}

/**
 * π = softmax(logits / temperature) per row; logp[r] = log π(targets[r]), entropy[r] = H(π),
 * dlogits = dJ/dlogits of J = Σ_r (w[r]·logp[r] + e[r]·H_r). Same semantics as softmaxLogp,
 * except that an out-of-range target throws.
 */
export function softmaxLogpRef(
  out: SoftmaxRefOutputs,
  logits: Arr, // (R, V)
  targets: Arr, // (R)
  w: Arr, // (R)
  e: Arr, // (R)
  dims: { R: number; V: number },
  opts: { temperature?: number } = {},
): void {
  const { R, V } = dims;
  const T = opts.temperature ?? 1;
  const lp = new Float64Array(V);
  for (let r = 0; r < R; r++) {
    const base = r * V;
    let m = -Infinity;
    for (let j = 0; j < V; j++) m = Math.max(m, logits[base + j] / T);
    let S = 0;
    for (let j = 0; j < V; j++) S += Math.exp(logits[base + j] / T - m);
    const logS = Math.log(S);
    let H = 0;
    for (let j = 0; j < V; j++) {
      lp[j] = logits[base + j] / T - m - logS;
      H -= Math.exp(lp[j]) * lp[j];
    }
    const t = targets[r];
    if (!(Number.isInteger(t) && t >= 0 && t < V)) throw new RangeError(`softmaxLogpRef: target ${t} of row ${r} not in [0, ${V})`);
    out.logp[r] = lp[t];
    out.entropy[r] = H;
    if (!out.dlogits) continue;
    // a masked row is +0 exactly, as on the GPU (the formula would give −0 in places)
    const masked = w[r] === 0 && e[r] === 0;
    for (let j = 0; j < V; j++) {
      if (masked) {
        out.dlogits[base + j] = 0;
        continue;
      }
      const p = Math.exp(lp[j]);
      // dlogp_t/dz_j = δ_tj − π_j;  dH/dz_j = −π_j (log π_j + H);  dz/dlogits = 1/T
      out.dlogits[base + j] = (w[r] * ((j === t ? 1 : 0) - p) - e[r] * p * (lp[j] + H)) / T;
    }
  }
}
