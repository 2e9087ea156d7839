// Float64 CPU references of the decoding kernels (src/gpu/ops/decode.ts). Layouts as there:
// tokens (B, Tmax), qkv (B, 3C) rows [q | k | v], caches (L, B, NH, Tmax, HS).
type Arr = ArrayLike<number>;

export interface DecodeDimsRef {
  B: number;
  C: number;
  NH: number;
  Tmax: number;
  V: number;
}

/** out (B, C) = wte[tokens[b, s]] + wpe[s]. */
export function encoderDecodeRef(out: Float64Array, tokens: Arr, wte: Arr, wpe: Arr, s: number, d: DecodeDimsRef): void {
  for (let b = 0; b < d.B; b++) {
    const tok = tokens[b * d.Tmax + s];
    for (let c = 0; c < d.C; c++) out[b * d.C + c] = wte[tok * d.C + c] + wpe[s * d.C + c];
  }
}

/** Writes k and v of position s (from qkv) into one layer's caches (B, NH, Tmax, HS). */
export function kvCacheWriteRef(kcache: Float64Array, vcache: Float64Array, qkv: Arr, s: number, d: DecodeDimsRef): void {
  if (s >= d.Tmax) return;
  const HS = d.C / d.NH;
  for (let b = 0; b < d.B; b++) {
    for (let c = 0; c < d.C; c++) {
      const h = Math.floor(c / HS);
      const dst = ((b * d.NH + h) * d.Tmax + s) * HS + (c % HS);
      kcache[dst] = qkv[b * 3 * d.C + d.C + c];
      vcache[dst] = qkv[b * 3 * d.C + 2 * d.C + c];
    }
  }
}

/** out (B, C): attention of q (position s, from qkv) over cached positions 0..s, scale 1/sqrt(HS). */
export function attentionDecodeRef(out: Float64Array, qkv: Arr, kcache: Arr, vcache: Arr, s: number, d: DecodeDimsRef): void {
  const HS = d.C / d.NH;
  const scale = 1 / Math.sqrt(HS);
  const w = new Float64Array(s + 1);
  for (let b = 0; b < d.B; b++) {
    for (let h = 0; h < d.NH; h++) {
      const q = b * 3 * d.C + h * HS;
      const base = (b * d.NH + h) * d.Tmax * HS;
      let mx = -Infinity;
      for (let t = 0; t <= s; t++) {
        let dot = 0;
        for (let i = 0; i < HS; i++) dot += qkv[q + i] * kcache[base + t * HS + i];
        w[t] = dot * scale;
        mx = Math.max(mx, w[t]);
      }
      let sum = 0;
      for (let t = 0; t <= s; t++) sum += w[t] = Math.exp(w[t] - mx);
      for (let i = 0; i < HS; i++) {
        let acc = 0;
        for (let t = 0; t <= s; t++) acc += w[t] * vcache[base + t * HS + i];
        out[b * d.C + h * HS + i] = acc / sum;
      }
    }
  }
}

/**
 * Copies positions 0..upTo-1 of slot src into slots dst0..dst0+count-1 of every layer (L read off
 * the length), for each of `groups` groups shifted by g·stride.
 */
export function kvForkRef(
  kcache: Float64Array,
  vcache: Float64Array,
  d: DecodeDimsRef,
  fork: { src: number; dst0: number; count: number; upTo: number; groups?: number; stride?: number },
): void {
  const HS = d.C / d.NH;
  const slot = d.NH * d.Tmax * HS;
  const L = kcache.length / (d.B * slot);
  for (const cache of [kcache, vcache]) {
    for (let l = 0; l < L; l++) {
      for (let g = 0, shift = 0; g < (fork.groups ?? 1); g++, shift = g * (fork.stride ?? 0)) for (let j = 0; j < fork.count; j++) {
        for (let h = 0; h < d.NH; h++) {
          const from = (l * d.B + fork.src + shift) * slot + h * d.Tmax * HS;
          const to = (l * d.B + fork.dst0 + shift + j) * slot + h * d.Tmax * HS;
          for (let i = 0; i < fork.upTo * HS; i++) cache[to + i] = cache[from + i];
        }
      }
    }
  }
}

/** Token ids sorted by descending logit, ascending id on ties: the sampler's order. */
export function sortedOrderRef(logits: Arr): number[] {
  return Array.from({ length: logits.length }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
}

/**
 * The sampling distribution (length V, original token order): softmax(logits / temperature),
 * restricted to the topK most probable tokens (0 = off), then to the smallest prefix of those
 * whose cumulative probability reaches topP (at least one token; 1 = off), renormalised.
 * temperature 0: one-hot at the argmax (lowest id on ties).
 */
export function samplingDistributionRef(logits: Arr, temperature: number, topK: number, topP: number): Float64Array {
  const V = logits.length;
  const order = sortedOrderRef(logits);
  const q = new Float64Array(V);
  if (temperature === 0) {
    q[order[0]] = 1;
    return q;
  }
  const k = topK > 0 && topK < V ? topK : V;
  const mx = logits[order[0]] / temperature;
  const e = order.slice(0, k).map((i) => Math.exp(logits[i] / temperature - mx));
  const zk = e.reduce((a, x) => a + x, 0);
  let n = k;
  if (topP < 1) {
    let excl = 0;
    for (let r = 0; r < k; r++) {
      if (excl >= topP * zk) {
        n = Math.max(r, 1);
        break;
      }
      excl += e[r];
    }
  }
  let zn = 0;
  for (let r = 0; r < n; r++) zn += e[r];
  for (let r = 0; r < n; r++) q[order[r]] = e[r] / zn;
  return q;
}

/**
 * The policy's distribution π = softmax(logits / temperature) over every token, before top-k and
 * top-p: what the sampler reports log π and the entropy of (the trainer's log π is this one, so
 * the importance ratio is 1 before any update). temperature 0: the greedy one-hot.
 */
export function policyDistributionRef(logits: Arr, temperature: number): Float64Array {
  return samplingDistributionRef(logits, temperature, 0, 1);
}

/** -sum q log q (0 log 0 = 0). */
export function entropyRef(q: Arr): number {
  let h = 0;
  for (let i = 0; i < q.length; i++) if (q[i] > 0) h -= q[i] * Math.log(q[i]);
  return h;
}

const M = 0xffffffff;

function mulhilo(a: number, b: number): [number, number] {
  const p = BigInt(a) * BigInt(b);
  return [Number(p >> 32n), Number(p & BigInt(M))];
}

/** Philox-4x32-10 (Salmon et al. 2011), the sampler's generator. */
export function philox4x32Ref(ctr: [number, number, number, number], key: [number, number]): [number, number, number, number] {
  let [c0, c1, c2, c3] = ctr;
  let [k0, k1] = key;
  for (let r = 0; r < 10; r++) {
    const [hi0, lo0] = mulhilo(0xd2511f53, c0);
    const [hi1, lo1] = mulhilo(0xcd9e8d57, c2);
    [c0, c1, c2, c3] = [(hi1 ^ c1 ^ k0) >>> 0, lo1, (hi0 ^ c3 ^ k1) >>> 0, lo0];
    k0 = (k0 + 0x9e3779b9) >>> 0;
    k1 = (k1 + 0xbb67ae85) >>> 0;
  }
  return [c0, c1, c2, c3];
}

/** The uniform in [0, 1) that draws the token of sequence b at position t. */
export function sampleUniformRef(seed: number, b: number, t: number): number {
  return (philox4x32Ref([t, b, 0, 0], [seed, 0])[0] >>> 8) / 16777216;
}

/** Inverse CDF over the sampler's sorted order: the first rank whose cumulative mass exceeds u. */
export function drawRef(logits: Arr, q: Arr, u: number): number {
  const order = sortedOrderRef(logits);
  let cum = 0;
  let last = order[0];
  for (const i of order) {
    if (q[i] <= 0) continue;
    cum += q[i];
    last = i;
    if (cum > u) return i;
  }
  return last;
}

/** The token the sampler draws for sequence b at position t: from the top-k / top-p distribution, greedy at temperature 0. */
export function drawTokenRef(logits: Arr, o: { temperature: number; topK: number; topP: number; seed: number }, b: number, t: number): number {
  if (o.temperature === 0) return sortedOrderRef(logits)[0];
  return drawRef(logits, samplingDistributionRef(logits, o.temperature, o.topK, o.topP), sampleUniformRef(o.seed, b, t));
}

export interface SampleStateRef {
  tokens: Uint32Array; // (B, Tmax)
  promptLen: Uint32Array; // (B)
  done: Uint32Array; // (B)
  logp: Float64Array; // (B, Tmax)
  entropy: Float64Array; // (B, Tmax)
}

/** One sampleStep at position s (writes position s + 1), as the kernel specifies it. */
export function sampleStepRef(
  st: SampleStateRef,
  logits: Arr,
  s: number,
  d: DecodeDimsRef,
  o: { temperature: number; topK: number; topP: number; seed: number; eosToken: number; maxNew: number },
): void {
  const t = s + 1;
  for (let b = 0; b < d.B; b++) {
    if (t >= d.Tmax || st.done[b]) continue;
    const row = b * d.Tmax + t;
    if (t < st.promptLen[b]) {
      st.logp[row] = 0;
      st.entropy[row] = 0;
      continue;
    }
    const z = Array.prototype.slice.call(logits, b * d.V, (b + 1) * d.V) as number[];
    const y = drawTokenRef(z, o, b, t);
    st.tokens[row] = y;
    const pi = policyDistributionRef(z, o.temperature);
    st.logp[row] = o.temperature === 0 ? 0 : Math.log(pi[y]);
    st.entropy[row] = o.temperature === 0 ? 0 : entropyRef(pi);
    if (y === o.eosToken || t - st.promptLen[b] + 1 >= o.maxNew) st.done[b] = 1;
  }
}
