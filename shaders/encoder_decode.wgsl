// encoder_decode: embeds the token at the current position s = step[b] of every sequence b:
//   out[b, c] = wte[tokens[b, s], c] + wpe[s, c]
// Prefill (Q positions of every G-th sequence at once, Q = G = 1 when decoding): row
// r = k*Q + i of out is sequence b = k*G at position s = step[b] + i.
// One invocation per (r, c). s < Tmax (the caller's loop guarantees it). A sequence that has
// ended leaves its later slots unwritten, holding a marker beyond the vocabulary (the decoder
// uses 0xffffffff): those embed as token 0; their outputs are never sampled or read.
// out (R, C) may alias no input.
struct Params { R: u32, C: u32, Tmax: u32, Q: u32, G: u32 }  // R rows = sequences x Q

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (R, C)
@group(0) @binding(1) var<storage, read> tokens: array<u32>;     // (B, Tmax)
@group(0) @binding(2) var<storage, read> wte: array<f32>;        // (V, C)
@group(0) @binding(3) var<storage, read> wpe: array<f32>;        // (>= Tmax, C)
@group(0) @binding(4) var<storage, read> step: array<u32>;       // (B) current position of each sequence
@group(0) @binding(5) var<uniform> p: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  // 2-D grid so B*C may exceed 65535 workgroups of WG
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.R * p.C) {
    return;
  }
  let r = i / p.C;
  let c = i % p.C;
  let b = (r / p.Q) * p.G;
  let s = step[b] + r % p.Q;
  let raw = tokens[b * p.Tmax + s];
  let tok = select(0u, raw, raw < arrayLength(&wte) / p.C);
  out[i] = wte[tok * p.C + c] + wpe[s * p.C + c];
}
