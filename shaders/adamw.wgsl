// adamw: one AdamW step over the flat parameter buffer (n floats; grads, m and v share its
// layout), with global-norm clipping and a guard against non-finite gradients.
//   s = maxGradNorm > 0 ? min(1, maxGradNorm / (sqrt(normSq) + 1e-6)) : 1
//   for trainable elements (flags bit0): g = s·grad;  m = b1·m + (1−b1)·g;  v = b2·v + (1−b2)·g²
//     param −= lr · ( (m/bc1) / (sqrt(v/bc2) + eps) + (flags bit1 ? weightDecay·param : 0) )
//   (decoupled weight decay, as PyTorch AdamW and llm.c; bc1 = 1−b1^t, bc2 = 1−b2^t)
// Frozen elements are never written, so they stay bit-identical. If normSq is NaN or ±Inf,
// nothing is written and status[0] = 1 (else 0): the step is rejected without a readback.
// params, m, v are updated in place; status is overwritten by invocation 0 alone.
struct Params {
  n: u32,
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weightDecay: f32,
  maxGradNorm: f32,  // 0 = no clipping
  bc1: f32,          // 1 − beta1^t
  bc2: f32,          // 1 − beta2^t
}

@group(0) @binding(0) var<storage, read_write> params: array<f32>;  // (n)
@group(0) @binding(1) var<storage, read_write> m: array<f32>;       // (n) first moment
@group(0) @binding(2) var<storage, read_write> v: array<f32>;       // (n) second moment
@group(0) @binding(3) var<storage, read_write> status: array<u32>;  // (1) 1 = step rejected
@group(0) @binding(4) var<storage, read> grads: array<f32>;         // (n)
@group(0) @binding(5) var<storage, read> flags: array<u32>;         // (n) bit0 trainable, bit1 decay
@group(0) @binding(6) var<storage, read> normSq: array<f32>;        // (1) Σ grads²
@group(0) @binding(7) var<uniform> p: Params;

override WG: u32 = 256u;

const TRAINABLE = 1u;
const DECAY = 2u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  // 2-D grid so n may exceed 65535 workgroups of WG
  let i = gid.x + gid.y * nwg.x * WG;
  let nsq = normSq[0];
  // Tested on the bits: WGSL lets compilers assume floats are finite, so isNan-style float
  // comparisons may be folded away.
  let bad = (bitcast<u32>(nsq) & 0x7f800000u) == 0x7f800000u;
  if (i == 0u) {
    status[0] = select(0u, 1u, bad);
  }
  if (bad || i >= p.n) { return; }
  let f = flags[i];
  if ((f & TRAINABLE) == 0u) { return; }

  var s = 1.0;
  if (p.maxGradNorm > 0.0) {
    s = min(1.0, p.maxGradNorm / (sqrt(nsq) + 1e-6));
  }
  let g = s * grads[i];
  let mi = p.beta1 * m[i] + (1.0 - p.beta1) * g;
  let vi = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  let x = params[i];
  var upd = (mi / p.bc1) / (sqrt(vi / p.bc2) + p.eps);
  if ((f & DECAY) != 0u) {
    upd += p.weightDecay * x;
  }
  params[i] = x - p.lr * upd;
}
