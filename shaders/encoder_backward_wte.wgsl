// encoder_backward_wte: the token-embedding gradient, a scatter of dout rows by token id
// without float atomics and in a fixed order (bit-identical results run to run):
//   dwte[v, c] += sum over positions p = 0, 1, ... with tokens[p] == v of dout[p, c]
// One workgroup per token id v (2-D grid, so V may exceed 65535). It scans the BT = B * T
// tokens WG at a time, marks the matching positions in a workgroup bitmask (u32 atomicOr is
// exact and order-free), and each invocation then adds the marked dout rows of its column in
// ascending position. Cost: V * BT token reads (coalesced) plus BT * C dout reads in all.
// Accumulation rule: dwte += (a parameter gradient).
struct Params { BT: u32, C: u32, V: u32 }

@group(0) @binding(0) var<storage, read_write> dwte: array<f32>;  // (V, C)
@group(0) @binding(1) var<storage, read> dout: array<f32>;        // (B, T, C)
@group(0) @binding(2) var<storage, read> tokens: array<u32>;      // (B, T)
@group(0) @binding(3) var<uniform> p: Params;

override WG: u32 = 64u; // a multiple of 32, at most 256: positions per scan step and columns per pass
const WORDS_MAX: u32 = 8u;

var<workgroup> mask: array<atomic<u32>, WORDS_MAX>; // bit j of word w: position base + 32 w + j

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let v = wid.x + wid.y * nwg.x;
  if (v >= p.V) {
    return; // uniform across the workgroup
  }
  let words = WG / 32u;
  for (var c0 = 0u; c0 < p.C; c0 += WG) {
    let c = c0 + lid.x;
    var acc = 0.0;
    for (var base = 0u; base < p.BT; base += WG) {
      if (lid.x < words) {
        atomicStore(&mask[lid.x], 0u);
      }
      workgroupBarrier();
      let pos = base + lid.x;
      if (pos < p.BT && tokens[pos] == v) {
        atomicOr(&mask[lid.x / 32u], 1u << (lid.x % 32u));
      }
      workgroupBarrier();
      if (c < p.C) {
        for (var w = 0u; w < words; w++) {
          var bits = atomicLoad(&mask[w]);
          while (bits != 0u) {
            let j = countTrailingZeros(bits);
            bits &= bits - 1u;
            acc += dout[(base + w * 32u + j) * p.C + c];
          }
        }
      }
      workgroupBarrier(); // everyone has read the mask before the next step clears it
    }
    if (c < p.C) {
      dwte[v * p.C + c] += acc;
    }
  }
}
