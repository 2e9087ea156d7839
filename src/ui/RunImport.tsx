// "Import run": a run's JSON export (from this page or another browser) read back and listed
// as a finished run, ready to compare; a file that is not one is refused with what is wrong.
import { useId } from 'react';
import { useLab } from './LabStore';

export function RunImport() {
  const id = useId();
  const importRun = useLab((s) => s.importRunFile);
  const { error, imported } = useLab((s) => s.runImport);
  return (
    <div className="run-import">
      <label htmlFor={id} className="file-button">
        Import run…
      </label>
      <input
        id={id} type="file" className="visually-hidden" accept=".json,application/json" data-testid="run-import"
        onChange={(e) => {
          const file = e.target.files?.[0];
          // cleared so that choosing the same file again imports it again
          e.target.value = '';
          if (file) void importRun(file);
        }}
      />
      <span className="detail">a run exported as JSON; it is added to the list, nothing else changes</span>
      {error && (
        <p className="cfg-error" role="alert" data-testid="run-import-error">
          {error}
        </p>
      )}
      {imported && !error && (
        <p className="detail" aria-live="polite" data-testid="run-import-done">
          Imported as {imported}.
        </p>
      )}
    </div>
  );
}
