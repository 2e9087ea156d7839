// layernorm_backward_reduce: the second pass of the weight and bias gradients; adds the K
// chunk partials of layernorm_backward_params.wgsl in chunk order (deterministic).
//   dweight[c] += sum_k part[0, k, c],  dbias[c] += sum_k part[1, k, c]
// Accumulation rule: dweight +=, dbias += (parameter gradients).
struct Params { C: u32, K: u32 }

@group(0) @binding(0) var<storage, read_write> dweight: array<f32>;  // (C)
@group(0) @binding(1) var<storage, read_write> dbias: array<f32>;    // (C)
@group(0) @binding(2) var<storage, read> part: array<f32>;           // (2, K, C)
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let c = gid.x + gid.y * nwg.x * WG;
  if (c >= p.C) {
    return;
  }
  var dw = 0.0;
  var db = 0.0;
  for (var k = 0u; k < p.K; k++) {
    dw += part[k * p.C + c];
    db += part[(p.K + k) * p.C + c];
  }
  dweight[c] += dw;
  dbias[c] += db;
}
