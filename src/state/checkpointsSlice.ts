// Checkpoints slice: the runs' checkpoints the worker keeps in the browser's storage (for the
// prune list when storage is full), deleting those of finished runs, exporting one as a file,
// and asking the browser once to keep the lab's storage rather than evict it under pressure.
import type { StateCreator } from 'zustand/vanilla';
import type { CheckpointFile, CheckpointFormat, CheckpointInfo, LabClient } from '../lab/protocol';
import { errorText } from '../util/errors';
import { isFinished } from './runsSlice';
import type { LabState } from './store';

export interface CheckpointsSlice {
  checkpoints: {
    list: CheckpointInfo[];
    status: 'idle' | 'loading' | 'ready' | 'failed';
    /** the last failure of a listing, deletion or export */
    message: string | null;
    /** whether the browser promised to keep the lab's storage; null: not known (not asked, or no API) */
    persisted: boolean | null;
  };
  loadCheckpoints(): Promise<void>;
  /** Deletes the checkpoints of finished runs (an active run's is refused with a message). */
  pruneCheckpoints(runIds: string[]): Promise<void>;
  /** The run's latest checkpoint as a file, or null (the reason is in `checkpoints.message`). */
  exportCheckpoint(runId: string, format: CheckpointFormat): Promise<CheckpointFile | null>;
  requestPersistentStorage(): Promise<void>;
}

export interface CheckpointServices {
  /** navigator.storage.persist in the page; absent where the browser has no such API */
  persistStorage?: () => Promise<boolean>;
}

export const createCheckpointsSlice =
  (client: LabClient, services: CheckpointServices): StateCreator<LabState, [], [], CheckpointsSlice> =>
  (set, get) => {
    const patch = (p: Partial<CheckpointsSlice['checkpoints']>) => set((s) => ({ checkpoints: { ...s.checkpoints, ...p } }));
    return {
      checkpoints: { list: [], status: 'idle', message: null, persisted: null },

      async loadCheckpoints() {
        patch({ status: 'loading' });
        try {
          patch({ list: await client.listCheckpoints(), status: 'ready', message: null });
        } catch (e) {
          patch({ status: 'failed', message: `the checkpoints could not be listed: ${errorText(e)}` });
        }
      },

      async pruneCheckpoints(runIds) {
        const byId = get().runs.byId;
        const active = runIds.filter((id) => byId[id] && !isFinished(byId[id].status.state));
        if (active.length > 0) return patch({ message: `run ${active.map((id) => byId[id].label).join(', ')} is still active; stop it before deleting its checkpoint` });
        try {
          await client.deleteCheckpoints(runIds);
          patch({ message: null });
        } catch (e) {
          patch({ message: `the checkpoints could not be deleted: ${errorText(e)}` });
        }
        await get().loadCheckpoints();
      },

      async exportCheckpoint(runId, format) {
        try {
          const f = await client.exportCheckpoint(runId, format);
          patch({ message: null });
          return f;
        } catch (e) {
          patch({ message: `the checkpoint could not be exported: ${errorText(e)}` });
          return null;
        }
      },

      async requestPersistentStorage() {
        if (!services.persistStorage || get().checkpoints.persisted !== null) return;
        try {
          patch({ persisted: await services.persistStorage() });
        } catch (e) {
          patch({ persisted: false, message: `the browser did not say whether it keeps the lab's storage: ${errorText(e)}` });
        }
      },
    };
  };
