// "Upload checkpoint…" under the launcher's policy picker: a .safetensors file and its
// config.json (chosen together), or a .safetensors file the lab exported (it carries its config),
// become the base policy `upload:<file>`, kept in this browser.
import { useId } from 'react';
import { VOCAB_SIZE } from '../world/tokenizer';
import { useLab } from './LabStore';

export function PolicyUpload({ disabled }: { disabled: boolean }) {
  const id = useId();
  const upload = useLab((s) => s.uploadPolicy);
  const remove = useLab((s) => s.removeUploadedPolicy);
  const { error, busy, saveError, list } = useLab((s) => s.uploads);
  return (
    <div className="policy-upload">
      <label htmlFor={id} className={`file-button${disabled || busy ? ' disabled' : ''}`}>
        {busy ? 'Checking…' : 'Upload checkpoint…'}
      </label>
      <input
        id={id} type="file" multiple className="visually-hidden" accept=".safetensors,.json" data-testid="policy-upload" disabled={disabled || busy}
        aria-describedby={`${id}-help`}
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length > 0) void upload(files);
        }}
      />
      <p className="field-note" id={`${id}-help`}>
        Choose a .safetensors file and its config.json together, or a .safetensors file this lab exported alone (it carries its config); GPT-2 layout, this lab's {VOCAB_SIZE}-token vocabulary. It stays in this browser: the page address cannot carry it, so a
        link to this set-up opens with the default policy.
      </p>
      {error && (
        <p className="cfg-error" role="alert" data-testid="policy-upload-error">
          {error}
        </p>
      )}
      {saveError && <p className="field-note">{saveError}</p>}
      {list.length > 0 && (
        <ul className="upload-list" aria-label="Uploaded policies" data-testid="policy-uploads">
          {list.map((p) => (
            <li key={p.name}>
              <span>{p.name}</span>{' '}
              <button type="button" className="link" data-testid="policy-upload-remove" aria-label={`Remove ${p.name} from this browser`} onClick={() => void remove(p.name)}>
                remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
