// fill: out[i] = value over n elements (zeroing gradient buffers inside a step's command
// buffer, where clearBuffer would need a pass break).
struct Params { n: u32, value: f32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (n)
@group(0) @binding(1) var<uniform> p: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // 2-D grid: n may exceed 65535 workgroups
  if (i < p.n) {
    out[i] = p.value;
  }
}
