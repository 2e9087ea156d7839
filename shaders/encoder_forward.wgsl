// encoder_forward: token + position embedding, out[b, t, c] = wte[tokens[b, t], c] + wpe[t, c].
// One invocation per output element, 2-D grid. Token ids must be < V (an out-of-range id reads
// whatever robust buffer access returns; the tokenizer guarantees the range).
// Entry `main_vec4` takes four channels per invocation and needs C % 4 == 0.
struct Params { B: u32, T: u32, C: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;         // (B, T, C)
@group(0) @binding(1) var<storage, read> tokens: array<u32>;            // (B, T)
@group(0) @binding(2) var<storage, read> wte: array<f32>;               // (V, C)
@group(0) @binding(3) var<storage, read> wpe: array<f32>;               // (Tmax, C), T <= Tmax
@group(0) @binding(4) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;  // (B, T, C/4)
@group(0) @binding(2) var<storage, read> wte4: array<vec4<f32>>;        // (V, C/4)
@group(0) @binding(3) var<storage, read> wpe4: array<vec4<f32>>;        // (Tmax, C/4)

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

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let C4 = p.C / 4u;
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.B * p.T * C4) {
    return;
  }
  let bt = i / C4;
  let c = i - bt * C4;
  let t = bt % p.T;
  out4[i] = wte4[tokens[bt] * C4 + c] + wpe4[t * C4 + c];
}
