// decode_block: one transformer block of the decoder for a few rows, fused into two kernels with
// one workgroup per row: the design for decoding at small batch on a GPU, where the layered
// path (8 dispatches a block, its matmuls launching 1 to 4 workgroups of 64x64 tiles at
// B = 64 on `small`) is bound by launch latency and idle cores, not arithmetic.
//
//   attn_in   x = xin[r]: LN1, qkv = ln @ Wqkv + b; stores k, v of position s into the caches
//             and q into qOut[r].
//   attn_out  x = xin[r], q = qIn[r]: causal attention of q over the cached positions 0..s,
//             x2 = x + att @ Wproj + b; xout[r] = x2 + gelu(LN2(x2) @ Wfc + b) @ Wfcproj + b.
//
// Rows as the other decoding kernels: row r = k*Q + i is sequence b = k*G at position
// s = step[b] + i (decoding: Q = G = 1, r = b). Each row's arithmetic depends on that row alone
// and is the same whether it is decoded or prefilled, so prefilled caches and the token-by-token
// path agree bit for bit. A prefill's attn_in must run for every row before its attn_out (the
// caches of the earlier positions): they are two dispatches. Cache writes at s >= Tmax are
// skipped and attention clamps s to Tmax - 1, as in kv_cache_write and attention_decode.
//
// Inside a workgroup (WG invocations, the row's vectors in workgroup memory):
//   - matrix-vector products y = v @ W + b, W [K, N] row-major at a vec4 offset of the
//     parameter buffer: invocation i owns column quad i % N4 (vec4 loads, neighbouring
//     invocations on neighbouring addresses) and, when there are fewer quads than invocations,
//     K slice i / N4 of S = WG / N4 (split-K), the slices summed in a fixed order;
//   - LayerNorm: two-pass mean and variance by tree reduction (eps 1e-5, as layernorm_forward);
//   - attention: per head, chunks of WG positions with an online softmax, as attention_decode.
// Needs C % 4 == 0, 7C floats (plus 28 bytes an invocation) in workgroup memory,
// HS = C / NH <= DMAX * WG, and every parameter offset a multiple of 4 floats (the twin checks).
struct Params {
  R: u32, Tmax: u32, Q: u32, G: u32,
  scale: f32, ln1w: u32, ln1b: u32, qkvw: u32,
  qkvb: u32, projw: u32, projb: u32, ln2w: u32,
  ln2b: u32, fcw: u32, fcb: u32, fcprojw: u32,
  fcprojb: u32,
}

override C: u32 = 64u;   // channels, a multiple of 4
override NH: u32 = 2u;   // heads
override WG: u32 = 64u;  // invocations per workgroup, a power of two
const DMAX: u32 = 4u;    // head channels per invocation in attention
const EPS: f32 = 1e-5;
const GELU_SCALE: f32 = 0.7978845608028654;  // sqrt(2 / pi)

// attn_in's bindings
@group(0) @binding(0) var<storage, read_write> qOut: array<f32>;    // (R, C)
@group(0) @binding(1) var<storage, read_write> kcache: array<f32>;  // (B, NH, Tmax, HS)
@group(0) @binding(2) var<storage, read_write> vcache: array<f32>;  // (B, NH, Tmax, HS)
// attn_out's bindings
@group(0) @binding(0) var<storage, read_write> xout: array<f32>;    // (R, C)
@group(0) @binding(1) var<storage, read> kRead: array<f32>;         // (B, NH, Tmax, HS)
@group(0) @binding(2) var<storage, read> vRead: array<f32>;         // (B, NH, Tmax, HS)
@group(0) @binding(7) var<storage, read> qIn: array<f32>;           // (R, C)
// both
@group(0) @binding(3) var<storage, read> xin: array<f32>;           // (R, C)
@group(0) @binding(4) var<storage, read> w4: array<vec4<f32>>;      // the whole parameter buffer
@group(0) @binding(5) var<storage, read> step: array<u32>;          // (B)
@group(0) @binding(6) var<uniform> p: Params;

// The row's vectors: [0, C) residual x, [C, 2C) LayerNorm output, [2C, 3C) query, then
// attention output, [3C, 7C) qkv or the MLP's hidden layer.
const X = 0u;
var<workgroup> sh: array<f32, 7u * C>;
var<workgroup> part: array<vec4<f32>, WG>;
var<workgroup> red: array<vec2<f32>, WG>;
var<workgroup> probs: array<f32, WG>;
var<workgroup> wRow: vec2<u32>;  // (sequence, position) of the row, read uniformly

fn lnOff() -> u32 { return C; }
fn qOff() -> u32 { return 2u * C; }
fn bigOff() -> u32 { return 3u * C; }

// Sum of v over the workgroup (every invocation calls it; the result is uniform).
fn wgSum(v: vec2<f32>, tid: u32) -> vec2<f32> {
  red[tid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (tid < s) {
      red[tid] += red[tid + s];
    }
    workgroupBarrier();
  }
  let total = red[0];
  workgroupBarrier();  // red is rewritten by the next call
  return total;
}

fn wgMax(v: f32, tid: u32) -> f32 {
  red[tid] = vec2<f32>(v, 0.0);
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (tid < s) {
      red[tid].x = max(red[tid].x, red[tid + s].x);
    }
    workgroupBarrier();
  }
  let m = red[0].x;
  workgroupBarrier();
  return m;
}

// sh[dst + c] = LN(sh[src + c]) * w[c] + b[c], the statistics of layernorm_forward.
fn layernorm(src: u32, dst: u32, wOff: u32, bOff: u32, tid: u32) {
  var s = 0.0;
  for (var c = tid; c < C; c += WG) {
    s += sh[src + c];
  }
  let m0 = wgSum(vec2<f32>(s, 0.0), tid).x / f32(C);
  var q = vec2<f32>(0.0);
  for (var c = tid; c < C; c += WG) {
    let d = sh[src + c] - m0;
    q += vec2<f32>(d, d * d);
  }
  let sq = wgSum(q, tid);
  let m = m0 + sq.x / f32(C);
  let r = inverseSqrt(max(sq.y - sq.x * sq.x / f32(C), 0.0) / f32(C) + EPS);
  for (var c4 = tid; c4 < C / 4u; c4 += WG) {
    let x = vec4<f32>(sh[src + 4u * c4], sh[src + 4u * c4 + 1u], sh[src + 4u * c4 + 2u], sh[src + 4u * c4 + 3u]);
    let y = (x - m) * r * w4[wOff / 4u + c4] + w4[bOff / 4u + c4];
    sh[dst + 4u * c4] = y.x;
    sh[dst + 4u * c4 + 1u] = y.y;
    sh[dst + 4u * c4 + 2u] = y.z;
    sh[dst + 4u * c4 + 3u] = y.w;
  }
  workgroupBarrier();
}

// sh[dst .. dst+N) = sh[src .. src+K) @ W + b, W [K, N] at float offset wOff, b at bOff.
// The ranges must not overlap. Ends with a barrier.
fn gemv(src: u32, K: u32, wOff: u32, bOff: u32, N: u32, dst: u32, tid: u32) {
  let N4 = N / 4u;
  let w0 = wOff / 4u;
  if (N4 >= WG) {
    for (var q = tid; q < N4; q += WG) {
      var acc = w4[bOff / 4u + q];
      for (var k = 0u; k < K; k++) {
        acc += sh[src + k] * w4[w0 + k * N4 + q];
      }
      sh[dst + 4u * q] = acc.x;
      sh[dst + 4u * q + 1u] = acc.y;
      sh[dst + 4u * q + 2u] = acc.z;
      sh[dst + 4u * q + 3u] = acc.w;
    }
  } else {
    let S = WG / N4;  // K slices
    let q = tid % N4;
    let slice = tid / N4;
    var acc = vec4<f32>(0.0);
    if (slice < S) {
      for (var k = slice; k < K; k += S) {
        acc += sh[src + k] * w4[w0 + k * N4 + q];
      }
    }
    part[tid] = acc;
    workgroupBarrier();
    if (slice == 0u) {
      var y = w4[bOff / 4u + q];
      for (var j = 0u; j < S; j++) {
        y += part[q + j * N4];
      }
      sh[dst + 4u * q] = y.x;
      sh[dst + 4u * q + 1u] = y.y;
      sh[dst + 4u * q + 2u] = y.z;
      sh[dst + 4u * q + 3u] = y.w;
    }
  }
  workgroupBarrier();
}

// Reads the row's (sequence, position) once, uniformly: row r = wid.x + wid.y * nwg.x.
fn rowOf(wid: vec3<u32>, nwg: vec3<u32>, tid: u32) -> vec3<u32> {
  let r = wid.x + wid.y * nwg.x;
  if (tid == 0u && r < p.R) {
    let b = (r / p.Q) * p.G;
    wRow = vec2<u32>(b, step[b] + r % p.Q);
  }
  let row = workgroupUniformLoad(&wRow);
  return vec3<u32>(r, row.x, row.y);
}

@compute @workgroup_size(WG)
fn attn_in(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) tid: u32) {
  let row = rowOf(wid, nwg, tid);
  let r = row.x;
  if (r >= p.R) {
    return;  // the whole workgroup (r is uniform)
  }
  let b = row.y;
  let s = row.z;
  for (var c = tid; c < C; c += WG) {
    sh[X + c] = xin[r * C + c];
  }
  workgroupBarrier();
  layernorm(X, lnOff(), p.ln1w, p.ln1b, tid);
  gemv(lnOff(), C, p.qkvw, p.qkvb, 3u * C, bigOff(), tid);
  let HS = C / NH;
  for (var c = tid; c < C; c += WG) {
    qOut[r * C + c] = sh[bigOff() + c];
    if (s < p.Tmax) {
      let dst = ((b * NH + c / HS) * p.Tmax + s) * HS + c % HS;
      kcache[dst] = sh[bigOff() + C + c];
      vcache[dst] = sh[bigOff() + 2u * C + c];
    }
  }
}

@compute @workgroup_size(WG)
fn attn_out(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) tid: u32) {
  let row = rowOf(wid, nwg, tid);
  let r = row.x;
  if (r >= p.R) {
    return;
  }
  let b = row.y;
  let s = min(row.z, p.Tmax - 1u);
  let HS = C / NH;
  for (var c = tid; c < C; c += WG) {
    sh[X + c] = xin[r * C + c];
    sh[qOff() + c] = qIn[r * C + c];
  }
  workgroupBarrier();

  // attention, head by head; the output goes to the LayerNorm slot, free until LN2
  for (var h = 0u; h < NH; h++) {
    let cacheBase = (b * NH + h) * p.Tmax * HS;
    let qBase = qOff() + h * HS;
    var acc: array<f32, DMAX>;
    var m = -3.0e38;
    var l = 0.0;
    for (var t0 = 0u; t0 <= s; t0 += WG) {
      let t = t0 + tid;
      var score = -3.0e38;
      if (t <= s) {
        let kRow = cacheBase + t * HS;
        var dot = 0.0;
        for (var d = 0u; d < HS; d++) {
          dot += sh[qBase + d] * kRead[kRow + d];
        }
        score = dot * p.scale;
      }
      let mNew = max(m, wgMax(score, tid));
      var pt = 0.0;
      if (t <= s) {
        pt = exp(score - mNew);
      }
      probs[tid] = pt;
      workgroupBarrier();
      let alpha = exp(m - mNew);
      let n = min(WG, s + 1u - t0);
      var chunkSum = 0.0;
      for (var j = 0u; j < n; j++) {
        chunkSum += probs[j];
      }
      l = l * alpha + chunkSum;
      for (var k = 0u; k < DMAX; k++) {
        let d = tid + k * WG;
        if (d < HS) {
          var a = acc[k] * alpha;
          for (var j = 0u; j < n; j++) {
            a += probs[j] * vRead[cacheBase + (t0 + j) * HS + d];
          }
          acc[k] = a;
        }
      }
      m = mNew;
      workgroupBarrier();  // probs is rewritten by the next chunk
    }
    for (var k = 0u; k < DMAX; k++) {
      let d = tid + k * WG;
      if (d < HS) {
        sh[lnOff() + h * HS + d] = acc[k] / l;
      }
    }
  }
  workgroupBarrier();

  // x2 = x + att @ Wproj + b (the projection into the query slot, then the residual in place)
  gemv(lnOff(), C, p.projw, p.projb, C, qOff(), tid);
  for (var c = tid; c < C; c += WG) {
    sh[X + c] += sh[qOff() + c];
  }
  workgroupBarrier();
  // MLP: hidden = gelu(LN2(x2) @ Wfc + b), xout = x2 + hidden @ Wfcproj + b
  layernorm(X, lnOff(), p.ln2w, p.ln2b, tid);
  gemv(lnOff(), C, p.fcw, p.fcb, 4u * C, bigOff(), tid);
  for (var i = tid; i < 4u * C; i += WG) {
    let x = sh[bigOff() + i];
    let u = GELU_SCALE * (x + 0.044715 * x * x * x);
    sh[bigOff() + i] = 0.5 * x * (1.0 + tanh(clamp(u, -10.0, 10.0)));
  }
  workgroupBarrier();
  gemv(bigOff(), 4u * C, p.fcprojw, p.fcprojb, C, qOff(), tid);
  for (var c = tid; c < C; c += WG) {
    xout[r * C + c] = sh[X + c] + sh[qOff() + c];
  }
}
