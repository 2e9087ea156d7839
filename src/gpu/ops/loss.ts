// The fused log-softmax over the vocabulary. Twin of shaders/softmax_logp.wgsl; CPU reference
// softmaxLogpRef in src/reference/loss.ts.
import { Gpu, GpuError, requireElems, packParams, u32, f32, type Dispatch, type TensorRef, type KernelVariant } from '../runtime';
import { grid1d } from './grid';

/** Rows (invocations) per workgroup of the CPU variant. */
const DIRECT_WG = 16;

export interface SoftmaxDims {
  R: number; // rows = B*T positions
  V: number; // vocabulary
}

export interface SoftmaxOutputs {
  logp: TensorRef; // (R) log π(targets[r])
  entropy: TensorRef; // (R) H of the temperature-scaled distribution
  dlogits: TensorRef | null; // (R, V) dJ/dlogits, overwritten; may be null when withGrad = false
}

export interface SoftmaxOptions {
  /** divides the logits before the softmax; > 0 (default 1) */
  temperature?: number;
  /** false: only logp and entropy are written (default true) */
  withGrad?: boolean;
  /** the kernel design (default: by adapter, see Gpu.kernelVariant) */
  variant?: KernelVariant;
}

export interface SoftmaxLogp {
  dispatch: Dispatch;
  /** Rewrites the uniform; takes effect from the next run of `dispatch`. */
  setTemperature(t: number): void;
}

/**
 * logp[R], entropy[R] and dlogits[R,V] = dJ/dlogits of J = Σ_r (w[r]·logp[r] + e[r]·H_r) for
 * π = softmax(logits / temperature). Mean cross-entropy at temperature 1: w = −1/N on the
 * counted rows, e = 0; masked rows (w = e = 0) get an exactly zero gradient row.
 * Inputs: logits (R, V) f32, targets (R) u32 < V, w (R) f32, e (R) f32.
 */
export async function softmaxLogp(
  gpu: Gpu,
  out: SoftmaxOutputs,
  logits: TensorRef,
  targets: TensorRef,
  w: TensorRef,
  e: TensorRef,
  dims: SoftmaxDims,
  opts: SoftmaxOptions = {},
): Promise<SoftmaxLogp> {
  const { R, V } = dims;
  if (!Number.isInteger(R) || !Number.isInteger(V) || R < 1 || V < 1) throw new GpuError(`softmaxLogp: bad dims R=${R} V=${V}`);
  const withGrad = opts.withGrad ?? true;
  if (withGrad && !out.dlogits) throw new GpuError('softmaxLogp: withGrad needs a dlogits buffer');
  need(out.logp, R, 'logp');
  need(out.entropy, R, 'entropy');
  need(logits, R * V, 'logits');
  need(targets, R, 'targets');
  need(w, R, 'w');
  need(e, R, 'e');
  if (withGrad) need(out.dlogits!, R * V, 'dlogits');
  // The binding must exist even when the kernel never writes it (WITH_GRAD = false).
  const dlogits = withGrad ? out.dlogits! : gpu.createBuffer(16, 'softmax_logp.unused_dlogits');

  const paramsOf = (t: number): ArrayBuffer => {
    if (!(t > 0) || !Number.isFinite(t)) throw new GpuError(`softmaxLogp: temperature must be a positive number, got ${t}`);
    return packParams(u32(R), u32(V), f32(1 / t));
  };
  const params = gpu.uniform(paramsOf(opts.temperature ?? 1), 'softmax_logp.params');
  const bindings = [out.logp, out.entropy, dlogits, logits, targets, w, e, params];
  const dispatch =
    gpu.kernelVariant(opts.variant) === 'direct'
      ? await gpu.kernel('softmax_logp_direct', bindings, grid1d(R, DIRECT_WG), { WG: DIRECT_WG, WITH_GRAD: withGrad ? 1 : 0 }) // one invocation per row
      : await gpu.kernel('softmax_logp', bindings, grid1d(R, 1), { WG: workgroupFor(V), WITH_GRAD: withGrad ? 1 : 0 }); // one workgroup per row
  return { dispatch, setTemperature: (t) => gpu.write(params, paramsOf(t)) };
}

/** Smallest power of two ≥ V in [32, 256]: V = 64 runs one element per invocation. */
function workgroupFor(V: number): number {
  let wg = 32;
  while (wg < V && wg < 256) wg *= 2;
  return wg;
}

const need = (ref: TensorRef, elems: number, what: string): void => requireElems('softmaxLogp', what, ref, elems);
