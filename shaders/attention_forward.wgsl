// attention_forward: causal multi-head self-attention, FlashAttention-2 style.
//   out[b, t, h*HS + c] = sum_{j <= t} softmax_j(q_t . k_j / sqrt(HS)) v_j[c]
//   lse[b, h, t]        = logsumexp_{j <= t}(q_t . k_j / sqrt(HS))   (cached for the backward)
// One workgroup = WG query rows of one (b, h); one invocation = one query row, whose q and
// output accumulator live in registers. Key/value tiles of TILE rows are staged in workgroup
// memory and folded in with an online softmax (running max m, running sum l), so the T x T
// score matrix never exists. Key tiles past the workgroup's last row are fully masked and
// never loaded.
// Grid: (ceil(T / WG), NH, B).

struct Params { B: u32, T: u32, C: u32, NH: u32, HS: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>; // (B, T, C), heads merged
@group(0) @binding(1) var<storage, read_write> lse: array<f32>; // (B, NH, T)
@group(0) @binding(2) var<storage, read> qkv: array<f32>;       // (B, T, 3C): [q | k | v] per row
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 32u;    // query rows per workgroup (= invocations)
override TILE: u32 = 16u;  // keys per staged tile, <= MAX_TILE
override HS4: u32 = 8u;  // vec4 registers per head row: >= ceil(HS / 4), <= MAX_HS4 (lanes past HS are zero)

// Private arrays need constant sizes; loops run to the override bounds, which Dawn substitutes
// at pipeline creation, so the loops unroll and the arrays stay in registers.
const MAX_HS4 = 16u;
const MAX_TILE = 32u;
// Finite "minus infinity": WGSL has no infinity literal, and exp(NEG - m) is exactly 0.
const NEG = -1e30;

var<workgroup> ktile: array<vec4<f32>, TILE * HS4>; // (TILE, HS) keys of the current tile
var<workgroup> vtile: array<vec4<f32>, TILE * HS4>; // (TILE, HS) values of the current tile

// Channels 4*c4 .. 4*c4+3 of the head row starting at qkv[base]; zero past HS so padded
// lanes add nothing to dot products.
fn load4(base: u32, c4: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  for (var e = 0u; e < 4u; e++) {
    let c = c4 * 4u + e;
    if (c < p.HS) { v[e] = qkv[base + c]; }
  }
  return v;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = wid.z;
  let h = wid.y;
  let t = wid.x * WG + lid;
  let live = t < p.T;
  let C3 = 3u * p.C;
  let scale = inverseSqrt(f32(p.HS));

  var q: array<vec4<f32>, MAX_HS4>;   // scaled query row
  var acc: array<vec4<f32>, MAX_HS4>; // unnormalised output row
  if (live) {
    let qbase = (b * p.T + t) * C3 + h * p.HS;
    for (var c4 = 0u; c4 < HS4; c4++) { q[c4] = load4(qbase, c4) * scale; }
  }
  var m = NEG;
  var l = 0.0;

  // Keys at or past rowEnd are masked for every row of this workgroup: skip their tiles.
  let rowEnd = min(p.T, (wid.x + 1u) * WG);
  for (var k0 = 0u; k0 < rowEnd; k0 += TILE) {
    workgroupBarrier(); // the previous tile is consumed
    for (var i = lid; i < TILE * HS4; i += WG) {
      let j = k0 + i / HS4;
      var kv = vec4<f32>(0.0);
      var vv = vec4<f32>(0.0);
      if (j < p.T) {
        let kbase = (b * p.T + j) * C3 + p.C + h * p.HS;
        kv = load4(kbase, i % HS4);
        vv = load4(kbase + p.C, i % HS4);
      }
      ktile[i] = kv;
      vtile[i] = vv;
    }
    workgroupBarrier();

    var s: array<f32, MAX_TILE>;
    var mNew = m;
    for (var j = 0u; j < TILE; j++) {
      var d = 0.0;
      for (var c4 = 0u; c4 < HS4; c4++) { d += dot(q[c4], ktile[j * HS4 + c4]); }
      s[j] = select(NEG, d, k0 + j <= t);
      mNew = max(mNew, s[j]);
    }
    // Rescale once per tile, not once per key (FlashAttention-2).
    let alpha = exp(m - mNew);
    l *= alpha;
    for (var c4 = 0u; c4 < HS4; c4++) { acc[c4] *= alpha; }
    for (var j = 0u; j < TILE; j++) {
      let pj = exp(s[j] - mNew);
      l += pj;
      for (var c4 = 0u; c4 < HS4; c4++) { acc[c4] += pj * vtile[j * HS4 + c4]; }
    }
    m = mNew;
  }

  if (live) {
    // Key 0 is never masked, so l >= 1 here.
    let inv = 1.0 / l;
    let obase = (b * p.T + t) * p.C + h * p.HS;
    for (var c4 = 0u; c4 < HS4; c4++) {
      let o = acc[c4] * inv;
      for (var e = 0u; e < 4u; e++) {
        let c = c4 * 4u + e;
        if (c < p.HS) { out[obase + c] = o[e]; }
      }
    }
    lse[(b * p.NH + h) * p.T + t] = m + log(l);
  }
}
