// accumulate: out[i] += a[i] over n elements (gradient accumulation on the residual stream).
// Accumulation rule: out +=. out may not alias a.
// Entry `main_vec4` takes four elements per invocation and needs n % 4 == 0.
struct Params { n: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;         // (n)
@group(0) @binding(1) var<storage, read> a: array<f32>;                 // (n)
@group(0) @binding(2) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;  // (n / 4)
@group(0) @binding(1) var<storage, read> a4: array<vec4<f32>>;          // (n / 4)

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // 2-D grid: n may exceed 65535 workgroups
  if (i < p.n) {
    out[i] += a[i];
  }
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < p.n / 4u) {
    out4[i] += a4[i];
  }
}
