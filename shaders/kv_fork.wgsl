// kv_fork: copies cache positions 0..upTo-1 of slot src into slots dst0..dst0+count-1, for every
// layer of a stack of caches (L, B, NH, Tmax, HS) (L = 1 for a single layer's cache):
//   cache[l, dst0 + j, h, t, d] = cache[l, src, h, t, d]   for j < count, t < upTo
// and the same for `groups` groups of slots `stride` apart (group g copies slot src + g*stride
// into dst0 + g*stride + j: one dispatch forks every group of a batch).
// Positions >= upTo and other slots are untouched. No source may lie in a destination range.
// One invocation per copied element, ordered (l, g, j, h, t, d) so consecutive invocations copy
// consecutive floats.
struct Params { L: u32, B: u32, NH: u32, Tmax: u32, HS: u32, src: u32, dst0: u32, count: u32, upTo: u32, groups: u32, stride: u32 }

@group(0) @binding(0) var<storage, read_write> kcache: array<f32>;  // (L, B, NH, Tmax, HS)
@group(0) @binding(1) var<storage, read_write> vcache: array<f32>;  // (L, B, NH, Tmax, HS)
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let row = p.upTo * p.HS;  // the copied floats of one (slot, head)
  if (i >= p.L * p.groups * p.count * p.NH * row) {
    return;
  }
  let td = i % row;
  let h = (i / row) % p.NH;
  let j = (i / (row * p.NH)) % p.count;
  let g = (i / (row * p.NH * p.count)) % p.groups;
  let l = i / (row * p.NH * p.count * p.groups);
  let slot = p.NH * p.Tmax * p.HS;    // floats per (layer, sequence)
  let layer = p.B * slot;
  let head = h * p.Tmax * p.HS + td;  // position t = td / HS starts each head's block at t = 0
  let srcAt = l * layer + (p.src + g * p.stride) * slot + head;
  let dstAt = l * layer + (p.dst0 + g * p.stride + j) * slot + head;
  kcache[dstAt] = kcache[srcAt];
  vcache[dstAt] = vcache[srcAt];
}
