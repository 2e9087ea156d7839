// Import slice: a run's JSON export read back as a new, finished run of this page. The file is
// checked whole before anything changes (importRun.ts); a good one is appended to the run list
// under a new id and number (existing runs are never touched), selected, and saved to the
// archive like any other run; a bad one leaves everything as it was and says what is wrong.
import type { StateCreator } from 'zustand/vanilla';
import { errorText } from '../util/errors';
import { importedRecord, importRunText, MAX_RUN_FILE_BYTES } from './files/importRun';
import { chunkOfData } from './runData';
import { runDiff } from './launcher';
import type { RunServices, RunView } from './runsSlice';
import type { LabState } from './store';

/** What the import needs of a file (a DOM File is one). */
export interface TextFile {
  name: string;
  size: number;
  text(): Promise<string>;
}

export interface ImportSlice {
  runImport: {
    /** why the last file was refused; null after a success */
    error: string | null;
    /** the label of the run the last good file became */
    imported: string | null;
  };
  /** Adds the run a file holds; returns the problem (also kept in runImport.error) or null. */
  importRunFile(file: TextFile): Promise<string | null>;
}

export const createImportSlice =
  (services: RunServices): StateCreator<LabState, [], [], ImportSlice> =>
  (set, get) => {
    const refuse = (message: string) => {
      set({ runImport: { error: message, imported: null } });
      return message;
    };
    return {
      runImport: { error: null, imported: null },

      async importRunFile(file) {
        if (file.size > MAX_RUN_FILE_BYTES) return refuse(`${file.name}: ${(file.size / 2 ** 20).toFixed(0)} MB; run files of at most ${MAX_RUN_FILE_BYTES / 2 ** 20} MB are accepted`);
        let body: string;
        try {
          body = await file.text();
        } catch (e) {
          return refuse(`${file.name}: could not be read (${errorText(e)})`);
        }
        const parsed = importRunText(file.name, body);
        if (!parsed.ok) return refuse(parsed.message);
        const runs = get().runs;
        const prev = runs.order.map((id) => runs.byId[id]).filter((v) => v.loop === parsed.run.loop).pop();
        const index = runs.order.reduce((m, id) => Math.max(m, runs.byId[id].index), 0) + 1;
        const record = importedRecord(parsed.run, services.newRunId(), index, runDiff(parsed.run.config, prev ?? null, parsed.run.loop), services.now());
        const view: RunView = { ...record, live: false, data: parsed.run.data };
        set((s) => ({
          runs: { ...s.runs, order: [...s.runs.order, record.id], byId: { ...s.runs.byId, [record.id]: view }, selected: record.id },
          runImport: { error: null, imported: record.label },
        }));
        try {
          await services.archive?.putRun(record);
          await services.archive?.appendChunk(record.id, chunkOfData(view.data));
        } catch (e) {
          set((s) => ({ runs: { ...s.runs, archive: 'failed', archiveError: errorText(e) } }));
        }
        return null;
      },
    };
  };
