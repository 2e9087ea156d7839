// attention_decode_direct: the `direct` design of attention_decode.wgsl (same inputs, outputs and
// semantics), for software adapters where workgroup memory and barriers are slow: one invocation per
// (sequence b, head h) runs the whole online softmax over positions 0..s serially, keeping the
// head in registers. No workgroup memory, no barriers.
//   out[b, h*HS + d] = sum_t softmax_t(q . k_t * scale) v_t[d],  q = qkv[b, h*HS .. h*HS+HS-1]
// kv_cache_write must already have stored position s. s >= Tmax is clamped to Tmax - 1.
// Prefill (Q positions of every G-th sequence, Q = G = 1 when decoding): query row r = k*Q + i
// is sequence b = k*G at position s = step[b] + i.
//
// Two entry points. `main` (head size a multiple of 4, up to 64; C a multiple of 4): the head's
// query and output channels live in 16 named vec4 registers, unrolled by hand, each guarded by
// the override HS4 = HS / 4 (a constant once the pipeline is built, so the guards fold away).
// CPU drivers keep a dynamically indexed array in memory, loop trip counts and all: on
// SwiftShader this layout measured 1.7-2.9x faster than `main_scalar` at B = 64 with 33 cached
// positions and 2.5-2.9x with 97 (`npm run bench` prints the decode-attention table).
// `main_scalar`: any head size up to HMAX, one f32 array per head.

struct Params { R: u32, C: u32, NH: u32, Tmax: u32, scale: f32, Q: u32, G: u32 }  // R rows = sequences x Q

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (R, C)
@group(0) @binding(1) var<storage, read> qkv: array<f32>;        // (R, 3C) rows [q | k | v]
@group(0) @binding(2) var<storage, read> kcache: array<f32>;     // (B, NH, Tmax, HS)
@group(0) @binding(3) var<storage, read> vcache: array<f32>;     // (B, NH, Tmax, HS)
@group(0) @binding(4) var<storage, read> step: array<u32>;       // (B) current position of each sequence
@group(0) @binding(5) var<uniform> p: Params;


// the same bindings read as vec4 by `main` (each entry point uses one set)
@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> qkv4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> kcache4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> vcache4: array<vec4<f32>>;

override WG: u32 = 16u;
override HS4: u32 = 1u;  // head size / 4, at most 16 (main)
const HMAX: u32 = 64u;   // the largest head size main_scalar takes (the twin checks)

// The slots below repeat one line per slot k, which exists when HS4 > k.
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;  // (r, h) flattened, h fastest; 2-D grid past 65535 workgroups
  if (i >= p.R * p.NH) {
    return;
  }
  let r = i / p.NH;
  let h = i % p.NH;
  let b = (r / p.Q) * p.G;
  let s = min(step[b] + r % p.Q, p.Tmax - 1u);
  let qBase = (r * 3u * p.C + h * HS4 * 4u) / 4u;
  let cacheBase = (b * p.NH + h) * p.Tmax * HS4;
  // q<k>: the query's channels 4k .. 4k+3, scaled; a<k>: the output's, unnormalised
  var q0 = vec4<f32>(0.0); var a0 = vec4<f32>(0.0);
  var q1 = vec4<f32>(0.0); var a1 = vec4<f32>(0.0);
  var q2 = vec4<f32>(0.0); var a2 = vec4<f32>(0.0);
  var q3 = vec4<f32>(0.0); var a3 = vec4<f32>(0.0);
  var q4 = vec4<f32>(0.0); var a4 = vec4<f32>(0.0);
  var q5 = vec4<f32>(0.0); var a5 = vec4<f32>(0.0);
  var q6 = vec4<f32>(0.0); var a6 = vec4<f32>(0.0);
  var q7 = vec4<f32>(0.0); var a7 = vec4<f32>(0.0);
  var q8 = vec4<f32>(0.0); var a8 = vec4<f32>(0.0);
  var q9 = vec4<f32>(0.0); var a9 = vec4<f32>(0.0);
  var q10 = vec4<f32>(0.0); var a10 = vec4<f32>(0.0);
  var q11 = vec4<f32>(0.0); var a11 = vec4<f32>(0.0);
  var q12 = vec4<f32>(0.0); var a12 = vec4<f32>(0.0);
  var q13 = vec4<f32>(0.0); var a13 = vec4<f32>(0.0);
  var q14 = vec4<f32>(0.0); var a14 = vec4<f32>(0.0);
  var q15 = vec4<f32>(0.0); var a15 = vec4<f32>(0.0);
  if (HS4 > 0u) { q0 = qkv4[qBase + 0u] * p.scale; }
  if (HS4 > 1u) { q1 = qkv4[qBase + 1u] * p.scale; }
  if (HS4 > 2u) { q2 = qkv4[qBase + 2u] * p.scale; }
  if (HS4 > 3u) { q3 = qkv4[qBase + 3u] * p.scale; }
  if (HS4 > 4u) { q4 = qkv4[qBase + 4u] * p.scale; }
  if (HS4 > 5u) { q5 = qkv4[qBase + 5u] * p.scale; }
  if (HS4 > 6u) { q6 = qkv4[qBase + 6u] * p.scale; }
  if (HS4 > 7u) { q7 = qkv4[qBase + 7u] * p.scale; }
  if (HS4 > 8u) { q8 = qkv4[qBase + 8u] * p.scale; }
  if (HS4 > 9u) { q9 = qkv4[qBase + 9u] * p.scale; }
  if (HS4 > 10u) { q10 = qkv4[qBase + 10u] * p.scale; }
  if (HS4 > 11u) { q11 = qkv4[qBase + 11u] * p.scale; }
  if (HS4 > 12u) { q12 = qkv4[qBase + 12u] * p.scale; }
  if (HS4 > 13u) { q13 = qkv4[qBase + 13u] * p.scale; }
  if (HS4 > 14u) { q14 = qkv4[qBase + 14u] * p.scale; }
  if (HS4 > 15u) { q15 = qkv4[qBase + 15u] * p.scale; }
  var m = -3.0e38;  // running max; finite, WGSL has no portable infinity
  var l = 0.0;
  for (var t = 0u; t <= s; t++) {
    let row = cacheBase + t * HS4;
    var sc = q0 * kcache4[row];
    if (HS4 > 1u) { sc += q1 * kcache4[row + 1u]; }
    if (HS4 > 2u) { sc += q2 * kcache4[row + 2u]; }
    if (HS4 > 3u) { sc += q3 * kcache4[row + 3u]; }
    if (HS4 > 4u) { sc += q4 * kcache4[row + 4u]; }
    if (HS4 > 5u) { sc += q5 * kcache4[row + 5u]; }
    if (HS4 > 6u) { sc += q6 * kcache4[row + 6u]; }
    if (HS4 > 7u) { sc += q7 * kcache4[row + 7u]; }
    if (HS4 > 8u) { sc += q8 * kcache4[row + 8u]; }
    if (HS4 > 9u) { sc += q9 * kcache4[row + 9u]; }
    if (HS4 > 10u) { sc += q10 * kcache4[row + 10u]; }
    if (HS4 > 11u) { sc += q11 * kcache4[row + 11u]; }
    if (HS4 > 12u) { sc += q12 * kcache4[row + 12u]; }
    if (HS4 > 13u) { sc += q13 * kcache4[row + 13u]; }
    if (HS4 > 14u) { sc += q14 * kcache4[row + 14u]; }
    if (HS4 > 15u) { sc += q15 * kcache4[row + 15u]; }
    let score = sc.x + sc.y + sc.z + sc.w;
    let mNew = max(m, score);
    let alpha = exp(m - mNew);
    let w = exp(score - mNew);
    l = l * alpha + w;
    if (HS4 > 0u) { a0 = a0 * alpha + w * vcache4[row + 0u]; }
    if (HS4 > 1u) { a1 = a1 * alpha + w * vcache4[row + 1u]; }
    if (HS4 > 2u) { a2 = a2 * alpha + w * vcache4[row + 2u]; }
    if (HS4 > 3u) { a3 = a3 * alpha + w * vcache4[row + 3u]; }
    if (HS4 > 4u) { a4 = a4 * alpha + w * vcache4[row + 4u]; }
    if (HS4 > 5u) { a5 = a5 * alpha + w * vcache4[row + 5u]; }
    if (HS4 > 6u) { a6 = a6 * alpha + w * vcache4[row + 6u]; }
    if (HS4 > 7u) { a7 = a7 * alpha + w * vcache4[row + 7u]; }
    if (HS4 > 8u) { a8 = a8 * alpha + w * vcache4[row + 8u]; }
    if (HS4 > 9u) { a9 = a9 * alpha + w * vcache4[row + 9u]; }
    if (HS4 > 10u) { a10 = a10 * alpha + w * vcache4[row + 10u]; }
    if (HS4 > 11u) { a11 = a11 * alpha + w * vcache4[row + 11u]; }
    if (HS4 > 12u) { a12 = a12 * alpha + w * vcache4[row + 12u]; }
    if (HS4 > 13u) { a13 = a13 * alpha + w * vcache4[row + 13u]; }
    if (HS4 > 14u) { a14 = a14 * alpha + w * vcache4[row + 14u]; }
    if (HS4 > 15u) { a15 = a15 * alpha + w * vcache4[row + 15u]; }
    m = mNew;
  }
  let outBase = (r * p.C + h * HS4 * 4u) / 4u;
  if (HS4 > 0u) { out4[outBase + 0u] = a0 / l; }
  if (HS4 > 1u) { out4[outBase + 1u] = a1 / l; }
  if (HS4 > 2u) { out4[outBase + 2u] = a2 / l; }
  if (HS4 > 3u) { out4[outBase + 3u] = a3 / l; }
  if (HS4 > 4u) { out4[outBase + 4u] = a4 / l; }
  if (HS4 > 5u) { out4[outBase + 5u] = a5 / l; }
  if (HS4 > 6u) { out4[outBase + 6u] = a6 / l; }
  if (HS4 > 7u) { out4[outBase + 7u] = a7 / l; }
  if (HS4 > 8u) { out4[outBase + 8u] = a8 / l; }
  if (HS4 > 9u) { out4[outBase + 9u] = a9 / l; }
  if (HS4 > 10u) { out4[outBase + 10u] = a10 / l; }
  if (HS4 > 11u) { out4[outBase + 11u] = a11 / l; }
  if (HS4 > 12u) { out4[outBase + 12u] = a12 / l; }
  if (HS4 > 13u) { out4[outBase + 13u] = a13 / l; }
  if (HS4 > 14u) { out4[outBase + 14u] = a14 / l; }
  if (HS4 > 15u) { out4[outBase + 15u] = a15 / l; }
}

@compute @workgroup_size(WG)
fn main_scalar(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
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
