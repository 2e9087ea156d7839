// layernorm_backward_dinp: the input gradient of layernorm_forward, one row of C per LANES
// invocations (ROWS rows per workgroup, 2-D grid; LANES = 1 needs no barriers).
//   norm  = (inp - mean) * rstd,  dnorm = weight * dout
//   dinp += (dnorm - mean_C(dnorm) - norm * mean_C(dnorm * norm)) * rstd
// Accumulation rule: dinp += (it is the residual stream's gradient, which already holds the
// gradient of the skip connection). dweight / dbias are in layernorm_backward_params.wgsl.
// Entry `main_vec4` needs C % 4 == 0, as in layernorm_forward.wgsl.
struct Params { N: u32, C: u32 }

@group(0) @binding(0) var<storage, read_write> dinp: array<f32>;          // (N, C)
@group(0) @binding(1) var<storage, read> dout: array<f32>;                // (N, C)
@group(0) @binding(2) var<storage, read> inp: array<f32>;                 // (N, C)
@group(0) @binding(3) var<storage, read> weight: array<f32>;              // (C)
@group(0) @binding(4) var<storage, read> mean: array<f32>;                // (N)
@group(0) @binding(5) var<storage, read> rstd: array<f32>;                // (N)
@group(0) @binding(6) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> dinp4: array<vec4<f32>>;   // (N, C/4)
@group(0) @binding(1) var<storage, read> dout4: array<vec4<f32>>;         // (N, C/4)
@group(0) @binding(2) var<storage, read> inp4: array<vec4<f32>>;          // (N, C/4)
@group(0) @binding(3) var<storage, read> weight4: array<vec4<f32>>;       // (C/4)

override LANES: u32 = 32u;  // power of two; LANES * ROWS <= 256
override ROWS: u32 = 8u;

var<workgroup> red: array<vec2<f32>, 256>;

// Sum of v over the LANES invocations of row slot ly. Every invocation of the workgroup calls it.
fn rowSum2(v: vec2<f32>, lx: u32, ly: u32) -> vec2<f32> {
  if (LANES == 1u) {
    return v; // one invocation per row: nothing to share, no barriers
  }
  let i = ly * LANES + lx;
  red[i] = v;
  workgroupBarrier();
  for (var s = LANES / 2u; s > 0u; s >>= 1u) {
    if (lx < s) {
      red[i] += red[i + s];
    }
    workgroupBarrier();
  }
  return red[ly * LANES];
}

@compute @workgroup_size(LANES, ROWS)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = (wid.x + wid.y * nwg.x) * ROWS + lid.y;
  let live = row < p.N; // rows past N still join the barriers
  let C = p.C;
  let base = row * C;
  var m = 0.0;
  var r = 0.0;
  // x: sum of dnorm, y: sum of dnorm * norm
  var s = vec2<f32>(0.0);
  if (live) {
    m = mean[row];
    r = rstd[row];
    for (var c = lid.x; c < C; c += LANES) {
      let norm = (inp[base + c] - m) * r;
      let dnorm = weight[c] * dout[base + c];
      s += vec2<f32>(dnorm, dnorm * norm);
    }
  }
  let means = rowSum2(s, lid.x, lid.y) / f32(C);
  if (!live) {
    return;
  }
  for (var c = lid.x; c < C; c += LANES) {
    let norm = (inp[base + c] - m) * r;
    let dnorm = weight[c] * dout[base + c];
    dinp[base + c] += (dnorm - means.x - norm * means.y) * r;
  }
}

@compute @workgroup_size(LANES, ROWS)
fn main_vec4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = (wid.x + wid.y * nwg.x) * ROWS + lid.y;
  let live = row < p.N;
  let C4 = p.C / 4u;
  let base = row * C4;
  var m = 0.0;
  var r = 0.0;
  var s = vec2<f32>(0.0);
  if (live) {
    m = mean[row];
    r = rstd[row];
    for (var c = lid.x; c < C4; c += LANES) {
      let norm = (inp4[base + c] - m) * r;
      let dnorm = weight4[c] * dout4[base + c];
      s += vec2<f32>(dnorm.x + dnorm.y + dnorm.z + dnorm.w, dot(dnorm, norm));
    }
  }
  let means = rowSum2(s, lid.x, lid.y) / f32(p.C);
  if (!live) {
    return;
  }
  for (var c = lid.x; c < C4; c += LANES) {
    let norm = (inp4[base + c] - m) * r;
    let dnorm = weight4[c] * dout4[base + c];
    dinp4[base + c] += (dnorm - means.x - norm * means.y) * r;
  }
}
