// gelu_backward: dinp = gelu'(inp) * dout for gelu_forward.wgsl's tanh approximation,
//   u = sqrt(2/pi) * (x + 0.044715 x^3),  t = tanh(u)
//   gelu'(x) = 0.5 * (1 + t) + 0.5 * x * (1 - t^2) * sqrt(2/pi) * (1 + 3 * 0.044715 x^2)
// Accumulation rule: dinp = (an activation gradient; the MLP's matmul backward owns it).
// dinp may not alias dout or inp.
struct Params { n: u32 }

@group(0) @binding(0) var<storage, read_write> dinp: array<f32>;  // (n)
@group(0) @binding(1) var<storage, read> inp: array<f32>;         // (n)
@group(0) @binding(2) var<storage, read> dout: array<f32>;        // (n)
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 256u;
const SCALE: f32 = 0.7978845608028654; // sqrt(2 / pi)

// As in gelu_forward.wgsl: no inf / inf from exp-based tanh at large |x|.
fn safeTanh(u: f32) -> f32 {
  return tanh(clamp(u, -10.0, 10.0));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.n) {
    return;
  }
  let x = inp[i];
  let t = safeTanh(SCALE * (x + 0.044715 * x * x * x));
  // sech^2 = 1 - t^2 (no cosh, which overflows for |u| > 89)
  let local = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SCALE * (1.0 + 3.0 * 0.044715 * x * x);
  dinp[i] = local * dout[i];
}
