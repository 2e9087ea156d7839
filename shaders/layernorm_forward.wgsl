// layernorm_forward: out = (inp - mean) * rstd * weight + bias over the last dim C of N rows,
// rstd = 1 / sqrt(var + 1e-5) with the biased variance; caches mean (N) and rstd (N).
// LANES invocations share one row (shared-memory tree reduction), ROWS rows per workgroup,
// workgroups on a 2-D grid so N / ROWS may exceed 65535. LANES = 1 (short rows) compiles to
// a kernel without workgroup memory traffic or barriers.
// Two passes over the row: the one-pass E[x^2] - E[x]^2 loses every digit when |mean| >> std
// (activations around 1e3). The second pass sums d = x - m and d^2 (the corrected two-pass
// algorithm): sum(d) / C repairs the rounding of the first-pass mean m, and
// var = (sum(d^2) - sum(d)^2 / C) / C.
// Entry `main` reads scalars (any C); `main_vec4` reads vec4 and needs C % 4 == 0 (every
// bound range starts on a 256-byte boundary, so rows are then 16-byte aligned).
struct Params { N: u32, C: u32 }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;          // (N, C)
@group(0) @binding(1) var<storage, read_write> mean: array<f32>;         // (N)
@group(0) @binding(2) var<storage, read_write> rstd: array<f32>;         // (N)
@group(0) @binding(3) var<storage, read> inp: array<f32>;                // (N, C)
@group(0) @binding(4) var<storage, read> weight: array<f32>;             // (C)
@group(0) @binding(5) var<storage, read> bias: array<f32>;               // (C)
@group(0) @binding(6) var<uniform> p: Params;

// The same bindings seen as vec4 by `main_vec4` (an entry point uses one view or the other).
@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;   // (N, C/4)
@group(0) @binding(3) var<storage, read> inp4: array<vec4<f32>>;         // (N, C/4)
@group(0) @binding(4) var<storage, read> weight4: array<vec4<f32>>;      // (C/4)
@group(0) @binding(5) var<storage, read> bias4: array<vec4<f32>>;        // (C/4)

override LANES: u32 = 32u;  // power of two; LANES * ROWS <= 256
override ROWS: u32 = 8u;
const EPS: f32 = 1e-5;

var<workgroup> red: array<vec2<f32>, 256>;

// Sum of v over the LANES invocations of row slot ly. Every invocation of the workgroup calls it.
fn rowSum(v: vec2<f32>, lx: u32, ly: u32) -> vec2<f32> {
  if (LANES == 1u) {
    return v; // one invocation per row: nothing to share, no barriers
  }
  let i = ly * LANES + lx;
  red[i] = v;
  workgroupBarrier();
  for (var s = LANES / 2u; s > 0u; s >>= 1u) {
    if (lx < s) {
      red[i] += red[i + s];
    }
    workgroupBarrier();
  }
  let total = red[ly * LANES];
  workgroupBarrier(); // red is overwritten by the next call
  return total;
}

@compute @workgroup_size(LANES, ROWS)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = (wid.x + wid.y * nwg.x) * ROWS + lid.y;
  let live = row < p.N; // rows past N still join the barriers
  let C = p.C;
  let base = row * C;
  var s = 0.0;
  if (live) {
    for (var c = lid.x; c < C; c += LANES) {
      s += inp[base + c];
    }
  }
  let m0 = rowSum(vec2<f32>(s, 0.0), lid.x, lid.y).x / f32(C);
  var q = vec2<f32>(0.0); // sum(d), sum(d^2)
  if (live) {
    for (var c = lid.x; c < C; c += LANES) {
      let d = inp[base + c] - m0;
      q += vec2<f32>(d, d * d);
    }
  }
  let sq = rowSum(q, lid.x, lid.y);
  let m = m0 + sq.x / f32(C);
  let r = inverseSqrt(max(sq.y - sq.x * sq.x / f32(C), 0.0) / f32(C) + EPS);
  if (!live) {
    return;
  }
  for (var c = lid.x; c < C; c += LANES) {
    out[base + c] = (inp[base + c] - m) * r * weight[c] + bias[c];
  }
  if (lid.x == 0u) {
    mean[row] = m;
    rstd[row] = r;
  }
}

@compute @workgroup_size(LANES, ROWS)
fn main_vec4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = (wid.x + wid.y * nwg.x) * ROWS + lid.y;
  let live = row < p.N;
  let C4 = p.C / 4u;
  let base = row * C4;
  var s = vec4<f32>(0.0);
  if (live) {
    for (var c = lid.x; c < C4; c += LANES) {
      s += inp4[base + c];
    }
  }
  let m0 = rowSum(vec2<f32>(s.x + s.y + s.z + s.w, 0.0), lid.x, lid.y).x / f32(p.C);
  var q = vec2<f32>(0.0); // sum(d), sum(d^2)
  if (live) {
    for (var c = lid.x; c < C4; c += LANES) {
      let d = inp4[base + c] - m0;
      q += vec2<f32>(d.x + d.y + d.z + d.w, dot(d, d));
    }
  }
  let sq = rowSum(q, lid.x, lid.y);
  let m = m0 + sq.x / f32(p.C);
  let r = inverseSqrt(max(sq.y - sq.x * sq.x / f32(p.C), 0.0) / f32(p.C) + EPS);
  if (!live) {
    return;
  }
  for (var c = lid.x; c < C4; c += LANES) {
    out4[base + c] = (inp4[base + c] - m) * r * weight4[c] + bias4[c];
  }
  if (lid.x == 0u) {
    mean[row] = m;
    rstd[row] = r;
  }
}
