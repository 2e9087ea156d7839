// kv_cache_write: stores the key and value of position s = step[b] of every sequence b into one
// layer's caches: kcache[b, h, s, d] = qkv[b, C + h*HS + d], vcache[b, h, s, d] = qkv[b, 2C + h*HS + d].
// Prefill (Q positions of every G-th sequence, Q = G = 1 when decoding): qkv row r = k*Q + i is
// sequence b = k*G at position s = step[b] + i.
// One invocation per (r, c), c = h*HS + d. Other positions are left untouched; s >= Tmax writes nothing.
struct Params { R: u32, C: u32, NH: u32, Tmax: u32, Q: u32, G: u32 }  // R rows = sequences x Q

@group(0) @binding(0) var<storage, read_write> kcache: array<f32>;  // (B, NH, Tmax, HS)
@group(0) @binding(1) var<storage, read_write> vcache: array<f32>;  // (B, NH, Tmax, HS)
@group(0) @binding(2) var<storage, read> qkv: array<f32>;           // (R, 3C) rows [q | k | v]
@group(0) @binding(3) var<storage, read> step: array<u32>;          // (B) current position of each sequence
@group(0) @binding(4) var<uniform> p: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.R * p.C) {
    return;
  }
  let r = i / p.C;
  let c = i % p.C;
  let b = (r / p.Q) * p.G;
  let s = step[b] + r % p.Q;
  if (s >= p.Tmax) {
    return;
  }
  let HS = p.C / p.NH;
  let h = c / HS;
  let d = c % HS;
  let dst = ((b * p.NH + h) * p.Tmax + s) * HS + d;
  kcache[dst] = qkv[r * 3u * p.C + p.C + c];
  vcache[dst] = qkv[r * 3u * p.C + 2u * p.C + c];
}
