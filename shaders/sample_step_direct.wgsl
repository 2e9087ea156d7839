// sample_step_direct: the `direct` design of sample_step.wgsl for software adapters (workgroup memory
// and barriers are slow there): one invocation per sequence does the whole step serially. It
// computes exactly what the tiled kernel computes, in the same order, so both draw the same
// token with the same log-probability and entropy: every sum is grouped as the tiled kernel's
// PART invocations group it (invocation j owns tokens j, j + PART, … and vec4 blocks j,
// j + PART, …; the partials are added in j order), and each token's exclusive mass S_i sums the
// vec4 blocks in index order, lanes combined as (x + y) + (z + w). See sample_step.wgsl for the
// semantics (teacher forcing through the prompt, top-k, top-p, Philox draw, log π and entropy of
// the full temperature-scaled softmax, done flags). V <= VMAX.
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

override WG: u32 = 16u;     // sequences per workgroup
override PART: u32 = 16u;   // the tiled kernel's invocations per sequence (its WG), whose sums this repeats
override VCAP: u32 = 64u;   // the tiled kernel's staged row length (>= V, a multiple of 4)
const VMAX: u32 = 256u;
const NEG: f32 = -3.0e38;
const NONE: u32 = 0xffffffffu;

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
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
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= p.B) {
    return;
  }
  let t = step[b] + 1u;
  let row = b * p.Tmax + t;
  if (t >= p.Tmax || done[b] != 0u) {
    return;
  }
  if (t < promptLen[b]) {
    logp[row] = 0.0;
    entropy[row] = 0.0;
    return;
  }
  let greedy = p.temperature <= 0.0;
  let nq = VCAP / 4u;
  var zs: array<vec4<f32>, VMAX / 4u>;
  var es: array<vec4<f32>, VMAX / 4u>;
  var mx = NEG;
  for (var q = 0u; q < nq; q++) {
    var z4 = vec4<f32>(NEG);
    for (var c = 0u; c < 4u; c++) {
      let i = 4u * q + c;
      if (i < p.V) {
        let raw = logits[b * p.V + i];
        z4[c] = select(raw / p.temperature, raw, greedy);
      }
    }
    zs[q] = z4;
    mx = max(mx, max(max(z4.x, z4.y), max(z4.z, z4.w)));
  }
  // e = exp(z - max); the full softmax's sums as the tiled kernel's partials: block q belongs to part q % PART
  var all = vec2<f32>(0.0);
  for (var j = 0u; j < PART; j++) {
    var part = vec2<f32>(0.0);
    for (var q = j; q < nq; q += PART) {
      let z4 = zs[q];
      let valid = vec4<u32>(4u * q) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(p.V);
      let e4 = select(vec4<f32>(0.0), exp(z4 - mx), valid);
      es[q] = e4;
      part += vec2<f32>(dot(e4, vec4<f32>(1.0)), dot(e4, select(vec4<f32>(0.0), z4 - mx, valid)));
    }
    all += part;
  }
  var kTop = p.V;
  if (p.topK > 0u && p.topK < p.V) {
    kTop = p.topK;
  }
  // each token's rank (tokens before it: larger scaled logit, lower index on ties) and exclusive
  // mass S_i (blocks in index order, lanes combined as (x + y) + (z + w))
  var ranks: array<u32, VMAX>;
  var excls: array<f32, VMAX>;
  for (var i = 0u; i < p.V; i++) {
    let zi = zs[i / 4u][i % 4u];
    var r = vec4<u32>(0u);
    var sm = vec4<f32>(0.0);
    for (var q = 0u; q < nq; q++) {
      let zj = zs[q];
      let j = vec4<u32>(4u * q) + vec4<u32>(0u, 1u, 2u, 3u);
      let ahead = (zj > vec4<f32>(zi)) | ((zj == vec4<f32>(zi)) & (j < vec4<u32>(i)));
      r += select(vec4<u32>(0u), vec4<u32>(1u), ahead);
      sm += select(vec4<f32>(0.0), es[q], ahead);
    }
    ranks[i] = r.x + r.y + r.z + r.w;
    excls[i] = (sm.x + sm.y) + (sm.z + sm.w);
  }
  // top-k mass: token i belongs to part i % PART; parts added in order
  var zK = 0.0;
  for (var j = 0u; j < PART; j++) {
    var part = 0.0;
    for (var i = j; i < p.V; i += PART) {
      if (ranks[i] < kTop) {
        part += es[i / 4u][i % 4u];
      }
    }
    zK += part;
  }
  let thr = p.topP * zK;
  // kept: in the top k and the top-p nucleus (rank 0 always, even for a tiny topP)
  var zn = 0.0;
  for (var j = 0u; j < PART; j++) {
    var part = 0.0;
    for (var i = j; i < p.V; i += PART) {
      if (ranks[i] < kTop && (p.topP >= 1.0 || excls[i] < thr || ranks[i] == 0u)) {
        part += es[i / 4u][i % 4u];
      }
    }
    zn += part;
  }
  let bits = philox4x32(vec4<u32>(t, b, 0u, 0u), vec2<u32>(p.seed, 0u));
  let u = f32(bits.x >> 8u) * (1.0 / 16777216.0);
  let goal = u * zn;
  var cut = NONE;
  var lastKept = 0u;
  for (var i = 0u; i < p.V; i++) {
    let e = es[i / 4u][i % 4u];
    let kept = ranks[i] < kTop && (p.topP >= 1.0 || excls[i] < thr || ranks[i] == 0u);
    if (kept && e > 0.0) {
      let incl = excls[i] + e;
      // should u * zn round up to zn, the token reaching zn is taken: never one of zero mass
      if (incl > goal || incl >= zn) {
        cut = min(cut, ranks[i]);
      }
      lastKept = max(lastKept, ranks[i]);
    }
  }
  var pick = cut;
  if (pick == NONE) {
    pick = lastKept;
  }
  if (greedy) {
    pick = 0u;
  }
  for (var i = 0u; i < p.V; i++) {
    if (ranks[i] == pick) {
      // pi_i = e_i / Z over every token; H = log Z - sum e (z - max) / Z
      let logZ = log(all.x);
      tokens[row] = i;
      logp[row] = select((zs[i / 4u][i % 4u] - mx) - logZ, 0.0, greedy);
      entropy[row] = select(logZ - all.y / all.x, 0.0, greedy);
      if (i == p.eos || t - promptLen[b] + 1u >= p.maxNew) {
        done[b] = 1u;
      }
      return;
    }
  }
}
