// sample_step: the fused sampling step of decoding. For the position t = s + 1 (s = step[b], the sequence's own position)
// of each sequence b with t < Tmax and done[b] == 0:
//   - t < promptLen[b] (teacher forcing): the prompt token stays; logp = entropy = 0 there;
//   - otherwise draws y from the sampling distribution q = softmax(logits[b] / temperature)
//     restricted to the top-k tokens (topK = 0: off), then to the smallest top-p nucleus of
//     those (cumulative probability >= topP, at least one token; topP >= 1: off), renormalised;
//     writes tokens[b, t] = y, logp[b, t] = log pi(y) and entropy[b, t] = -sum pi log pi of the
//     policy's full temperature-scaled distribution pi = softmax(logits[b] / temperature) (not
//     of the renormalised nucleus q: the trainer's log pi is the full softmax, so the importance
//     ratio is exactly 1 before any update, as in veRL and TRL; LOOPS.md section 0 defines the
//     entropy metric on pi), and sets done[b] = 1 when y == eos or t - promptLen[b] + 1 >= maxNew.
//   temperature == 0 is greedy: the argmax (lowest index on ties), logp = entropy = 0.
// Rows whose sequence is done or past Tmax are untouched.
//
// One workgroup per sequence, no sort: invocations own tokens i = tid + k*WG (k < TPT) and rank
// each one against the whole (workgroup-staged) row in O(V): rank_i = #{j before i} with
// "before" = larger scaled logit, lower index on ties (so ranks are unique and top-k, top-p
// and the argmax are deterministic), and the exclusive mass S_i = sum_{j before i} e_j,
// e_j = exp(z_j - max z). Every S_i sums the same terms in index order, one a superset of the
// other, so S is monotone in rank even in f32 and the top-p set is a prefix in rank order:
//   kept_i = rank_i < K and S_i < topP * Z_K,   Z_K = sum_{rank < K} e
// The draw takes the kept token of least rank with S_i + e_i > u * Z_n (Z_n = kept mass).
// Each reduction is one barrier: every invocation writes a partial, then each reads all WG
// partials in the same order (identical results everywhere, no tree of barriers). Cost per
// sequence O(V^2 / WG) arithmetic and six barriers; V <= TPT * WG.
//
struct Params {
  B: u32, V: u32, Tmax: u32, topK: u32,
  temperature: f32, topP: f32, seed: u32, eos: u32,
  maxNew: u32,
}

@group(0) @binding(0) var<storage, read_write> tokens: array<u32>;   // (B, Tmax)
@group(0) @binding(1) var<storage, read_write> logp: array<f32>;     // (B, Tmax)
@group(0) @binding(2) var<storage, read_write> entropy: array<f32>;  // (B, Tmax)
@group(0) @binding(3) var<storage, read_write> done: array<u32>;     // (B)
@group(0) @binding(4) var<storage, read> logits: array<f32>;         // (B, V)
@group(0) @binding(5) var<storage, read> step: array<u32>;           // (B) current position of each sequence
@group(0) @binding(6) var<storage, read> promptLen: array<u32>;      // (B)
@group(0) @binding(7) var<uniform> p: Params;

override WG: u32 = 64u;    // invocations per sequence
override VCAP: u32 = 64u;  // >= V, a multiple of 4: size of the staged row
const TPT: u32 = 8u;       // tokens per invocation at most
const ACTIVE_SAMPLE: u32 = 2u;
const NEG: f32 = -3.0e38;  // finite: WGSL has no portable infinity
const NONE: u32 = 0xffffffffu;

// the staged row, 4 tokens per element (vec4 reads in the O(V) ranking loop); padding has
// z = -3e38 (never before a real token) and e = 0
var<workgroup> zs: array<vec4<f32>, VCAP / 4>;  // scaled logits
var<workgroup> es: array<vec4<f32>, VCAP / 4>;  // exp(z - max z)
var<workgroup> maxPart: array<f32, WG>;
var<workgroup> topKPart: array<f32, WG>;
var<workgroup> keptPart: array<f32, WG>;        // sum e over kept tokens (the draw's mass)
var<workgroup> fullPart: array<vec2<f32>, WG>;  // (sum e, sum e (z - max)) over every token
var<workgroup> wMode: u32;
var<workgroup> cutDraw: atomic<u32>;
var<workgroup> lastKept: atomic<u32>;

fn zAt(i: u32) -> f32 {
  return zs[i / 4u][i % 4u];
}

fn eAt(i: u32) -> f32 {
  return es[i / 4u][i % 4u];
}

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  // 32x32 -> 64-bit product from 16-bit halves (WGSL has no mul-high)
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  let hi = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
  return vec2<u32>(hi, a * b);
}

fn philox4x32(ctr: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var c = ctr;
  var k = key;
  for (var r = 0u; r < 10u; r++) {
    let m0 = mulhilo(0xD2511F53u, c.x);
    let m1 = mulhilo(0xCD9E8D57u, c.z);
    c = vec4<u32>(m1.x ^ c.y ^ k.x, m1.y, m0.x ^ c.w ^ k.y, m0.y);
    k += vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let b = wid.x;
  let t = step[b] + 1u;
  let row = b * p.Tmax + t;
  if (tid == 0u) {
    var mode = 0u;
    if (t < p.Tmax && done[b] == 0u) {
      if (t < promptLen[b]) {
        logp[row] = 0.0;
        entropy[row] = 0.0;
      } else {
        mode = ACTIVE_SAMPLE;
      }
    }
    wMode = mode;
    atomicStore(&cutDraw, NONE);
    atomicStore(&lastKept, 0u);
  }
  // uniform across the workgroup: every barrier below sits behind this return
  if (workgroupUniformLoad(&wMode) != ACTIVE_SAMPLE) {
    return;
  }

  let greedy = p.temperature <= 0.0;
  var localMax = NEG;
  for (var q = tid; q < VCAP / 4u; q += WG) {
    var z4 = vec4<f32>(NEG);
    for (var c = 0u; c < 4u; c++) {
      let i = 4u * q + c;
      if (i < p.V) {
        let raw = logits[b * p.V + i];
        z4[c] = select(raw / p.temperature, raw, greedy);
      }
    }
    zs[q] = z4;
    localMax = max(localMax, max(max(z4.x, z4.y), max(z4.z, z4.w)));
  }
  maxPart[tid] = localMax;
  workgroupBarrier();

  var mx = maxPart[0];
  for (var j = 1u; j < WG; j++) {
    mx = max(mx, maxPart[j]);
  }
  var full = vec2<f32>(0.0);
  for (var q = tid; q < VCAP / 4u; q += WG) {
    let z4 = zs[q];
    let valid = vec4<u32>(4u * q) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(p.V);
    let e4 = select(vec4<f32>(0.0), exp(z4 - mx), valid);
    es[q] = e4;
    full += vec2<f32>(dot(e4, vec4<f32>(1.0)), dot(e4, select(vec4<f32>(0.0), z4 - mx, valid)));
  }
  fullPart[tid] = full;
  workgroupBarrier();

  var kTop = p.V;
  if (p.topK > 0u && p.topK < p.V) {
    kTop = p.topK;
  }
  let nOwn = (p.V + WG - 1u) / WG;  // tokens per invocation, <= TPT
  var rank: array<u32, TPT>;
  var excl: array<f32, TPT>;
  var topKSum = 0.0;
  for (var k = 0u; k < nOwn; k++) {
    let i = tid + k * WG;
    if (i < p.V) {
      let zi = zAt(i);
      var r = vec4<u32>(0u);
      var s = vec4<f32>(0.0);
      for (var q = 0u; q < VCAP / 4u; q++) {
        let zj = zs[q];
        let j = vec4<u32>(4u * q) + vec4<u32>(0u, 1u, 2u, 3u);
        let ahead = (zj > vec4<f32>(zi)) | ((zj == vec4<f32>(zi)) & (j < vec4<u32>(i)));
        r += select(vec4<u32>(0u), vec4<u32>(1u), ahead);
        s += select(vec4<f32>(0.0), es[q], ahead);
      }
      rank[k] = r.x + r.y + r.z + r.w;
      // lanes summed in a fixed order: S stays monotone in rank (see the header)
      excl[k] = (s.x + s.y) + (s.z + s.w);
      if (rank[k] < kTop) {
        topKSum += eAt(i);
      }
    }
  }
  topKPart[tid] = topKSum;
  workgroupBarrier();

  var zK = 0.0;
  for (var j = 0u; j < WG; j++) {
    zK += topKPart[j];
  }
  let thr = p.topP * zK;
  var keep: array<bool, TPT>;
  var keptSum = 0.0;
  for (var k = 0u; k < nOwn; k++) {
    let i = tid + k * WG;
    // rank 0 is always kept (S = 0), even for a tiny topP
    keep[k] = i < p.V && rank[k] < kTop && (p.topP >= 1.0 || excl[k] < thr || rank[k] == 0u);
    if (keep[k]) {
      keptSum += eAt(i);
    }
  }
  keptPart[tid] = keptSum;
  workgroupBarrier();

  var zn = 0.0;
  for (var j = 0u; j < WG; j++) {
    zn += keptPart[j];
  }
  let bits = philox4x32(vec4<u32>(t, b, 0u, 0u), vec2<u32>(p.seed, 0u));
  let u = f32(bits.x >> 8u) * (1.0 / 16777216.0);
  let goal = u * zn;
  for (var k = 0u; k < nOwn; k++) {
    let i = tid + k * WG;
    if (keep[k] && eAt(i) > 0.0) {
      let incl = excl[k] + eAt(i);
      // should u * zn round up to zn, the token reaching zn is taken: never one of zero mass
      if (incl > goal || incl >= zn) {
        atomicMin(&cutDraw, rank[k]);
      }
      atomicMax(&lastKept, rank[k]);
    }
  }
  workgroupBarrier();

  var pick = atomicLoad(&cutDraw);
  if (pick == NONE) {
    pick = atomicLoad(&lastKept);
  }
  if (greedy) {
    pick = 0u;
  }
  for (var k = 0u; k < nOwn; k++) {
    let i = tid + k * WG;
    if (i < p.V && rank[k] == pick) {
      // pi_i = e_i / Z over every token; H = log Z - sum e (z - max) / Z
      var all = vec2<f32>(0.0);
      for (var j = 0u; j < WG; j++) {
        all += fullPart[j];
      }
      let logZ = log(all.x);
      tokens[row] = i;
      logp[row] = select((zAt(i) - mx) - logZ, 0.0, greedy);
      entropy[row] = select(logZ - all.y / all.x, 0.0, greedy);
      if (i == p.eos || t - promptLen[b] + 1u >= p.maxNew) {
        done[b] = 1u;
      }
    }
  }
}
