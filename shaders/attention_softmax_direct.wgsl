// attention_softmax_direct: the row softmax of causal attention's CPU-adapter variant (see
// attentionForwardSteps in src/gpu/ops/attention.ts, which brackets it with two products
// through shaders/matmul_direct.wgsl: S = scale * Q K^T before, out = P V after).
//   att[r, j] = S (scaled scores) on entry; on exit P[r, j] = exp(S[r, j] - lse[r]) for j <= t,
//   exactly 0 for j > t (the products after it skip those terms only per 8-block, so the zeros
//   matter), where row r = (b * NH + h) * T + t;
//   lse[r] = logsumexp_{j <= t} S[r, j]   (lse is (B, NH, T), the flash kernel's layout)
// Accumulation: att and lse overwritten (`=`). Entries j > t of S are never read (the scores
// product leaves blocks above the diagonal unwritten).
// One invocation per row, no workgroup memory: the design for CPU drivers (SwiftShader), where
// a row of at most a few hundred scores is cheaper than any barrier.
struct Params { rows: u32, T: u32 }

@group(0) @binding(0) var<storage, read_write> att: array<f32>;  // (B, NH, T, T)
@group(0) @binding(1) var<storage, read_write> lse: array<f32>;  // (B, NH, T)
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 16u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let r = gid.x + gid.y * nwg.x * WG;  // 2-D grid past 65535 workgroups
  if (r >= p.rows) { return; }
  let t = r % p.T;
  let base = r * p.T;
  var m = att[base];
  for (var j = 1u; j <= t; j++) { m = max(m, att[base + j]); }
  var l = 0.0;
  for (var j = 0u; j <= t; j++) {
    let e = exp(att[base + j] - m);
    att[base + j] = e;
    l += e;
  }
  // l >= 1 (the maximum contributes exp(0))
  let inv = 1.0 / l;
  for (var j = 0u; j <= t; j++) { att[base + j] *= inv; }
  for (var j = t + 1u; j < p.T; j++) { att[base + j] = 0.0; }
  lse[r] = m + log(l);
}
