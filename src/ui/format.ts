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

/** Three significant digits, no trailing zeros; exponent form for tiny and huge values. */
export function formatValue(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? '—' : String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a < 1e-3 || a >= 1e6) return x.toExponential(2);
  return String(Number(x.toPrecision(3)));
}

/** Seconds as "42 s", "3 min 5 s" or "2 h 10 min". */
export function formatDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}
