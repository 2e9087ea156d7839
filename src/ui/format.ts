// Number formatting shared by the panels.
export function formatError(x: number): string {
  if (Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return '∞';
  return x === 0 ? '0' : x.toExponential(2);
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function formatLimit(name: string, v: number): string {
  if (/Size$/.test(name) && v >= 1 << 20) return `${(v / (1 << 20)).toFixed(0)} MiB`;
  if (/Size$/.test(name) && v >= 1 << 10) return `${(v / (1 << 10)).toFixed(0)} KiB`;
  return v.toLocaleString('en-US');
}

export function formatLoss(x: number): string {
  return x.toFixed(x < 0.01 ? 5 : 3);
}
