// attention_backward_dq: the query half of the causal attention backward (FlashAttention-2).
// Accumulation: dqkv's q channels `=` (overwritten); dpre `=`. Runs before
// attention_backward_dkv, which reads dpre and writes dqkv's k and v channels.
//   dpre[b, h, t] = D_t = sum_c dout[b, t, h*HS + c] * out[b, t, h*HS + c]
//   P_tj  = exp(q_t . k_j * scale - lse_t)            (recomputed, never stored)
//   dS_tj = P_tj * (dout_t . v_j - D_t)
//   dq_t  = scale * sum_{j <= t} dS_tj k_j
// D is the softmax-backward row term; computing it here, by the invocation that owns the row,
// replaces FlashAttention-2's separate preprocessing pass.
// One workgroup = WG query rows of one (b, h); one invocation = one query row (q, dout and
// dq in registers); key/value tiles of TILE rows in workgroup memory; key tiles past the
// workgroup's last row are skipped. Grid: (ceil(T / WG), NH, B).

struct Params { B: u32, T: u32, C: u32, NH: u32, HS: u32 }

@group(0) @binding(0) var<storage, read_write> dqkv: array<f32>; // (B, T, 3C); q channels written here
@group(0) @binding(1) var<storage, read_write> dpre: array<f32>; // (B, NH, T): D
@group(0) @binding(2) var<storage, read> dout: array<f32>;       // (B, T, C)
@group(0) @binding(3) var<storage, read> qkv: array<f32>;        // (B, T, 3C)
@group(0) @binding(4) var<storage, read> out: array<f32>;        // (B, T, C) from the forward
@group(0) @binding(5) var<storage, read> lse: array<f32>;        // (B, NH, T) from the forward
@group(0) @binding(6) var<uniform> p: Params;

override WG: u32 = 32u;    // query rows per workgroup (= invocations)
override TILE: u32 = 16u;  // keys per staged tile
override HS4: u32 = 8u;  // vec4 registers per head row: >= ceil(HS / 4), <= MAX_HS4 (lanes past HS are zero)

// Constant sizes for the private arrays; loops run to the override bound (see attention_forward).
const MAX_HS4 = 16u;

var<workgroup> ktile: array<vec4<f32>, TILE * HS4>; // (TILE, HS)
var<workgroup> vtile: array<vec4<f32>, TILE * HS4>; // (TILE, HS)

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

fn load4out(base: u32, c4: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  for (var e = 0u; e < 4u; e++) {
    let c = c4 * 4u + e;
    if (c < p.HS) { v[e] = out[base + c]; }
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
  var dO: array<vec4<f32>, MAX_HS4>;  // dout row
  var dq: array<vec4<f32>, MAX_HS4>;  // sum_j dS_tj k_j
  var D = 0.0;
  var L = 0.0;
  if (live) {
    let qbase = (b * p.T + t) * C3 + h * p.HS;
    let obase = (b * p.T + t) * p.C + h * p.HS;
    for (var c4 = 0u; c4 < HS4; c4++) {
      q[c4] = load4qkv(qbase, c4) * scale;
      dO[c4] = load4dout(obase, c4);
      D += dot(dO[c4], load4out(obase, c4));
    }
    L = lse[(b * p.NH + h) * p.T + t];
    dpre[(b * p.NH + h) * p.T + t] = D;
  }

  let rowEnd = min(p.T, (wid.x + 1u) * WG);
  for (var k0 = 0u; k0 < rowEnd; k0 += TILE) {
    workgroupBarrier();
    for (var i = lid; i < TILE * HS4; i += WG) {
      let j = k0 + i / HS4;
      var kv = vec4<f32>(0.0);
      var vv = vec4<f32>(0.0);
      if (j < p.T) {
        let kbase = (b * p.T + j) * C3 + p.C + h * p.HS;
        kv = load4qkv(kbase, i % HS4);
        vv = load4qkv(kbase + p.C, i % HS4);
      }
      ktile[i] = kv;
      vtile[i] = vv;
    }
    workgroupBarrier();

    for (var j = 0u; j < TILE; j++) {
      var s = 0.0;
      var dp = 0.0;
      for (var c4 = 0u; c4 < HS4; c4++) {
        s += dot(q[c4], ktile[j * HS4 + c4]);
        dp += dot(dO[c4], vtile[j * HS4 + c4]);
      }
      // select, not a branch on exp: masked scores may overflow exp and must still give 0.
      let pj = select(0.0, exp(s - L), k0 + j <= t);
      let ds = pj * (dp - D);
      for (var c4 = 0u; c4 < HS4; c4++) { dq[c4] += ds * ktile[j * HS4 + c4]; }
    }
  }

  if (live) {
    let qbase = (b * p.T + t) * C3 + h * p.HS;
    for (var c4 = 0u; c4 < HS4; c4++) {
      let g = dq[c4] * scale;
      for (var e = 0u; e < 4u; e++) {
        let c = c4 * 4u + e;
        if (c < p.HS) { dqkv[qbase + c] = g[e]; }
      }
    }
  }
}
