// pg_loss: the per-token weights of the RL loss, which softmax_logp turns into dlogits.
// One workgroup per sequence b < B (the sequence-level ratio couples the tokens of a sequence).
//
// With c_t = coef[b, t] ≥ 0 (aggregation weight) and M_t = (c_t > 0):
//   L = Σ_t c_t·(ℓ_t + β·KL_t) − entCoef·Σ_t c_t·H_t
//   ρ_t = exp(logp_t − oldLogp_t)                                 (token level)
//   ρ_t = ρ_b = exp(Σ_t M_t·(logp_t − oldLogp_t) / Σ_t M_t)       (sequence level, GSPO)
//   ℓ_t = −min(ρA, clip(ρ, 1 − εl, 1 + εh)·A), then ℓ_t = min(ℓ_t, −c·A) when A < 0 and the
//   dual clip c > 0 is on. Equivalently ℓ_t = −A·ρ̂ with ρ̂ = the bound where a clip is active:
//     A > 0, ρ > 1 + εh: ρ̂ = 1 + εh (clip high)    A < 0, ρ < 1 − εl: ρ̂ = 1 − εl (clip low)
//     A < 0, ρ > c:      ρ̂ = c      (dual clip)    otherwise ρ̂ = ρ;  ∂ℓ/∂log ρ = −A·ρ or 0.
//   δ_t = clamp(refLogp_t − logp_t, ±klClamp); k1 = −δ, k2 = δ²/2, k3 = e^δ − δ − 1
//   (∂δ/∂logp = −1 inside the clamp, 0 outside).
// Outputs, written with `=` at every position of every sequence b < B:
//   w[b, t] = ∂L/∂logp_t
//     token level:    c_t·(∂ℓ_t/∂log ρ_t + β·∂KL_t/∂logp_t)
//     sequence level: M_t/n_b·Σ_s c_s·∂ℓ_s/∂log ρ_b + β·c_t·∂KL_t/∂logp_t   (n_b = Σ M)
//   e[b, t] = ∂L/∂H_t = −entCoef·c_t
//   stats[b, :] per-sequence partial sums; layout PG_STATS in src/gpu/ops/pg.ts.
// Positions with c = 0 get w = e = 0 and are never summed, so padding values (even NaN) are
// harmless. Sums use a fixed tree order: the result does not depend on scheduling.
struct Params {
  B: u32,
  T: u32,
  epsLow: f32,
  epsHigh: f32,
  dualC: f32,    // dual-clip bound c; 0 = off
  beta: f32,
  klType: u32,   // 0 none, 1 k1, 2 k2, 3 k3
  klClamp: f32,
  entCoef: f32,
  seqLevel: u32, // 0 token ratio, 1 sequence ratio (GSPO)
}

@group(0) @binding(0) var<storage, read_write> w: array<f32>;      // (B, T)
@group(0) @binding(1) var<storage, read_write> e: array<f32>;      // (B, T)
@group(0) @binding(2) var<storage, read_write> stats: array<f32>;  // (B, NS)
@group(0) @binding(3) var<storage, read> logp: array<f32>;         // (B, T) current log π(y_t)
@group(0) @binding(4) var<storage, read> entropy: array<f32>;      // (B, T) current H_t
@group(0) @binding(5) var<storage, read> oldLogp: array<f32>;      // (B, T) log π_old(y_t)
@group(0) @binding(6) var<storage, read> refLogp: array<f32>;      // (B, T) log π_ref(y_t)
@group(0) @binding(7) var<storage, read> adv: array<f32>;          // (B, T) A_t
@group(0) @binding(8) var<storage, read> coef: array<f32>;         // (B, T) c_t
@group(0) @binding(9) var<uniform> p: Params;

override WG: u32 = 64u; // a power of two (tree reduction)

const NS: u32 = 10u; // stats per sequence (PG_NSTATS)
const NR: u32 = 11u; // reduced slots: the NS stats, then Σ c·∂ℓ/∂log ρ (sequence level)

// slot s of invocation i lives at red[s * WG + i]
var<workgroup> red: array<f32, WG * NR>;

// Sums slots 0..n−1 over the workgroup into red[s * WG]. Call from uniform control flow.
fn reduce(lid: u32, n: u32) {
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      for (var s = 0u; s < n; s++) {
        red[s * WG + lid] += red[s * WG + lid + stride];
      }
    }
    workgroupBarrier();
  }
}

struct Surrogate {
  loss: f32, // ℓ
  grad: f32, // ∂ℓ/∂log ρ
  kind: u32, // 0 unclipped, 1 clip low, 2 clip high, 3 dual clip
}

fn surrogate(rho: f32, A: f32) -> Surrogate {
  if (A > 0.0 && rho > 1.0 + p.epsHigh) { return Surrogate(-A * (1.0 + p.epsHigh), 0.0, 2u); }
  if (A < 0.0 && rho < 1.0 - p.epsLow) { return Surrogate(-A * (1.0 - p.epsLow), 0.0, 1u); }
  if (A < 0.0 && p.dualC > 0.0 && rho > p.dualC) { return Surrogate(-A * p.dualC, 0.0, 3u); }
  return Surrogate(-A * rho, -A * rho, 0u);
}

// (KL_t, ∂KL_t/∂logp_t)
fn klTerm(lp: f32, rl: f32) -> vec2<f32> {
  if (p.klType == 0u) { return vec2<f32>(0.0); }
  let raw = rl - lp;
  let d = clamp(raw, -p.klClamp, p.klClamp);
  let s = select(0.0, -1.0, abs(raw) <= p.klClamp);
  if (p.klType == 1u) { return vec2<f32>(-d, -s); }
  if (p.klType == 2u) { return vec2<f32>(0.5 * d * d, d * s); }
  let ed = exp(d);
  return vec2<f32>(ed - d - 1.0, (ed - 1.0) * s);
}

fn flag(b: bool) -> f32 {
  return select(0.0, 1.0, b);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // 2-D grid so B may exceed 65535; the test is uniform across the workgroup.
  let b = wid.x + wid.y * nwg.x;
  if (b >= p.B) { return; }
  let T = p.T;
  let base = b * T;
  let seq = p.seqLevel != 0u;

  // Sequence level: ρ_b from the mean log-ratio over the counted tokens (1 for an empty one).
  var rhoSeq = 1.0;
  var nSeq = 0.0;
  if (seq) {
    var sum = 0.0;
    var n = 0.0;
    for (var t = lid; t < T; t += WG) {
      let i = base + t;
      if (coef[i] > 0.0) {
        sum += logp[i] - oldLogp[i];
        n += 1.0;
      }
    }
    red[lid] = sum;
    red[WG + lid] = n;
    reduce(lid, 2u);
    nSeq = red[WG];
    rhoSeq = exp(red[0] / max(nSeq, 1.0));
    workgroupBarrier(); // every invocation has read red before it is reused
  }

  var acc: array<f32, NR>;
  for (var t = lid; t < T; t += WG) {
    let i = base + t;
    let c = coef[i];
    if (!(c > 0.0)) {
      w[i] = 0.0;
      e[i] = 0.0;
      continue;
    }
    let lp = logp[i];
    let A = adv[i];
    let rho = select(exp(lp - oldLogp[i]), rhoSeq, seq);
    let s = surrogate(rho, A);
    let k = klTerm(lp, refLogp[i]);
    let H = entropy[i];
    // at sequence level the surrogate's share is added below, once Σ c·∂ℓ/∂log ρ_b is known
    w[i] = c * (select(s.grad, 0.0, seq) + p.beta * k.y);
    e[i] = -p.entCoef * c;
    acc[0] += c * s.loss;
    acc[1] += c * k.x;
    acc[2] += c * H;
    acc[3] += 1.0;
    acc[4] += flag(s.kind == 1u);
    acc[5] += flag(s.kind == 2u);
    acc[6] += flag(s.kind == 3u);
    acc[7] += k.x;
    acc[8] += H;
    acc[9] += rho;
    acc[10] += c * s.grad;
  }
  for (var s = 0u; s < NR; s++) {
    red[s * WG + lid] = acc[s];
  }
  reduce(lid, NR);
  if (lid == 0u) {
    for (var s = 0u; s < NS; s++) {
      stats[b * NS + s] = red[s * WG];
    }
  }
  if (seq) {
    // ∂ρ_b/∂logp_t = ρ_b·M_t/n_b; the ρ_b factor is already inside ∂ℓ/∂log ρ_b
    let g = red[NS * WG] / max(nSeq, 1.0);
    for (var t = lid; t < T; t += WG) {
      let i = base + t;
      if (coef[i] > 0.0) {
        w[i] += g;
      }
    }
  }
}
