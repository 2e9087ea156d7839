// Workgroup-grid helpers shared by the op twins.

/** A 1-D launch of `n` invocations in workgroups of `wg`, folded into 2-D past the 65535 limit. */
export function grid1d(n: number, wg: number): [number, number] {
  const groups = Math.ceil(n / wg);
  if (groups <= 65535) return [groups, 1];
  const x = 65535;
  return [x, Math.ceil(groups / x)];
}

export const ceilDiv = (a: number, b: number): number => Math.ceil(a / b);
