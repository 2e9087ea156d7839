// attention_decode: causal attention of the query at position s = step[b] over the cached
// keys/values of positions 0..s, for every (sequence b, head h):
//   out[b, h*HS + d] = sum_t softmax_t(q . k_t * scale) v_t[d],  q = qkv[b, h*HS .. h*HS+HS-1]
// kv_cache_write must already have stored position s. One workgroup per (h, b); positions are
// processed in chunks of WG with an online softmax (running max m, running sum l), so any
// Tmax works in fixed workgroup memory:
//   - invocation j scores position t0 + j (a k row, HS floats);
//   - a tree reduction gives the chunk max, the running sum and accumulators are rescaled by
//     exp(m_old - m_new);
//   - invocation i accumulates output channels d = i, i + WG, ... (at most DMAX per
//     invocation, so HS <= DMAX*WG), reading v rows coalesced across the workgroup.
// Prefill (Q positions of every G-th sequence, Q = G = 1 when decoding): query row r = k*Q + i
// (of qkv and out) is sequence b = k*G at position s = step[b] + i; its workgroup is (h, r).
// s >= Tmax is clamped to Tmax - 1. out (R, C) may alias no input.
struct Params { R: u32, C: u32, NH: u32, Tmax: u32, scale: f32, Q: u32, G: u32 }  // R rows = sequences x Q

@group(0) @binding(0) var<storage, read_write> out: array<f32>;  // (R, C)
@group(0) @binding(1) var<storage, read> qkv: array<f32>;        // (R, 3C) rows [q | k | v]
@group(0) @binding(2) var<storage, read> kcache: array<f32>;     // (B, NH, Tmax, HS)
@group(0) @binding(3) var<storage, read> vcache: array<f32>;     // (B, NH, Tmax, HS)
@group(0) @binding(4) var<storage, read> step: array<u32>;       // (B) current position of each sequence
@group(0) @binding(5) var<uniform> p: Params;

override WG: u32 = 64u;  // a power of two
const DMAX: u32 = 4u;

var<workgroup> probs: array<f32, WG>;  // exp(score - m) of the current chunk
var<workgroup> red: array<f32, WG>;
var<workgroup> wStep: u32;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let h = wid.x;
  let r = wid.y;
  let b = (r / p.Q) * p.G;
  let HS = p.C / p.NH;
  if (tid == 0u) {
    wStep = min(step[b] + r % p.Q, p.Tmax - 1u);
  }
  let s = workgroupUniformLoad(&wStep);  // uniform: the chunk loop below holds barriers

  let qBase = r * 3u * p.C + h * HS;
  let cacheBase = (b * p.NH + h) * p.Tmax * HS;
  var acc: array<f32, DMAX>;
  var m = -3.0e38;  // running max; finite, WGSL has no portable infinity
  var l = 0.0;

  for (var t0 = 0u; t0 <= s; t0 += WG) {
    let t = t0 + tid;
    var score = -3.0e38;
    if (t <= s) {
      let kRow = cacheBase + t * HS;
      var dot = 0.0;
      for (var d = 0u; d < HS; d++) {
        dot += qkv[qBase + d] * kcache[kRow + d];
      }
      score = dot * p.scale;
    }
    red[tid] = score;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
      if (tid < stride) {
        red[tid] = max(red[tid], red[tid + stride]);
      }
      workgroupBarrier();
    }
    let mNew = max(m, red[0]);
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
          a += probs[j] * vcache[cacheBase + (t0 + j) * HS + d];
        }
        acc[k] = a;
      }
    }
    m = mNew;
    workgroupBarrier();  // probs and red are rewritten by the next chunk
  }

  for (var k = 0u; k < DMAX; k++) {
    let d = tid + k * WG;
    if (d < HS) {
      out[r * p.C + h * HS + d] = acc[k] / l;
    }
  }
}
