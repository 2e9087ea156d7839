// The policy-gradient loss head: per-token weights w = ∂L/∂log π and e = ∂L/∂H of the RL loss,
// computed on the GPU from the current log π (the ratio changes across epochs, so no readback).
// Twin of shaders/pg_loss.wgsl; CPU reference pgLossRef in src/reference/pg.ts.
import { Gpu, GpuError, requireElems, packParams, u32, f32, type Dispatch, type TensorRef } from '../runtime';
import { grid1d } from './grid';
import { checkPgHyper, PG_NSTATS, type KlType, type PgHyper } from '../../rl/hyper';

const KL_CODE: Readonly<Record<KlType, number>> = { k1: 1, k2: 2, k3: 3 };

function pgParams(B: number, T: number, h: PgHyper): ArrayBuffer {
  checkPgHyper(h);
  return packParams(
    u32(B), u32(T),
    f32(h.epsLow), f32(h.epsHigh), f32(h.dualClipC ?? 0),
    f32(h.beta), u32(h.klType === null ? 0 : KL_CODE[h.klType]), f32(h.klClamp),
    f32(h.entCoef), u32(h.ratioLevel === 'sequence' ? 1 : 0),
  );
}

export interface PgLossOutputs {
  w: TensorRef; // (B, T) ∂L/∂logp, overwritten
  e: TensorRef; // (B, T) ∂L/∂H, overwritten
  stats: TensorRef; // (B, PG_NSTATS) per-sequence partial sums, overwritten
}

export interface PgLossInputs {
  logp: TensorRef; // (B, T) log π_θ(y_t) of the current parameters
  entropy: TensorRef; // (B, T) H_t of the current parameters (metrics only)
  oldLogp: TensorRef; // (B, T) log π_old(y_t) recorded at sampling
  refLogp: TensorRef; // (B, T) log π_ref(y_t); unread when klType is null
  adv: TensorRef; // (B, T) A_t
  coef: TensorRef; // (B, T) aggregation weight c_t ≥ 0; 0 = not in the loss
}

export interface PgLoss {
  dispatches: Dispatch[];
  /** Rewrites the uniform; takes effect from the next run of the dispatches. */
  setHyper(h: PgHyper): void;
}

/** Smallest power of two ≥ T in [32, 256]: short sequences need no idle invocations. */
function workgroupFor(T: number): number {
  let wg = 32;
  while (wg < T && wg < 256) wg *= 2;
  return wg;
}

/** Records the loss head: one workgroup per sequence (the sequence-level ratio couples its tokens). */
export async function pgLoss(gpu: Gpu, out: PgLossOutputs, inp: PgLossInputs, dims: { B: number; T: number }, hyper: PgHyper): Promise<PgLoss> {
  const { B, T } = dims;
  if (!Number.isInteger(B) || !Number.isInteger(T) || B < 1 || T < 1) throw new GpuError(`pgLoss: bad dims B=${B} T=${T}`);
  const BT = B * T;
  for (const [ref, what] of [[out.w, 'w'], [out.e, 'e'], ...(Object.entries(inp) as [string, TensorRef][]).map(([k, r]) => [r, k] as const)] as const) need(ref, BT, what);
  need(out.stats, B * PG_NSTATS, 'stats');
  const params = gpu.uniform(pgParams(B, T, hyper), 'pg_loss.params');
  const dispatch = await gpu.kernel(
    'pg_loss',
    [out.w, out.e, out.stats, inp.logp, inp.entropy, inp.oldLogp, inp.refLogp, inp.adv, inp.coef, params],
    grid1d(B, 1),
    { WG: workgroupFor(T) },
  );
  return { dispatches: [dispatch], setHyper: (h) => gpu.write(params, pgParams(B, T, h)) };
}

const need = (ref: TensorRef, elems: number, what: string): void => requireElems('pgLoss', what, ref, elems);
