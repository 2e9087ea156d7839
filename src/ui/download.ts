// Saves a run's export through a temporary object URL and a download link.
import { runFile } from '../state/exportRun';
import type { RunView } from '../state/runsSlice';

export function downloadRun(run: RunView, format: 'csv' | 'json'): void {
  const f = runFile(run, format);
  const url = URL.createObjectURL(new Blob([f.text], { type: `${f.mime};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = f.filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
