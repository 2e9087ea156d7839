// Elementwise kernels. Twins of shaders/residual_forward.wgsl.
import { Gpu, packParams, u32, type Dispatch, type TensorRef } from '../runtime';
import { grid1d } from './grid';

const WG = 256;

/** out = a + b over n floats (the residual stream). */
export function residualForward(gpu: Gpu, out: TensorRef, a: TensorRef, b: TensorRef, n: number): Promise<Dispatch> {
  const params = gpu.uniform(packParams(u32(n)), 'residual_forward.params');
  return gpu.kernel('residual_forward', [out, a, b, params], grid1d(n, WG), { WG });
}
