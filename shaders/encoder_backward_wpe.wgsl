// encoder_backward_wpe: the position-embedding gradient, dwpe[t, c] += sum_b dout[b, t, c]
// (rows t >= T of dwpe are untouched). One invocation per (t, c), summing b in order.
// Accumulation rule: dwpe += (a parameter gradient).
// Entry `main_vec4` takes four channels per invocation and needs C % 4 == 0.
struct Params { B: u32, T: u32, C: u32 }

@group(0) @binding(0) var<storage, read_write> dwpe: array<f32>;         // (Tmax, C)
@group(0) @binding(1) var<storage, read> dout: array<f32>;               // (B, T, C)
@group(0) @binding(2) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> dwpe4: array<vec4<f32>>;  // (Tmax, C/4)
@group(0) @binding(1) var<storage, read> dout4: array<vec4<f32>>;        // (B, T, C/4)

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // i = t * C + c
  let TC = p.T * p.C;
  if (i >= TC) {
    return;
  }
  var acc = 0.0;
  for (var b = 0u; b < p.B; b++) {
    acc += dout[b * TC + i];
  }
  dwpe[i] += acc;
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let TC4 = p.T * p.C / 4u;
  if (i >= TC4) {
    return;
  }
  var acc = vec4<f32>(0.0);
  for (var b = 0u; b < p.B; b++) {
    acc += dout4[b * TC4 + i];
  }
  dwpe4[i] += acc;
}
