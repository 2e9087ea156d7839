// gelu_backward: dinp = gelu'(inp) * dout for gelu_forward.wgsl's tanh approximation,
//   u = sqrt(2/pi) * (x + 0.044715 x^3),  t = tanh(u)
//   gelu'(x) = 0.5 * (1 + t) + 0.5 * x * (1 - t^2) * sqrt(2/pi) * (1 + 3 * 0.044715 x^2)
// (sech^2 u written 1 - t^2: cosh overflows for |u| > 89).
// Accumulation rule: dinp = (an activation gradient). dinp may not alias dout or inp.
// Entry `main_vec4` takes four elements per invocation and needs n % 4 == 0.
struct Params { n: u32 }

@group(0) @binding(0) var<storage, read_write> dinp: array<f32>;         // (n)
@group(0) @binding(1) var<storage, read> inp: array<f32>;                // (n)
@group(0) @binding(2) var<storage, read> dout: array<f32>;               // (n)
@group(0) @binding(3) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> dinp4: array<vec4<f32>>;  // (n / 4)
@group(0) @binding(1) var<storage, read> inp4: array<vec4<f32>>;         // (n / 4)
@group(0) @binding(2) var<storage, read> dout4: array<vec4<f32>>;        // (n / 4)

override WG: u32 = 256u;
const SCALE: f32 = 0.7978845608028654; // sqrt(2 / pi)

fn geluGrad(x: vec4<f32>) -> vec4<f32> {
  let u = SCALE * (x + 0.044715 * x * x * x);
  let t = tanh(clamp(u, vec4<f32>(-10.0), vec4<f32>(10.0))); // as in gelu_forward.wgsl
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SCALE * (1.0 + 3.0 * 0.044715 * x * x);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // 2-D grid: n may exceed 65535 workgroups
  if (i < p.n) {
    dinp[i] = geluGrad(vec4<f32>(inp[i])).x * dout[i];
  }
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < p.n / 4u) {
    dinp4[i] = geluGrad(inp4[i]) * dout4[i];
  }
}
