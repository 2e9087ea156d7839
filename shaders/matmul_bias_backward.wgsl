// matmul_bias_backward: dbias[n] += sum over m of dout[m, n]   (the bias gradient of a linear layer)
// Accumulation: dbias `+=` (a parameter gradient).
//
// A workgroup owns COLS adjacent columns and ROWS row lanes: invocation (c, r) sums rows
// r, r + ROWS, ... of column c, so each row step reads COLS consecutive floats (one 128-byte
// line), then the ROWS partial sums of a column are tree-reduced in workgroup memory. No
// atomics (WGSL has none on floats): every column has exactly one writer. Column blocks are
// numbered over a 2-D grid folded past 65535 workgroups (see grid1d).
// Entry `main_direct` is the variant for software adapters (SwiftShader), where the tree's barriers and
// workgroup memory cost more than the sum itself: one invocation per column walks all M rows
// (neighbouring invocations still read neighbouring floats), no workgroup memory.
struct Params { M: u32, N: u32 }

const COLS = 32u;
const ROWS = 8u;   // a power of two (tree reduction)
override WG: u32 = 16u;  // main_direct: columns (invocations) per workgroup

@group(0) @binding(0) var<storage, read_write> dbias: array<f32>;  // [N]
@group(0) @binding(1) var<storage, read> dout: array<f32>;         // [M,N]
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> partial: array<f32, 256>;  // ROWS x COLS

@compute @workgroup_size(COLS, ROWS)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = (wid.x + wid.y * nwg.x) * COLS + lid.x;
  var sum = 0.0;
  if (n < p.N) {
    for (var m = lid.y; m < p.M; m += ROWS) { sum += dout[m * p.N + n]; }
  }
  partial[lid.y * COLS + lid.x] = sum;
  workgroupBarrier();
  for (var s = ROWS / 2u; s > 0u; s >>= 1u) {
    if (lid.y < s) { partial[lid.y * COLS + lid.x] += partial[(lid.y + s) * COLS + lid.x]; }
    workgroupBarrier();
  }
  if (lid.y == 0u && n < p.N) { dbias[n] += partial[lid.x]; }
}

@compute @workgroup_size(WG)
fn main_direct(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = gid.x + gid.y * nwg.x * WG;
  if (n >= p.N) { return; }
  var sum = 0.0;
  for (var m = 0u; m < p.M; m++) { sum += dout[m * p.N + n]; }
  dbias[n] += sum;
}
