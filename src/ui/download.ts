// Saves files (a run's export, a chart's picture) through a temporary object URL and a download link.
import { runFile } from '../state/files/exportRun';
import type { RunView } from '../state/runsSlice';

export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function downloadRun(run: RunView, format: 'csv' | 'json'): void {
  const f = runFile(run, format);
  downloadBlob(new Blob([f.text], { type: `${f.mime};charset=utf-8` }), f.filename);
}
