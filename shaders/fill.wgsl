// fill: out[i] = value over n elements (zeroing gradient buffers inside a step's command
// buffer, where clearBuffer would need a pass break).
// Entry `main_vec4` takes four elements per invocation and needs n % 4 == 0.
struct Params { n: u32, value: f32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;         // (n)
@group(0) @binding(1) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;  // (n / 4)

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // 2-D grid: n may exceed 65535 workgroups
  if (i < p.n) {
    out[i] = p.value;
  }
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < p.n / 4u) {
    out4[i] = vec4<f32>(p.value);
  }
}
