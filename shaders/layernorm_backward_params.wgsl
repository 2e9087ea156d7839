// layernorm_backward_params: the first of two passes of the weight and bias gradients, a
// column reduction over the N rows without float atomics. Workgroup (x = 32 columns,
// y = 8 row lanes) handles one chunk of CHUNK rows; its lanes sum rows ly, ly + 8, ...,
// then a shared-memory tree adds the 8 lanes. Grid (ceil(C / 32), K) with K = ceil(N / CHUNK).
//   part[0, k, c] = sum_{n in chunk k} dout[n, c] * (inp[n, c] - mean[n]) * rstd[n]
//   part[1, k, c] = sum_{n in chunk k} dout[n, c]
// Accumulation rule: part =. layernorm_backward_reduce.wgsl adds the K partials to the grads.
struct Params { N: u32, C: u32, CHUNK: u32, K: u32 }

@group(0) @binding(0) var<storage, read_write> part: array<f32>;  // (2, K, C)
@group(0) @binding(1) var<storage, read> dout: array<f32>;        // (N, C)
@group(0) @binding(2) var<storage, read> inp: array<f32>;         // (N, C)
@group(0) @binding(3) var<storage, read> mean: array<f32>;        // (N)
@group(0) @binding(4) var<storage, read> rstd: array<f32>;        // (N)
@group(0) @binding(5) var<uniform> p: Params;

const TX: u32 = 32u;
const TY: u32 = 8u;

var<workgroup> red: array<vec2<f32>, 256>; // (TY, TX)

@compute @workgroup_size(TX, TY)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let c = wid.x * TX + lid.x;
  let k = wid.y;
  let live = c < p.C; // columns past C still join the barriers
  let end = min(p.N, (k + 1u) * p.CHUNK);
  // x: dweight partial, y: dbias partial
  var s = vec2<f32>(0.0);
  if (live) {
    for (var n = k * p.CHUNK + lid.y; n < end; n += TY) {
      let g = dout[n * p.C + c];
      s += vec2<f32>(g * (inp[n * p.C + c] - mean[n]) * rstd[n], g);
    }
  }
  let i = lid.y * TX + lid.x;
  red[i] = s;
  workgroupBarrier();
  for (var h = TY / 2u; h > 0u; h >>= 1u) {
    if (lid.y < h) {
      red[i] += red[i + h * TX];
    }
    workgroupBarrier();
  }
  if (live && lid.y == 0u) {
    part[k * p.C + c] = red[lid.x].x;
    part[(p.K + k) * p.C + c] = red[lid.x].y;
  }
}
