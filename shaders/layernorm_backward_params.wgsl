// layernorm_backward_params: the first of two passes of the weight and bias gradients, a
// column reduction over the N rows without float atomics or barriers. One invocation per
// (column c, chunk k of CHUNK rows) sums its chunk in row order; lanes of a warp take
// consecutive columns (coalesced). Grid (ceil(C / WG), K) with K = ceil(N / CHUNK).
//   part[0, k, c] = sum_{n in chunk k} dout[n, c] * (inp[n, c] - mean[n]) * rstd[n]
//   part[1, k, c] = sum_{n in chunk k} dout[n, c]
// Accumulation rule: part =. layernorm_backward_reduce.wgsl adds the K partials to the grads.
// Entry `main_vec4` takes four columns per invocation and needs C % 4 == 0.
struct Params { N: u32, C: u32, CHUNK: u32, K: u32 }

@group(0) @binding(0) var<storage, read_write> part: array<f32>;         // (2, K, C)
@group(0) @binding(1) var<storage, read> dout: array<f32>;               // (N, C)
@group(0) @binding(2) var<storage, read> inp: array<f32>;                // (N, C)
@group(0) @binding(3) var<storage, read> mean: array<f32>;               // (N)
@group(0) @binding(4) var<storage, read> rstd: array<f32>;               // (N)
@group(0) @binding(5) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> part4: array<vec4<f32>>;  // (2, K, C/4)
@group(0) @binding(1) var<storage, read> dout4: array<vec4<f32>>;        // (N, C/4)
@group(0) @binding(2) var<storage, read> inp4: array<vec4<f32>>;         // (N, C/4)

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let c = gid.x;
  let k = wid.y;
  if (c >= p.C) {
    return;
  }
  let end = min(p.N, (k + 1u) * p.CHUNK);
  var dw = 0.0;
  var db = 0.0;
  for (var n = k * p.CHUNK; n < end; n++) {
    let g = dout[n * p.C + c];
    dw += g * (inp[n * p.C + c] - mean[n]) * rstd[n];
    db += g;
  }
  part[k * p.C + c] = dw;
  part[(p.K + k) * p.C + c] = db;
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let C4 = p.C / 4u;
  let c = gid.x;
  let k = wid.y;
  if (c >= C4) {
    return;
  }
  let end = min(p.N, (k + 1u) * p.CHUNK);
  var dw = vec4<f32>(0.0);
  var db = vec4<f32>(0.0);
  for (var n = k * p.CHUNK; n < end; n++) {
    let g = dout4[n * C4 + c];
    dw += g * (inp4[n * C4 + c] - mean[n]) * rstd[n];
    db += g;
  }
  part4[k * C4 + c] = dw;
  part4[(p.K + k) * C4 + c] = db;
}
