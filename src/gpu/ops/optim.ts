// The optimiser: global gradient norm and AdamW with clipping. Twins of shaders/grad_norm_sq.wgsl
// and shaders/adamw.wgsl; CPU references gradNormSqRef and adamwRef in src/reference/optim.ts.
// Parameters live in one flat f32 buffer (n floats); grads, m and v share its layout, and a
// per-element u32 `flags` buffer says what is trained (bit0) and decayed (bit1).
import { Gpu, GpuError, requireElems, packParams, u32, f32, type Dispatch, type TensorRef, type KernelVariant } from '../runtime';
import { grid1d } from './grid';
import type { AdamWHyper } from '../../rl/hyper';

const WG = 256;
/** Stage-1 workgroups at most: enough to fill a large GPU, few enough for one stage-2 workgroup. */
const MAX_PARTIALS = 1024;
/** CPU variant: invocations per workgroup, and stage-1 workgroups at most (256 partials). */
const DIRECT_WG = 16;
const CPU_MAX_GROUPS = 16;

/**
 * normSq[0] = Σ grads[i]² over the n elements: stage 1 writes one partial sum per workgroup
 * into a buffer owned by the returned dispatches, stage 2 sums the partials in fixed order.
 */
export async function gradNormSq(gpu: Gpu, normSq: TensorRef, grads: TensorRef, n: number, opts: { variant?: KernelVariant } = {}): Promise<Dispatch[]> {
  if (!Number.isInteger(n) || n < 0) throw new GpuError(`gradNormSq: bad n=${n}`);
  need('gradNormSq', normSq, 1, 'normSq');
  need('gradNormSq', grads, n, 'grads');
  if (gpu.kernelVariant(opts.variant) === 'direct') {
    // one partial per invocation, a few hundred elements each; stage 2 is one invocation
    const groups = Math.min(CPU_MAX_GROUPS, Math.max(1, Math.ceil(n / (DIRECT_WG * 256))));
    const partials = gpu.createBuffer(groups * DIRECT_WG * 4, 'grad_norm_sq.partials'); // (P)
    const p1 = gpu.uniform(packParams(u32(n)), 'grad_norm_sq.params1');
    const p2 = gpu.uniform(packParams(u32(groups * DIRECT_WG)), 'grad_norm_sq.params2');
    return [
      await gpu.kernel('grad_norm_sq_direct', [partials, grads, p1], [groups], { WG: DIRECT_WG, SQUARE: 1 }, 'grad_norm_sq_direct.partials'),
      await gpu.kernel('grad_norm_sq_direct', [normSq, partials, p2], [1], { WG: 1, SQUARE: 0 }, 'grad_norm_sq_direct.final'),
    ];
  }
  const P = Math.min(MAX_PARTIALS, Math.max(1, Math.ceil(n / WG)));
  const partials = gpu.createBuffer(P * 4, 'grad_norm_sq.partials'); // (P)
  const p1 = gpu.uniform(packParams(u32(n)), 'grad_norm_sq.params1');
  const p2 = gpu.uniform(packParams(u32(P)), 'grad_norm_sq.params2');
  return [
    await gpu.kernel('grad_norm_sq', [partials, grads, p1], [P], { WG, SQUARE: 1 }, 'grad_norm_sq.partials'),
    await gpu.kernel('grad_norm_sq', [normSq, partials, p2], [1], { WG, SQUARE: 0 }, 'grad_norm_sq.final'),
  ];
}

export interface AdamW {
  dispatch: Dispatch;
  /** Rewrites the uniform (learning rate, step, ...); takes effect from the next run. */
  setHyper(h: AdamWHyper): void;
}

/**
 * One AdamW step in place on params, m, v (n floats each), reading normSq[0] from gradNormSq.
 * Clip scale s = maxGradNorm > 0 ? min(1, maxGradNorm / (sqrt(normSq) + 1e-6)) : 1. If normSq
 * is not finite nothing is updated and status[0] = 1, else status[0] = 0. Only elements with
 * flags bit0 change; bit1 adds decoupled weight decay.
 */
export async function adamw(
  gpu: Gpu,
  params: TensorRef,
  m: TensorRef,
  v: TensorRef,
  status: TensorRef,
  grads: TensorRef,
  flags: TensorRef,
  normSq: TensorRef,
  n: number,
  hyper: AdamWHyper,
): Promise<AdamW> {
  if (!Number.isInteger(n) || n < 0) throw new GpuError(`adamw: bad n=${n}`);
  for (const [ref, what] of [[params, 'params'], [m, 'm'], [v, 'v'], [grads, 'grads'], [flags, 'flags']] as const) need('adamw', ref, n, what);
  need('adamw', status, 1, 'status');
  need('adamw', normSq, 1, 'normSq');
  const uniform = gpu.uniform(adamwParams(n, hyper), 'adamw.params');
  // at least one workgroup: invocation 0 writes status even when n = 0
  const dispatch = await gpu.kernel('adamw', [params, m, v, status, grads, flags, normSq, uniform], grid1d(Math.max(n, 1), WG), { WG });
  return { dispatch, setHyper: (h) => gpu.write(uniform, adamwParams(n, h)) };
}

function adamwParams(n: number, h: AdamWHyper): ArrayBuffer {
  if (!Number.isInteger(h.step) || h.step < 1) throw new GpuError(`adamw: step must be an integer ≥ 1 (1-based), got ${h.step}`);
  if (!(h.beta1 >= 0 && h.beta1 < 1 && h.beta2 >= 0 && h.beta2 < 1)) throw new GpuError(`adamw: betas must lie in [0, 1), got ${h.beta1}, ${h.beta2}`);
  if (!(h.maxGradNorm >= 0)) throw new GpuError(`adamw: maxGradNorm must be ≥ 0 (0 = no clipping), got ${h.maxGradNorm}`);
  // bias corrections in float64 here rather than pow() in f32 on every element
  const bc1 = 1 - h.beta1 ** h.step;
  const bc2 = 1 - h.beta2 ** h.step;
  return packParams(u32(n), f32(h.lr), f32(h.beta1), f32(h.beta2), f32(h.eps), f32(h.weightDecay), f32(h.maxGradNorm), f32(bc1), f32(bc2));
}

const need = (op: string, ref: TensorRef, elems: number, what: string): void => requireElems(op, what, ref, elems);
