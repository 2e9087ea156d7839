// residual_forward: out[i] = a[i] + b[i] over N elements.
// out (N) may alias neither input.
struct Params { N: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  // 2-D grid so N may exceed 65535 workgroups of WG
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < p.N) {
    out[i] = a[i] + b[i];
  }
}
