// Uploaded base policies: a checkpoint the user chose is checked on the page (policyUpload.ts),
// registered with the worker (which checks it again and serves it before the shipped ones), listed
// in the launcher's policy picker as `upload:<file>`, and saved in IndexedDB so that it is back
// after a reload. A bad file changes nothing and leaves a message naming the problem.
import type { StateCreator } from 'zustand/vanilla';
import type { LabClient } from '../lab/protocol';
import type { GPTConfig } from '../model/config';
import type { PolicyInfo } from './catalog';
import { errorText } from '../util/errors';
import type { PolicyArchive } from './persist/policyArchive';
import { checkCheckpoint, readCheckpointFiles, uploadName, type BinaryFile, type CheckedCheckpoint } from './files/policyUpload';
import type { LabState } from './store';

export interface PolicySlice {
  uploads: {
    /** uploaded policies, in upload order */
    list: PolicyInfo[];
    /** why the last upload (or restoring a saved one) failed */
    error: string | null;
    busy: boolean;
    /** why uploads are not being saved across reloads, if they are not */
    saveError: string | null;
  };
  /** Checks the chosen files and, if they are a checkpoint that fits, offers and selects it; returns the problem or null. */
  uploadPolicy(files: readonly BinaryFile[]): Promise<string | null>;
  /** Registers the policies saved by earlier visits with the worker and lists them. */
  loadUploadedPolicies(): Promise<void>;
  /**
   * Forgets an uploaded policy: no longer offered, no longer saved. Runs already trained from it
   * keep their data and checkpoints; the launcher falls back to the default if it was selected.
   */
  removeUploadedPolicy(name: string): Promise<void>;
}

export interface PolicyServices {
  policies: PolicyArchive | null;
  now: () => number;
}

function describeUpload(fileName: string, cfg: GPTConfig): string {
  return `uploaded from ${fileName}: ${cfg.nLayer} layers, ${cfg.nEmbd} wide, ${cfg.nHead} heads, ${cfg.nPositions} positions`;
}

export const createPolicySlice =
  (client: LabClient, services: PolicyServices): StateCreator<LabState, [], [], PolicySlice> =>
  (set, get) => {
    const patch = (p: Partial<PolicySlice['uploads']>) => set((s) => ({ uploads: { ...s.uploads, ...p } }));
    /** The worker checks and keeps the checkpoint; then the launcher lists it (and resolves against it). */
    const offer = async (name: string, c: CheckedCheckpoint, description: string) => {
      await client.registerPolicy(name, c.safetensors, c.configJson);
      patch({ list: [...get().uploads.list, { name, description, params: c.params }] });
      const l = get().launcher;
      get().setLauncher(l.state, l.warnings);
    };

    return {
      uploads: { list: [], error: null, busy: false, saveError: services.policies ? null : 'this browser has no IndexedDB: uploaded policies last until the page closes' },

      async uploadPolicy(files) {
        patch({ busy: true });
        let checked;
        try {
          checked = await readCheckpointFiles(files);
        } catch (e) {
          checked = { ok: false as const, message: `the files could not be read: ${errorText(e)}` };
        }
        if (!checked.ok) {
          patch({ busy: false, error: checked.message });
          return checked.message;
        }
        const c = checked.checkpoint;
        const name = uploadName(c.fileName, get().uploads.list.map((p) => p.name));
        const description = describeUpload(c.fileName, c.cfg);
        try {
          await offer(name, c, description);
        } catch (e) {
          const message = `${c.fileName}: the engine refused it: ${errorText(e)}`;
          patch({ busy: false, error: message });
          return message;
        }
        patch({ busy: false, error: null });
        get().setPolicy(name);
        try {
          await services.policies?.put({ name, description, params: c.params, safetensors: c.safetensors, configJson: c.configJson, savedAt: services.now() });
        } catch (e) {
          patch({ saveError: `uploaded policies are not being saved: ${errorText(e)}` });
        }
        return null;
      },

      async removeUploadedPolicy(name) {
        if (!get().uploads.list.some((p) => p.name === name)) return;
        patch({ list: get().uploads.list.filter((p) => p.name !== name), error: null });
        // re-resolve the set-up: a removed policy that was selected gives way to the default
        const l = get().launcher;
        get().setLauncher(l.state.policy === name ? { ...l.state, policy: null } : l.state, l.warnings);
        try {
          await services.policies?.delete(name);
        } catch (e) {
          patch({ saveError: `${name} could not be removed from this browser's storage: ${errorText(e)}` });
        }
      },

      async loadUploadedPolicies() {
        if (!services.policies) return;
        let saved;
        try {
          saved = await services.policies.loadAll();
        } catch (e) {
          patch({ saveError: `saved uploads could not be read: ${errorText(e)}` });
          return;
        }
        const failed: string[] = [];
        for (const p of saved) {
          if (get().uploads.list.some((u) => u.name === p.name)) continue;
          const checked = checkCheckpoint(p.name, p.safetensors, 'its config.json', p.configJson);
          try {
            if (!checked.ok) throw new Error(checked.message);
            await offer(p.name, checked.checkpoint, p.description);
          } catch (e) {
            failed.push(`${p.name}: ${errorText(e)}`);
          }
        }
        if (failed.length > 0) patch({ error: `saved uploads could not be restored: ${failed.join('; ')}` });
      },
    };
  };
