// attention_decode_direct: the `direct` design of attention_decode.wgsl (same inputs, outputs and
// semantics), for CPU adapters where workgroup memory and barriers are slow: one invocation per
// (sequence b, head h) runs the whole online softmax over positions 0..s serially, keeping the
// head's output channels in registers (HS <= HMAX). No workgroup memory, no barriers.
//   out[b, h*HS + d] = sum_t softmax_t(q . k_t * scale) v_t[d],  q = qkv[b, h*HS .. h*HS+HS-1]
// kv_cache_write must already have stored position s. s >= Tmax is clamped to Tmax - 1.
// Prefill (Q positions of every G-th sequence, Q = G = 1 when decoding): query row r = k*Q + i
// is sequence b = k*G at position s = step[b] + i.
struct Params { R: u32, C: u32, NH: u32, Tmax: u32, scale: f32, Q: u32, G: u32 }  // R rows = sequences x Q

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (R, C)
@group(0) @binding(1) var<storage, read> qkv: array<f32>;        // (R, 3C) rows [q | k | v]
@group(0) @binding(2) var<storage, read> kcache: array<f32>;     // (B, NH, Tmax, HS)
@group(0) @binding(3) var<storage, read> vcache: array<f32>;     // (B, NH, Tmax, HS)
@group(0) @binding(4) var<storage, read> step: array<u32>;       // (B) current position of each sequence
@group(0) @binding(5) var<uniform> p: Params;

override WG: u32 = 16u;
const HMAX: u32 = 64u;  // the largest head size this design takes (the twin checks)

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;  // (r, h) flattened, h fastest; 2-D grid past 65535 workgroups
  if (i >= p.R * p.NH) {
    return;
  }
  let r = i / p.NH;
  let h = i % p.NH;
  let b = (r / p.Q) * p.G;
  let HS = p.C / p.NH;
  let s = min(step[b] + r % p.Q, p.Tmax - 1u);
  let qBase = r * 3u * p.C + h * HS;
  let cacheBase = (b * p.NH + h) * p.Tmax * HS;
  var q: array<f32, HMAX>;
  var acc: array<f32, HMAX>;
  for (var d = 0u; d < HS; d++) {
    q[d] = qkv[qBase + d] * p.scale;
    acc[d] = 0.0;
  }
  var m = -3.0e38;  // running max; finite, WGSL has no portable infinity
  var l = 0.0;
  for (var t = 0u; t <= s; t++) {
    let row = cacheBase + t * HS;
    var score = 0.0;
    for (var d = 0u; d < HS; d++) {
      score += q[d] * kcache[row + d];
    }
    let mNew = max(m, score);
    let alpha = exp(m - mNew);
    let w = exp(score - mNew);
    l = l * alpha + w;
    for (var d = 0u; d < HS; d++) {
      acc[d] = acc[d] * alpha + w * vcache[row + d];
    }
    m = mNew;
  }
  let outBase = r * p.C + h * HS;
  for (var d = 0u; d < HS; d++) {
    out[outBase + d] = acc[d] / l;
  }
}
