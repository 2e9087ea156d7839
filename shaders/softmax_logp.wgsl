// softmax_logp: the fused log-softmax over the vocabulary that every loss uses, forward and
// backward in one kernel. One workgroup per row r < R (R = B*T positions).
//   z = logits[r, :] / temperature,  π = softmax(z)
//   logp[r]    = log π(targets[r])
//   entropy[r] = H_r = −Σ_v π_v log π_v
//   dlogits[r, v] = dJ/dlogits[r, v] of J = Σ_r ( w[r]·logp[r] + e[r]·H_r ):
//                 = ( w·(δ(v = target) − π_v) − e·π_v·(log π_v + H_r) ) / temperature
// Accumulation rule: dlogits is an activation gradient, written with `=` (overwritten).
// A row with w = e = 0 (masked) gets an exactly zero gradient row.
// targets[r] must be < V: a row whose target is out of range gets logp = NaN (and a NaN
// gradient row when its w ≠ 0) so a bad batch is loud, never a silently wrong loss.
// dlogits must be a different GPUBuffer from logits (WebGPU forbids a buffer bound both
// read-only and writable in one dispatch).
// Entry `main_direct` is the variant for software adapters (SwiftShader): one invocation per row walks
// all V columns, no workgroup memory and no barriers (a tree over 64 lanes costs far more than
// the row itself there). Same arithmetic, in column order.
struct Params {
  R: u32,
  V: u32,
  invT: f32, // 1 / temperature
}

@group(0) @binding(0) var<storage, read_write> logp: array<f32>;     // (R)
@group(0) @binding(1) var<storage, read_write> entropy: array<f32>;  // (R)
@group(0) @binding(2) var<storage, read_write> dlogits: array<f32>;  // (R, V); unused when !WITH_GRAD
@group(0) @binding(3) var<storage, read> logits: array<f32>;         // (R, V)
@group(0) @binding(4) var<storage, read> targets: array<u32>;        // (R)
@group(0) @binding(5) var<storage, read> w: array<f32>;              // (R) weight of logp in J
@group(0) @binding(6) var<storage, read> e: array<f32>;              // (R) weight of H in J
@group(0) @binding(7) var<uniform> p: Params;

override WG: u32 = 256u;          // a power of two (tree reduction)
override WITH_GRAD: bool = true;  // false: statistics only (evaluation, sampling metrics)
const CHUNK = 64u;                // main_direct: columns folded sequentially before a merge

// Running statistics of a set of shifted logits d_v = (l_v − lm)·invT (all ≤ 0):
//   lm = max raw logit, s = Σ exp(d_v), t = Σ exp(d_v)·d_v.
// s = 0 marks an empty set (a non-empty one holds its maximum, so s ≥ 1).
// Shifting by the raw maximum before scaling keeps the differences exact for close logits.
var<workgroup> sm_m: array<f32, WG>;
var<workgroup> sm_s: array<f32, WG>;
var<workgroup> sm_t: array<f32, WG>;

struct Stat { m: f32, s: f32, t: f32 }

// Union of two sets: rescale each to the larger maximum. Empty sides are skipped so no
// sentinel (−inf) ever enters the arithmetic.
fn merge(a: Stat, b: Stat) -> Stat {
  if (b.s == 0.0) { return a; }
  if (a.s == 0.0) { return b; }
  let m = max(a.m, b.m);
  let da = (a.m - m) * p.invT;
  let db = (b.m - m) * p.invT;
  let ea = exp(da);
  let eb = exp(db);
  return Stat(m, a.s * ea + b.s * eb, ea * (a.t + da * a.s) + eb * (b.t + db * b.s));
}

// A quiet NaN. The bits go through a `var` because a constant NaN is a shader-creation error.
fn nan() -> f32 {
  var bits = 0x7fc00000u;
  return bitcast<f32>(bits);
}

// Folds logit l into a Stat (one exp): the running maximum moves up when l exceeds it.
fn push(st: Stat, l: f32) -> Stat {
  if (l > st.m) {
    let d = (st.m - l) * p.invT;
    let r = exp(d);
    return Stat(l, st.s * r + 1.0, r * (st.t + d * st.s));
  }
  let d = (l - st.m) * p.invT;
  let x = exp(d);
  return Stat(st.m, st.s + x, st.t + x * d);
}

// dJ/dlogits[row, j] (see the header); 0 on masked rows, NaN on a bad target with w != 0.
fn gradAt(l: f32, j: u32, tgt: u32, bad: bool, wr: f32, er: f32, lm: f32, logS: f32, H: f32) -> f32 {
  if (wr == 0.0 && er == 0.0) { return 0.0; }
  let lpj = (l - lm) * p.invT - logS;
  let pj = exp(lpj);
  let hit = select(0.0, 1.0, j == tgt);
  var g = (wr * (hit - pj) - er * pj * (lpj + H)) * p.invT;
  if (bad && wr != 0.0) { g = nan(); }
  return g;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // 2-D grid so R may exceed 65535 rows; the test is uniform across the workgroup.
  let row = wid.x + wid.y * nwg.x;
  if (row >= p.R) { return; }
  let V = p.V;
  let base = row * V;

  // Pass 1: each invocation folds its strided columns into one Stat (one exp per element).
  var st = Stat(0.0, 0.0, 0.0);
  if (lid < V) {
    st = Stat(logits[base + lid], 1.0, 0.0);
  }
  for (var j = lid + WG; j < V; j += WG) { st = push(st, logits[base + j]); }
  sm_m[lid] = st.m;
  sm_s[lid] = st.s;
  sm_t[lid] = st.t;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      let o = merge(Stat(sm_m[lid], sm_s[lid], sm_t[lid]), Stat(sm_m[lid + stride], sm_s[lid + stride], sm_t[lid + stride]));
      sm_m[lid] = o.m;
      sm_s[lid] = o.s;
      sm_t[lid] = o.t;
    }
    workgroupBarrier();
  }
  let lm = sm_m[0];
  let logS = log(sm_s[0]);
  // H = −Σ π (d − log S) = log S − t / S
  let H = logS - sm_t[0] / sm_s[0];
  let tgt = targets[row];
  let bad = tgt >= V;
  let wr = w[row];
  let er = e[row];

  if (lid == 0u) {
    var lp = nan();
    if (!bad) {
      lp = (logits[base + tgt] - lm) * p.invT - logS;
    }
    logp[row] = lp;
    entropy[row] = H;
  }
  if (!WITH_GRAD) { return; }

  // Pass 2: the gradient, recomputing π from the logits rather than storing it.
  for (var j = lid; j < V; j += WG) {
    dlogits[base + j] = gradAt(logits[base + j], j, tgt, bad, wr, er, lm, logS, H);
  }
}

@compute @workgroup_size(WG)
fn main_direct(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = gid.x + gid.y * nwg.x * WG;
  if (row >= p.R) { return; }
  let V = p.V;
  let base = row * V;
  // Chunks of CHUNK columns merged into the total keep f32 rounding near that of a tree
  // (one long running sum drifts by ~1e-5 relative at V = 50k).
  var st = Stat(0.0, 0.0, 0.0);
  for (var j0 = 0u; j0 < V; j0 += CHUNK) {
    var c = Stat(logits[base + j0], 1.0, 0.0);
    for (var j = j0 + 1u; j < min(V, j0 + CHUNK); j++) { c = push(c, logits[base + j]); }
    st = merge(st, c);
  }
  let lm = st.m;
  let logS = log(st.s);
  let H = logS - st.t / st.s;
  let tgt = targets[row];
  let bad = tgt >= V;
  var lp = nan();
  if (!bad) { lp = (logits[base + tgt] - lm) * p.invT - logS; }
  logp[row] = lp;
  entropy[row] = H;
  if (!WITH_GRAD) { return; }
  let wr = w[row];
  let er = e[row];
  for (var j = 0u; j < V; j++) {
    dlogits[base + j] = gradAt(logits[base + j], j, tgt, bad, wr, er, lm, logS, H);
  }
}
