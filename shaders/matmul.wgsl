// matmul: out[M,N] = alpha * op(A) @ op(B)  (+ out if ACCUMULATE)  (+ bias[N] over rows if HAS_BIAS)
//   op(A) = A stored [M,K], or with TRANS_A, A stored [K,M] (op(A) = A^T)
//   op(B) = B stored [K,N], or with TRANS_B, B stored [N,K] (op(B) = B^T)
// Accumulation: out `=` by default; `+=` with ACCUMULATE (parameter gradients, residual adds,
// LoRA deltas), added after the bias, so a residual add rounds as residual_forward's
// x + (a @ b + bias) does. GELU applies GPT-2's GELU to each result after the bias (the
// decoder's MLP; not with ACCUMULATE, which the twin rejects). out must not share a buffer with
// a, b or bias (WebGPU forbids a buffer bound writable and read-only in one dispatch). Without
// HAS_BIAS the bias binding is never read.
//
// Tiling: a 16x16 workgroup computes a 64x64 tile of out; invocation (tx, ty) owns the 4x4
// block of rows 4ty..4ty+3 and columns 4tx..4tx+3, held in registers. Each K step stages a
// 64x8 tile of op(A) and an 8x64 tile of op(B) in workgroup memory, both k-major and packed
// in vec4 along M (resp. N), so the inner loop is one vec4 read of each and four vec4 FMAs
// (128 FMAs per invocation between barriers; 4 KiB of workgroup memory, which keeps occupancy
// high on GPUs and pipeline compilation short on SwiftShader, whose cost grows with it).
// Global loads are ordered so that neighbouring invocations read neighbouring addresses
// whatever the transposes. Tails (M, N, K not multiples of the tile) load zeros and mask stores.
//
// Two entry points share the tile arithmetic:
//   main       scalar global loads and stores, any shape;
//   main_vec4  vec4 global loads and stores; the twin picks it only when the contiguous
//              dimension of A (K, or M with TRANS_A), of B (N, or K with TRANS_B), and N are
//              multiples of 4, so every vec4 is either wholly inside a row or wholly outside.
// Tiles are numbered row-major over a 2-D grid folded past 65535 workgroups (see grid1d).
struct Params { M: u32, K: u32, N: u32, alpha: f32 }

override TRANS_A: bool = false;
override TRANS_B: bool = false;
override ACCUMULATE: bool = false;
override HAS_BIAS: bool = false;
override GELU: bool = false;

const TILE = 64u;    // rows and columns of out per workgroup
const BK = 8u;       // K depth of one staged tile
const WG = 16u;      // workgroup is WG x WG; TILE = 4 * WG
const QUADS = 16u;   // vec4s across one k-row of a staged tile (TILE / 4)

// scalar views, entry point `main`
@group(0) @binding(0) var<storage, read_write> out: array<f32>;   // [M,N]
@group(0) @binding(1) var<storage, read> a: array<f32>;           // [M,K] or [K,M]
@group(0) @binding(2) var<storage, read> b: array<f32>;           // [K,N] or [N,K]
@group(0) @binding(3) var<storage, read> bias: array<f32>;        // [N]
// vec4 views of the same bindings, entry point `main_vec4`
@group(0) @binding(0) var<storage, read_write> out4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bias4: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> p: Params;

// tileA[k * QUADS + i] = op(A)[row0 + 4i .. 4i+3, k0 + k]; tileB[k * QUADS + j] = op(B)[k0 + k, col0 + 4j .. 4j+3]
var<workgroup> tileA: array<vec4<f32>, 128>;  // BK * QUADS
var<workgroup> tileB: array<vec4<f32>, 128>;
var<private> acc: array<vec4<f32>, 4>;        // acc[i] = out row 4ty+i, columns 4tx..4tx+3

struct Tile { row0: u32, col0: u32, valid: bool }

fn tileOf(wid: vec3<u32>, nwg: vec3<u32>) -> Tile {
  let tilesN = (p.N + TILE - 1u) / TILE;
  let tilesM = (p.M + TILE - 1u) / TILE;
  let t = wid.x + wid.y * nwg.x;
  return Tile((t / tilesN) * TILE, (t % tilesN) * TILE, t < tilesM * tilesN);
}

// gelu_forward.wgsl's GELU (tanh approximation, argument clamped), for the GELU epilogue
fn gelu4(x: vec4<f32>) -> vec4<f32> {
  let u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + tanh(clamp(u, vec4<f32>(-10.0), vec4<f32>(10.0))));
}

fn multiplyStagedTiles(tx: u32, ty: u32) {
  for (var k = 0u; k < BK; k++) {
    let av = tileA[k * QUADS + ty];
    let bv = tileB[k * QUADS + tx];
    acc[0] += av.x * bv;
    acc[1] += av.y * bv;
    acc[2] += av.z * bv;
    acc[3] += av.w * bv;
  }
}

// ---------------------------------------------------------------- scalar path

// op(A)[m, k], zero outside
fn loadA(m: u32, k: u32) -> f32 {
  if (m >= p.M || k >= p.K) { return 0.0; }
  if (TRANS_A) { return a[k * p.M + m]; }
  return a[m * p.K + k];
}

// op(B)[k, n], zero outside
fn loadB(k: u32, n: u32) -> f32 {
  if (k >= p.K || n >= p.N) { return 0.0; }
  if (TRANS_B) { return b[n * p.K + k]; }
  return b[k * p.N + n];
}

fn stageScalar(t: u32, row0: u32, col0: u32, k0: u32) {
  // 512 elements per tile, 2 per invocation; the fastest-varying index follows memory order
  for (var j = 0u; j < 2u; j++) {
    let e = t + j * 256u;
    var mi: u32; var ka: u32;
    if (TRANS_A) { mi = e % TILE; ka = e / TILE; } else { ka = e % BK; mi = e / BK; }
    tileA[ka * QUADS + mi / 4u][mi % 4u] = loadA(row0 + mi, k0 + ka);
    var ni: u32; var kb: u32;
    if (TRANS_B) { kb = e % BK; ni = e / BK; } else { ni = e % TILE; kb = e / TILE; }
    tileB[kb * QUADS + ni / 4u][ni % 4u] = loadB(k0 + kb, col0 + ni);
  }
}

@compute @workgroup_size(WG, WG)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = tileOf(wid, nwg);
  if (!tile.valid) { return; }
  let t = lid.y * WG + lid.x;
  for (var k0 = 0u; k0 < p.K; k0 += BK) {
    stageScalar(t, tile.row0, tile.col0, k0);
    workgroupBarrier();
    multiplyStagedTiles(lid.x, lid.y);
    workgroupBarrier();
  }
  let n0 = tile.col0 + 4u * lid.x;
  for (var i = 0u; i < 4u; i++) {
    let m = tile.row0 + 4u * lid.y + i;
    if (m >= p.M) { break; }
    for (var j = 0u; j < 4u; j++) {
      let n = n0 + j;
      if (n >= p.N) { break; }
      var r = p.alpha * acc[i][j];
      if (HAS_BIAS) { r += bias[n]; }
      if (ACCUMULATE) { r += out[m * p.N + n]; }
      if (GELU) { r = gelu4(vec4<f32>(r)).x; }
      out[m * p.N + n] = r;
    }
  }
}

// ---------------------------------------------------------------- vec4 path

// Each staged tile is 128 vec4s: invocations 0..127 load one of op(A), 128..255 one of op(B).
// A vec4 runs along the stored contiguous dimension; when that is K it is scattered across
// four k-rows of the staged tile.
fn stageA4(u: u32, row0: u32, k0: u32) {
  var v = vec4<f32>(0.0);
  if (TRANS_A) {            // A [K,M]: vec4 along M
    let ka = u / QUADS; let q = u % QUADS;
    let k = k0 + ka; let m = row0 + 4u * q;
    if (k < p.K && m < p.M) { v = a4[(k * p.M + m) / 4u]; }
    tileA[ka * QUADS + q] = v;
  } else {                  // A [M,K]: vec4 along K
    let mi = u / 2u; let kq = 4u * (u % 2u);
    let m = row0 + mi; let k = k0 + kq;
    if (m < p.M && k < p.K) { v = a4[(m * p.K + k) / 4u]; }
    for (var c = 0u; c < 4u; c++) { tileA[(kq + c) * QUADS + mi / 4u][mi % 4u] = v[c]; }
  }
}

fn stageB4(u: u32, col0: u32, k0: u32) {
  var v = vec4<f32>(0.0);
  if (TRANS_B) {            // B [N,K]: vec4 along K
    let ni = u / 2u; let kq = 4u * (u % 2u);
    let n = col0 + ni; let k = k0 + kq;
    if (n < p.N && k < p.K) { v = b4[(n * p.K + k) / 4u]; }
    for (var c = 0u; c < 4u; c++) { tileB[(kq + c) * QUADS + ni / 4u][ni % 4u] = v[c]; }
  } else {                  // B [K,N]: vec4 along N
    let kb = u / QUADS; let q = u % QUADS;
    let k = k0 + kb; let n = col0 + 4u * q;
    if (k < p.K && n < p.N) { v = b4[(k * p.N + n) / 4u]; }
    tileB[kb * QUADS + q] = v;
  }
}

@compute @workgroup_size(WG, WG)
fn main_vec4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = tileOf(wid, nwg);
  if (!tile.valid) { return; }
  let t = lid.y * WG + lid.x;
  for (var k0 = 0u; k0 < p.K; k0 += BK) {
    if (t < 128u) { stageA4(t, tile.row0, k0); } else { stageB4(t - 128u, tile.col0, k0); }
    workgroupBarrier();
    multiplyStagedTiles(lid.x, lid.y);
    workgroupBarrier();
  }
  let n = tile.col0 + 4u * lid.x;
  if (n >= p.N) { return; }
  for (var i = 0u; i < 4u; i++) {
    let m = tile.row0 + 4u * lid.y + i;
    if (m >= p.M) { break; }
    let o = (m * p.N + n) / 4u;
    var r = p.alpha * acc[i];
    if (HAS_BIAS) { r += bias4[n / 4u]; }
    if (ACCUMULATE) { r += out4[o]; }
    if (GELU) { r = gelu4(r); }
    out4[o] = r;
  }
}
