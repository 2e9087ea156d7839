// Float64 CPU references of the elementwise kernels.
type Arr = ArrayLike<number>;

export function residualForwardRef(out: Float64Array, a: Arr, b: Arr): void {
  for (let i = 0; i < out.length; i++) out[i] = a[i] + b[i];
}
