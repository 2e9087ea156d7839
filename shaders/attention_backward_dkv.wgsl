// attention_backward_dkv: the key/value half of the causal attention backward (FlashAttention-2).
// Accumulation: dqkv's k and v channels `=` (overwritten). Runs after attention_backward_dq,
// which wrote dpre (D) and dqkv's q channels.
//   P_ij  = exp(q_i . k_j * scale - lse_i)             (recomputed, never stored)
//   dv_j  = sum_{i >= j} P_ij dout_i
//   dS_ij = P_ij * (dout_i . v_j - D_i)
//   dk_j  = scale * sum_{i >= j} dS_ij q_i
// One workgroup = WG key rows of one (b, h); one invocation = one key row (k, v, dk, dv in
// registers); query tiles of TILE rows (q, dout, lse, D) in workgroup memory. Query tiles
// that end before the workgroup's first key are fully masked and skipped.
// Grid: (ceil(T / WG), NH, B).

struct Params { B: u32, T: u32, C: u32, NH: u32, HS: u32 }

@group(0) @binding(0) var<storage, read_write> dqkv: array<f32>; // (B, T, 3C); k and v channels written here
@group(0) @binding(1) var<storage, read> dout: array<f32>;       // (B, T, C)
@group(0) @binding(2) var<storage, read> qkv: array<f32>;        // (B, T, 3C)
@group(0) @binding(3) var<storage, read> lse: array<f32>;        // (B, NH, T) from the forward
@group(0) @binding(4) var<storage, read> dpre: array<f32>;       // (B, NH, T): D from attention_backward_dq
@group(0) @binding(5) var<uniform> p: Params;

override WG: u32 = 32u;    // key rows per workgroup (= invocations)
override TILE: u32 = 16u;  // queries per staged tile
override HS4: u32 = 8u;  // vec4 registers per head row: >= ceil(HS / 4), <= MAX_HS4 (lanes past HS are zero)

// Constant sizes for the private arrays; loops run to the override bound (see attention_forward).
const MAX_HS4 = 16u;

var<workgroup> qtile: array<vec4<f32>, TILE * HS4>; // (TILE, HS) scaled queries
var<workgroup> dotile: array<vec4<f32>, TILE * HS4>; // (TILE, HS) dout rows
var<workgroup> ltile: array<f32, TILE>;              // (TILE) lse
var<workgroup> dtile: array<f32, TILE>;              // (TILE) D

fn load4qkv(base: u32, c4: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  for (var e = 0u; e < 4u; e++) {
    let c = c4 * 4u + e;
    if (c < p.HS) { v[e] = qkv[base + c]; }
  }
  return v;
}

fn load4dout(base: u32, c4: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  for (var e = 0u; e < 4u; e++) {
    let c = c4 * 4u + e;
    if (c < p.HS) { v[e] = dout[base + c]; }
  }
  return v;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = wid.z;
  let h = wid.y;
  let j = wid.x * WG + lid;
  let live = j < p.T;
  let C3 = 3u * p.C;
  let scale = inverseSqrt(f32(p.HS));
  let rowNH = (b * p.NH + h) * p.T;

  var k: array<vec4<f32>, MAX_HS4>;
  var v: array<vec4<f32>, MAX_HS4>;
  var dk: array<vec4<f32>, MAX_HS4>; // sum_i dS_ij q_i * scale (q is pre-scaled in qtile)
  var dv: array<vec4<f32>, MAX_HS4>;
  if (live) {
    let kbase = (b * p.T + j) * C3 + p.C + h * p.HS;
    for (var c4 = 0u; c4 < HS4; c4++) {
      k[c4] = load4qkv(kbase, c4);
      v[c4] = load4qkv(kbase + p.C, c4);
    }
  }

  // The first query tile holding a query >= this workgroup's first key.
  let firstKey = wid.x * WG;
  for (var i0 = (firstKey / TILE) * TILE; i0 < p.T; i0 += TILE) {
    workgroupBarrier();
    for (var x = lid; x < TILE * HS4; x += WG) {
      let i = i0 + x / HS4;
      var qv = vec4<f32>(0.0);
      var dov = vec4<f32>(0.0);
      if (i < p.T) {
        qv = load4qkv((b * p.T + i) * C3 + h * p.HS, x % HS4) * scale;
        dov = load4dout((b * p.T + i) * p.C + h * p.HS, x % HS4);
      }
      qtile[x] = qv;
      dotile[x] = dov;
    }
    for (var x = lid; x < TILE; x += WG) {
      let i = i0 + x;
      ltile[x] = select(0.0, lse[rowNH + min(i, p.T - 1u)], i < p.T);
      dtile[x] = select(0.0, dpre[rowNH + min(i, p.T - 1u)], i < p.T);
    }
    workgroupBarrier();

    for (var r = 0u; r < TILE; r++) {
      let i = i0 + r;
      var s = 0.0;
      var dp = 0.0;
      for (var c4 = 0u; c4 < HS4; c4++) {
        s += dot(qtile[r * HS4 + c4], k[c4]);
        dp += dot(dotile[r * HS4 + c4], v[c4]);
      }
      // select, not a branch on exp: masked scores may overflow exp and must still give 0.
      let pij = select(0.0, exp(s - ltile[r]), i >= j && i < p.T);
      let ds = pij * (dp - dtile[r]);
      for (var c4 = 0u; c4 < HS4; c4++) {
        dv[c4] += pij * dotile[r * HS4 + c4];
        dk[c4] += ds * qtile[r * HS4 + c4];
      }
    }
  }

  if (live) {
    let kbase = (b * p.T + j) * C3 + p.C + h * p.HS;
    for (var c4 = 0u; c4 < HS4; c4++) {
      for (var e = 0u; e < 4u; e++) {
        let c = c4 * 4u + e;
        if (c < p.HS) {
          dqkv[kbase + c] = dk[c4][e];
          dqkv[kbase + p.C + c] = dv[c4][e];
        }
      }
    }
  }
}
