// gelu_forward: GPT-2's tanh approximation, out = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
// over n elements (any shape, flattened). out may not alias inp (WebGPU forbids a buffer
// bound writable and read-only in one dispatch).
struct Params { n: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (n)
@group(0) @binding(1) var<storage, read> inp: array<f32>;        // (n)
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 256u;
const SCALE: f32 = 0.7978845608028654; // sqrt(2 / pi)

// tanh(u) saturates to +-1 in f32 beyond |u| = 9; clamping keeps drivers that evaluate tanh
// through exp(2u) from producing inf / inf = NaN at large |x|.
fn safeTanh(u: f32) -> f32 {
  return tanh(clamp(u, -10.0, 10.0));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // 2-D grid: n may exceed 65535 workgroups
  if (i >= p.n) {
    return;
  }
  let x = inp[i];
  out[i] = 0.5 * x * (1.0 + safeTanh(SCALE * (x + 0.044715 * x * x * x)));
}
