// grad_norm_sq: one stage of the deterministic two-stage sum of squares behind the global
// gradient norm (no float atomics in WGSL, and a fixed reduction order makes the norm, and so
// the clipping, reproducible run to run).
//   SQUARE = true : out[g] = Σ inp[i]² over the elements that workgroup g strides over
//                   (stage 1: grads (n) → partials (P), P workgroups)
//   SQUARE = false: out[0] = Σ inp[i] (stage 2: partials (P) → normSq (1), one workgroup)
// out (P or 1) is overwritten.
// Entry `main_direct` is the variant for software adapters (SwiftShader), where a 256-wide tree costs
// eight barriers per workgroup for a few hundred additions: each invocation writes the sum of
// its own grid-strided elements to out[invocation] (P = all invocations of the launch; stage 2
// runs one invocation, WG = 1), no workgroup memory. The order is fixed, so it is reproducible.
struct Params { n: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (P) partials, or (1) normSq
@group(0) @binding(1) var<storage, read> inp: array<f32>;        // (n) grads, or (P) partials
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 256u;  // a power of two (tree reduction)
override SQUARE: bool = true;

var<workgroup> sm: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // Grid-stride loop: consecutive invocations read consecutive elements (coalesced).
  var acc = 0.0;
  let stride = nwg.x * WG;
  for (var i = wid.x * WG + lid; i < p.n; i += stride) {
    let x = inp[i];
    acc += select(x, x * x, SQUARE);
  }
  sm[lid] = acc;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      sm[lid] += sm[lid + s];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    out[wid.x] = sm[0];
  }
}

@compute @workgroup_size(WG)
fn main_direct(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  var acc = 0.0;
  let stride = nwg.x * WG;
  for (var i = gid.x; i < p.n; i += stride) {
    let x = inp[i];
    acc += select(x, x * x, SQUARE);
  }
  out[gid.x] = acc;
}
