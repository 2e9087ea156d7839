// encoder_backward_sort: a stable counting sort of the BT = B * T positions by token id, the
// first pass of encoder_backward_wte.wgsl. One invocation per token id v (2-D grid) scans the
// ids twice: once to count the ids below v (where its bucket starts) and its own, once to list
// its positions in ascending order. No atomics, no barriers; V * BT compares in all.
//   bucket[v] = (start, count),  order[start + j] = the j-th position p with tokens[p] == v
// Ids >= V land in no bucket. Accumulation rule: order =, bucket = (scratch).
struct Params { BT: u32, C: u32, V: u32 }

@group(0) @binding(0) var<storage, read_write> order: array<u32>;          // (B * T)
@group(0) @binding(1) var<storage, read_write> bucket: array<vec2<u32>>;   // (V) start, count
@group(0) @binding(2) var<storage, read> tokens: array<u32>;               // (B, T)
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let v = gid.x + gid.y * nwg.x * WG;
  if (v >= p.V) {
    return;
  }
  var start = 0u;
  var count = 0u;
  for (var pos = 0u; pos < p.BT; pos++) {
    let t = tokens[pos];
    start += u32(t < v);
    count += u32(t == v);
  }
  bucket[v] = vec2<u32>(start, count);
  var j = start;
  for (var pos = 0u; pos < p.BT && j < start + count; pos++) {
    if (tokens[pos] == v) {
      order[j] = pos;
      j++;
    }
  }
}

// The same with the ids read four at a time (BT % 4 == 0).
@group(0) @binding(2) var<storage, read> tokens4: array<vec4<u32>>;        // (B * T / 4)

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let v = gid.x + gid.y * nwg.x * WG;
  if (v >= p.V) {
    return;
  }
  let vv = vec4<u32>(v);
  var start = vec4<u32>(0u);
  var count = vec4<u32>(0u);
  for (var q = 0u; q < p.BT / 4u; q++) {
    let t = tokens4[q];
    start += select(vec4<u32>(0u), vec4<u32>(1u), t < vv);
    count += select(vec4<u32>(0u), vec4<u32>(1u), t == vv);
  }
  let s = start.x + start.y + start.z + start.w;
  let n = count.x + count.y + count.z + count.w;
  bucket[v] = vec2<u32>(s, n);
  var j = s;
  for (var q = 0u; q < p.BT / 4u && j < s + n; q++) {
    let hit = tokens4[q] == vv;
    if (any(hit)) {
      for (var k = 0u; k < 4u; k++) {
        if (hit[k]) {
          order[j] = 4u * q + k;
          j++;
        }
      }
    }
  }
}
