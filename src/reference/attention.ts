// Float64 CPU references of causal multi-head self-attention (llm.c style: one score row is
// materialised per query). Twins: src/gpu/ops/attention.ts.
import type { AttentionDims } from '../gpu/ops/attention';

type Arr = ArrayLike<number>;

/**
 * out[B,T,C] = softmax(q k^T / sqrt(HS), causal) v per head; lse[B,NH,T] = logsumexp of each
 * scaled score row. qkv[B,T,3C] holds [q | k | v] per position.
 */
export function attentionForwardRef(out: Float64Array, lse: Float64Array, qkv: Arr, dims: AttentionDims): void {
  const { B, T, C, NH } = dims;
  const HS = C / NH;
  const scale = 1 / Math.sqrt(HS);
  const att = new Float64Array(T); // (T) one row of scores, then probabilities
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      for (let h = 0; h < NH; h++) {
        const qo = (b * T + t) * 3 * C + h * HS;
        let max = -Infinity;
        for (let t2 = 0; t2 <= t; t2++) {
          const ko = (b * T + t2) * 3 * C + C + h * HS;
          let s = 0;
          for (let c = 0; c < HS; c++) s += qkv[qo + c] * qkv[ko + c];
          att[t2] = s * scale;
          if (att[t2] > max) max = att[t2];
        }
        let sum = 0;
        for (let t2 = 0; t2 <= t; t2++) {
          att[t2] = Math.exp(att[t2] - max);
          sum += att[t2];
        }
        lse[(b * NH + h) * T + t] = max + Math.log(sum);
        const oo = (b * T + t) * C + h * HS;
        for (let c = 0; c < HS; c++) {
          let o = 0;
          for (let t2 = 0; t2 <= t; t2++) o += att[t2] * qkv[(b * T + t2) * 3 * C + 2 * C + h * HS + c];
          out[oo + c] = o / sum;
        }
      }
    }
  }
}

/**
 * dqkv[B,T,3C] (overwritten) from dout[B,T,C]. Probabilities are rebuilt from qkv and the
 * forward's lse (P = exp(s - lse)); the softmax-backward row term is D = dout . out, as on the GPU.
 */
export function attentionBackwardRef(dqkv: Float64Array, dout: Arr, qkv: Arr, out: Arr, lse: Arr, dims: AttentionDims): void {
  const { B, T, C, NH } = dims;
  const HS = C / NH;
  const scale = 1 / Math.sqrt(HS);
  const att = new Float64Array(T); // (T) probabilities of one query row
  const datt = new Float64Array(T); // (T) dL/dP of that row
  dqkv.fill(0);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      for (let h = 0; h < NH; h++) {
        const qo = (b * T + t) * 3 * C + h * HS;
        const oo = (b * T + t) * C + h * HS;
        const L = lse[(b * NH + h) * T + t];
        let D = 0;
        for (let c = 0; c < HS; c++) D += dout[oo + c] * out[oo + c];
        for (let t2 = 0; t2 <= t; t2++) {
          const ko = (b * T + t2) * 3 * C + C + h * HS;
          let s = 0;
          let dp = 0;
          for (let c = 0; c < HS; c++) {
            s += qkv[qo + c] * qkv[ko + c];
            dp += dout[oo + c] * qkv[ko + C + c];
          }
          att[t2] = Math.exp(s * scale - L);
          datt[t2] = dp;
        }
        for (let t2 = 0; t2 <= t; t2++) {
          const ko = (b * T + t2) * 3 * C + C + h * HS;
          const ds = att[t2] * (datt[t2] - D) * scale; // d(loss)/d(q . k)
          for (let c = 0; c < HS; c++) {
            dqkv[qo + c] += ds * qkv[ko + c];
            dqkv[ko + c] += ds * qkv[qo + c];
            dqkv[ko + C + c] += att[t2] * dout[oo + c];
          }
        }
      }
    }
  }
}
