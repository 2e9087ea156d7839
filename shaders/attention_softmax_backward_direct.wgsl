// attention_softmax_backward_direct: the row step of causal attention's CPU-adapter backward (see
// attentionBackward in src/gpu/ops/attention.ts: S = scale * Q K^T and dP = dO V^T come before
// it, dV = P^T dO, dQ = scale * dS K and dK = scale * dS^T Q after it, all through
// shaders/matmul_direct.wgsl). For row r = (b * NH + h) * T + t:
//   P[j]  = exp(S[j] - lse[r])   for j <= t, else 0   (recomputed from the forward's lse)
//   D     = sum_{j <= t} P[j] dP[j]                     (= rowsum(dO * O), the softmax term)
//   dS[j] = P[j] (dP[j] - D)     for j <= t, else 0
// Accumulation: att (S -> P) and datt (dP -> dS) overwritten in place (`=`); the zeros above the
// diagonal matter (the products after it skip those terms only per 8-block). Entries j > t of
// S and dP are never read.
// One invocation per row, no workgroup memory: the design for CPU drivers (SwiftShader).
struct Params { rows: u32, T: u32 }

@group(0) @binding(0) var<storage, read_write> att: array<f32>;   // (B, NH, T, T): S in, P out
@group(0) @binding(1) var<storage, read_write> datt: array<f32>;  // (B, NH, T, T): dP in, dS out
@group(0) @binding(2) var<storage, read> lse: array<f32>;         // (B, NH, T) from the forward
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 16u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let r = gid.x + gid.y * nwg.x * WG;  // 2-D grid past 65535 workgroups
  if (r >= p.rows) { return; }
  let t = r % p.T;
  let base = r * p.T;
  let L = lse[r];
  var D = 0.0;
  for (var j = 0u; j <= t; j++) {
    let pj = exp(att[base + j] - L);
    att[base + j] = pj;
    D += pj * datt[base + j];
  }
  for (var j = 0u; j <= t; j++) { datt[base + j] = att[base + j] * (datt[base + j] - D); }
  for (var j = t + 1u; j < p.T; j++) {
    att[base + j] = 0.0;
    datt[base + j] = 0.0;
  }
}
