// matmul_direct: out = alpha * op(A) @ op(B)  (+ out if ACCUMULATE)  (+ bias[N] over rows if HAS_BIAS),
// for a batch of matrices at strided offsets. The variant for software adapters (SwiftShader): the
// twin in src/gpu/ops/matmul.ts picks it when gpu.cpuAdapter; matmul.wgsl is the GPU design.
//   op(A)[m, k] = TRANS_A ? A[k * lda + m] : A[m * lda + k]
//   op(B)[k, n] = TRANS_B ? B[n * ldb + k] : B[k * ldb + n]
//   out[m * ldc + n]
// each relative to the start of batch entry z = zo * inner + zi in that operand:
// xOff + zo * xOuter + zi * xInner (attention: zo = sequence, zi = head; element offsets reach
// inside rows, which binding offsets, multiples of 256 bytes, cannot).
// Accumulation: out `=` by default, `+=` with ACCUMULATE. out must not share a buffer with a, b
// or bias. Without HAS_BIAS the bias binding is never read. GELU applies GPT-2's GELU to each
// result after the bias (the decoder's MLP; not with ACCUMULATE, which the twin rejects).
//
// Why a separate design: on a CPU driver every invocation-dependent load is a 4-lane gather
// (SwiftShader's Subzero backend emulates it with a branch per lane) and workgroup memory is
// ordinary memory behind barriers, so tiles staged in workgroup memory only add work. Here each
// invocation owns an 8x8 block of out in 16 vec4 registers and reads op(A) and op(B) straight
// from storage: 16 loads feed 64 FMAs (2 for a 4x4 block), with no barriers, no workgroup
// memory and no dynamically indexed arrays (which CPU drivers keep in memory). Measured on 2
// cores in Node: ~2.4 GFLOP/s, against ~0.3 for matmul.wgsl there. Rows and columns past M and
// N read clamped, in-bounds addresses and are never stored, so every shape works.
//
// CAUSAL restricts the work for attention's triangular products (rows and columns are
// positions of one sequence; entries above the diagonal are exact zeros in P and dS):
//   0 full product;
//   1 only blocks holding some n <= m are computed (the others are left as they were);
//   2 the K range stops after the block's last row (k <= m: P @ V, dS @ K);
//   3 the K range starts at the block's first row (k >= m: P^T @ dO, dS^T @ Q).
struct Params {
  M: u32, K: u32, N: u32, alpha: f32,
  lda: u32, ldb: u32, ldc: u32, batch: u32,
  inner: u32, aOff: u32, aOuter: u32, aInner: u32,
  bOff: u32, bOuter: u32, bInner: u32, cOff: u32,
  cOuter: u32, cInner: u32,
}

override TRANS_A: bool = false;
override TRANS_B: bool = false;
override ACCUMULATE: bool = false;
override HAS_BIAS: bool = false;
override GELU: bool = false;
override CAUSAL: u32 = 0u;
override WG: u32 = 16u;

const BLOCK = 8u;  // rows and columns of out per invocation

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // batch x [M, ldc]
@group(0) @binding(1) var<storage, read> a: array<f32>;          // batch x op(A) [M,K] stored [M,lda] or [K,lda]
@group(0) @binding(2) var<storage, read> b: array<f32>;          // batch x op(B) [K,N] stored [K,ldb] or [N,ldb]
@group(0) @binding(3) var<storage, read> bias: array<f32>;       // [N]
@group(0) @binding(4) var<uniform> p: Params;

// gelu_forward.wgsl's GELU (tanh approximation, argument clamped), for the GELU epilogue
fn gelu(x: f32) -> f32 {
  let u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + tanh(clamp(u, -10.0, 10.0)));
}

// out[row + n] = alpha * v (+ bias[n]) (+ out), then GELU'd with GELU. The bias goes first: a
// residual add through ACCUMULATE then rounds as residual_forward's x + (a @ b + bias) does.
fn put(row: u32, n: u32, v: f32) {
  var r = p.alpha * v;
  if (HAS_BIAS) { r += bias[n]; }
  if (ACCUMULATE) { r += out[row + n]; }
  if (GELU) { r = gelu(r); }
  out[row + n] = r;
}

fn storeRow(z: u32, m: u32, n0: u32, lo: vec4<f32>, hi: vec4<f32>) {
  if (m >= p.M) { return; }
  let row = p.cOff + (z / p.inner) * p.cOuter + (z % p.inner) * p.cInner + m * p.ldc;
  if (n0 + BLOCK <= p.N) {
    // whole row of the block: constant lanes, no per-column test (CPU drivers branch per test)
    put(row, n0, lo.x); put(row, n0 + 1u, lo.y); put(row, n0 + 2u, lo.z); put(row, n0 + 3u, lo.w);
    put(row, n0 + 4u, hi.x); put(row, n0 + 5u, hi.y); put(row, n0 + 6u, hi.z); put(row, n0 + 7u, hi.w);
    return;
  }
  for (var j = 0u; j < BLOCK; j++) {
    if (n0 + j >= p.N) { return; }
    put(row, n0 + j, select(hi[j % 4u], lo[j % 4u], j < 4u));
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let blocksN = (p.N + BLOCK - 1u) / BLOCK;
  let perMatrix = ((p.M + BLOCK - 1u) / BLOCK) * blocksN;
  let idx = gid.x + gid.y * nwg.x * WG;  // 2-D grid past 65535 workgroups
  let z = idx / perMatrix;
  if (z >= p.batch) { return; }
  let m0 = ((idx % perMatrix) / blocksN) * BLOCK;
  let n0 = (idx % perMatrix) % blocksN * BLOCK;
  if (CAUSAL == 1u && n0 > m0 + BLOCK - 1u) { return; }
  var kBegin = 0u;
  var kEnd = p.K;
  if (CAUSAL == 2u) { kEnd = min(p.K, m0 + BLOCK); }
  if (CAUSAL == 3u) { kBegin = m0; }

  // Offset of op(A)[m, 0] per row and of op(B)[0, n] per column, and the step of one k.
  let zo = z / p.inner;
  let zi = z % p.inner;
  let aBase = p.aOff + zo * p.aOuter + zi * p.aInner;
  let bBase = p.bOff + zo * p.bOuter + zi * p.bInner;
  let aRow = select(p.lda, 1u, TRANS_A);
  let aStep = select(1u, p.lda, TRANS_A);
  let bCol = select(1u, p.ldb, TRANS_B);
  let bStep = select(p.ldb, 1u, TRANS_B);
  let lastM = p.M - 1u;
  let lastN = p.N - 1u;
  let r0 = aBase + min(m0, lastM) * aRow;
  let r1 = aBase + min(m0 + 1u, lastM) * aRow;
  let r2 = aBase + min(m0 + 2u, lastM) * aRow;
  let r3 = aBase + min(m0 + 3u, lastM) * aRow;
  let r4 = aBase + min(m0 + 4u, lastM) * aRow;
  let r5 = aBase + min(m0 + 5u, lastM) * aRow;
  let r6 = aBase + min(m0 + 6u, lastM) * aRow;
  let r7 = aBase + min(m0 + 7u, lastM) * aRow;
  let c0 = bBase + min(n0, lastN) * bCol;
  let c1 = bBase + min(n0 + 1u, lastN) * bCol;
  let c2 = bBase + min(n0 + 2u, lastN) * bCol;
  let c3 = bBase + min(n0 + 3u, lastN) * bCol;
  let c4 = bBase + min(n0 + 4u, lastN) * bCol;
  let c5 = bBase + min(n0 + 5u, lastN) * bCol;
  let c6 = bBase + min(n0 + 6u, lastN) * bCol;
  let c7 = bBase + min(n0 + 7u, lastN) * bCol;

  // acc<i><lo|hi> = out row m0+i, columns n0..n0+3 | n0+4..n0+7
  var acc0l = vec4<f32>(0.0); var acc0h = vec4<f32>(0.0);
  var acc1l = vec4<f32>(0.0); var acc1h = vec4<f32>(0.0);
  var acc2l = vec4<f32>(0.0); var acc2h = vec4<f32>(0.0);
  var acc3l = vec4<f32>(0.0); var acc3h = vec4<f32>(0.0);
  var acc4l = vec4<f32>(0.0); var acc4h = vec4<f32>(0.0);
  var acc5l = vec4<f32>(0.0); var acc5h = vec4<f32>(0.0);
  var acc6l = vec4<f32>(0.0); var acc6h = vec4<f32>(0.0);
  var acc7l = vec4<f32>(0.0); var acc7h = vec4<f32>(0.0);
  for (var k = kBegin; k < kEnd; k++) {
    let ka = k * aStep;
    let kb = k * bStep;
    let bl = vec4(b[c0 + kb], b[c1 + kb], b[c2 + kb], b[c3 + kb]);  // op(B)[k, n0 .. n0+3]
    let bh = vec4(b[c4 + kb], b[c5 + kb], b[c6 + kb], b[c7 + kb]);  // op(B)[k, n0+4 .. n0+7]
    let a0 = a[r0 + ka]; acc0l += a0 * bl; acc0h += a0 * bh;
    let a1 = a[r1 + ka]; acc1l += a1 * bl; acc1h += a1 * bh;
    let a2 = a[r2 + ka]; acc2l += a2 * bl; acc2h += a2 * bh;
    let a3 = a[r3 + ka]; acc3l += a3 * bl; acc3h += a3 * bh;
    let a4 = a[r4 + ka]; acc4l += a4 * bl; acc4h += a4 * bh;
    let a5 = a[r5 + ka]; acc5l += a5 * bl; acc5h += a5 * bh;
    let a6 = a[r6 + ka]; acc6l += a6 * bl; acc6h += a6 * bh;
    let a7 = a[r7 + ka]; acc7l += a7 * bl; acc7h += a7 * bh;
  }
  storeRow(z, m0, n0, acc0l, acc0h);
  storeRow(z, m0 + 1u, n0, acc1l, acc1h);
  storeRow(z, m0 + 2u, n0, acc2l, acc2h);
  storeRow(z, m0 + 3u, n0, acc3l, acc3h);
  storeRow(z, m0 + 4u, n0, acc4l, acc4h);
  storeRow(z, m0 + 5u, n0, acc5l, acc5h);
  storeRow(z, m0 + 6u, n0, acc6l, acc6h);
  storeRow(z, m0 + 7u, n0, acc7l, acc7h);
}
