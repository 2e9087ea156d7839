// For a loop that trains adapter sets (TTSP): the next run can start its sets from adapter files
// the lab exported (each set's download; its config is inside). The page reads each file's name
// and config here; the worker checks it against the base policy and the run's rank, α and
// targets when the run starts. The files stay in this page, never in the address.
import { useId, useState } from 'react';
import { decodeSafetensors } from '../model/safetensors';
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
      const bytes = new Uint8Array(await f.arrayBuffer());
      try {
        const config = decodeSafetensors(bytes, f.name).metadata.adapter_config;
        if (!config) throw new Error('no adapter_config in its metadata: upload an adapter set the lab exported (a run\'s "solver adapter" or "proposer adapter")');
        const name = (JSON.parse(config) as { adapter_name?: unknown }).adapter_name;
        if (typeof name !== 'string' || !names.includes(name)) throw new Error(`its set is ${JSON.stringify(name)}; ${loop} trains ${names.join(' and ')}`);
        if (out.some((o) => o.name === name)) throw new Error(`a second file for the ${name} set`);
        out.push({ file: f.name, name, bytes });
      } catch (e) {
        return setError(`${f.name}: ${(e as Error).message}; the adapters chosen before are kept`);
      }
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
