// encoder_backward_wte: the token-embedding gradient, a scatter of dout rows by token id
// without float atomics and in a fixed order (bit-identical results run to run):
//   dwte[v, c] += sum over positions p = 0, 1, ... with tokens[p] == v of dout[p, c]
// The positions of token v come from encoder_backward_sort.wgsl (bucket, order). One
// invocation per (v, c), 2-D grid; lanes of a warp take consecutive columns (coalesced).
// B * T * C loads in all.
// Accumulation rule: dwte += (a parameter gradient).
// Entry `main_vec4` takes four channels per invocation and needs C % 4 == 0.
struct Params { BT: u32, C: u32, V: u32 }

@group(0) @binding(0) var<storage, read_write> dwte: array<f32>;         // (V, C)
@group(0) @binding(1) var<storage, read> dout: array<f32>;               // (B, T, C)
@group(0) @binding(2) var<storage, read> order: array<u32>;              // (B * T)
@group(0) @binding(3) var<storage, read> bucket: array<vec2<u32>>;       // (V) start, count
@group(0) @binding(4) var<uniform> p: Params;

@group(0) @binding(0) var<storage, read_write> dwte4: array<vec4<f32>>;  // (V, C/4)
@group(0) @binding(1) var<storage, read> dout4: array<vec4<f32>>;        // (B, T, C/4)

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // i = v * C + c
  if (i >= p.V * p.C) {
    return;
  }
  let v = i / p.C;
  let c = i - v * p.C;
  let b = bucket[v];
  var acc = 0.0;
  for (var j = b.x; j < b.x + b.y; j++) {
    acc += dout[order[j] * p.C + c];
  }
  dwte[i] += acc;
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let C4 = p.C / 4u;
  let i = gid.x + gid.y * nwg.x * WG; // i = v * C/4 + c
  if (i >= p.V * C4) {
    return;
  }
  let v = i / C4;
  let c = i - v * C4;
  let b = bucket[v];
  var acc = vec4<f32>(0.0);
  for (var j = b.x; j < b.x + b.y; j++) {
    acc += dout4[order[j] * C4 + c];
  }
  dwte4[i] += acc;
}
