// encoder_forward: token + position embedding, out[b, t, c] = wte[tokens[b, t], c] + wpe[t, c].
// One invocation per output element, 2-D grid. Token ids must be < V (an out-of-range id reads
// whatever robust buffer access returns; the tokenizer guarantees the range).
struct Params { B: u32, T: u32, C: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (B, T, C)
@group(0) @binding(1) var<storage, read> tokens: array<u32>;     // (B, T)
@group(0) @binding(2) var<storage, read> wte: array<f32>;        // (V, C)
@group(0) @binding(3) var<storage, read> wpe: array<f32>;        // (Tmax, C), T <= Tmax
@group(0) @binding(4) var<uniform> p: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.B * p.T * p.C) {
    return;
  }
  let bt = i / p.C;
  let c = i - bt * p.C;
  let t = bt % p.T;
  out[i] = wte[tokens[bt] * p.C + c] + wpe[t * p.C + c];
}
