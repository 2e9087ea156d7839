// gelu_forward: GPT-2's tanh approximation, out = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
// over n elements (any shape, flattened). out may not alias inp (WebGPU forbids a buffer
// bound writable and read-only in one dispatch).
// Entry `main_vec4` takes four elements per invocation and needs n % 4 == 0.
struct Params { n: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;         // (n)
@group(0) @binding(1) var<storage, read> inp: array<f32>;               // (n)
@group(0) @binding(2) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;  // (n / 4)
@group(0) @binding(1) var<storage, read> inp4: array<vec4<f32>>;        // (n / 4)

override WG: u32 = 256u;
const SCALE: f32 = 0.7978845608028654; // sqrt(2 / pi)

// tanh(u) rounds to +-1 in f32 beyond |u| = 9.1; the clamp keeps drivers that evaluate tanh
// through exp(2u) from producing inf / inf = NaN at large |x|.
fn gelu(x: vec4<f32>) -> vec4<f32> {
  let u = SCALE * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + tanh(clamp(u, vec4<f32>(-10.0), vec4<f32>(10.0))));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // 2-D grid: n may exceed 65535 workgroups
  if (i < p.n) {
    out[i] = gelu(vec4<f32>(inp[i])).x;
  }
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < p.n / 4u) {
    out4[i] = gelu(inp4[i]);
  }
}
