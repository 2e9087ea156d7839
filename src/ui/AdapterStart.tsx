// For a loop that trains adapter sets (TTSP): the next run can start its sets from adapter files
// the lab exported (each set's download; its config is inside). The page reads each file's name
// and config here; the worker checks it against the base policy and the run's rank, α and
// targets when the run starts. The files stay in this page, never in the address.
import { useId, useState } from 'react';
import { adapterStartSet, MAX_ADAPTER_FILE_BYTES } from '../state/files/adapterStartFile';
import { isLoopName, loopNamed } from '../loops/registry';
import { useLab } from './LabStore';

/** The adapter sets of `loop` (none for most loops). */
function setNames(loop: string): string[] {
  if (!isLoopName(loop)) return [];
  const spec = loopNamed(loop).spec;
  return (spec.shape(spec.validate({})).adapters ?? []).map((a) => a.spec.name);
}

export function AdapterStart() {
  const id = useId();
  const loop = useLab((s) => s.launcher.state.loop);
  const files = useLab((s) => s.adapterStart);
  const setFiles = useLab((s) => s.setAdapterStart);
  const [error, setError] = useState<string | null>(null);
  const names = setNames(loop);
  if (names.length === 0) return null;
  const read = async (list: FileList) => {
    const out: { file: string; name: string; bytes: Uint8Array }[] = [];
    for (const f of Array.from(list)) {
      // the size first: a file is read whole, and a huge one would take the tab's memory
      if (f.size > MAX_ADAPTER_FILE_BYTES) return setError(`${f.name} is ${(f.size / 2 ** 20).toFixed(0)} MB; an adapter file is at most ${MAX_ADAPTER_FILE_BYTES / 2 ** 20} MB; the adapters chosen before are kept`);
      const bytes = new Uint8Array(await f.arrayBuffer());
      const set = adapterStartSet(f.name, bytes, loop, names);
      if ('error' in set) return setError(`${set.error}; the adapters chosen before are kept`);
      if (out.some((o) => o.name === set.name)) return setError(`${f.name}: a second file for the ${set.name} set; the adapters chosen before are kept`);
      out.push({ file: f.name, name: set.name, bytes });
    }
    setError(null);
    setFiles(out);
  };
  return (
    <div className="field adapter-start" data-testid="adapter-start">
      <label htmlFor={id}>Start the adapter sets from</label>
      <span data-testid="adapter-start-what">
        {files.length === 0 ? `fresh adapters (${names.join(', ')})` : files.map((f) => `${f.name}: ${f.file}`).join('; ')}
      </span>
      <input id={id} type="file" accept=".safetensors" multiple data-testid="adapter-start-upload" onChange={(e) => e.target.files && void read(e.target.files)} />
      {files.length > 0 && (
        <button type="button" className="link" data-testid="adapter-start-clear" onClick={() => setFiles([])}>
          start fresh
        </button>
      )}
      <p className="field-note">An adapter set downloaded from a finished run (its config is in the file); the run checks it fits the base policy and this set-up&apos;s rank, α and targets.</p>
      {error && (
        <p className="cfg-error" role="alert" data-testid="adapter-start-error">
          {error}
        </p>
      )}
    </div>
  );
}
