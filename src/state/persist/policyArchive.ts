// Uploaded base policies kept across reloads, in their own IndexedDB database (so the run
// archive's schema is not involved). The bytes are kept as uploaded and checked again on load.
import type { DBSchema, IDBPDatabase, IDBPObjectStore } from 'idb';
import { openVersioned, type Upgrade } from './idb';

export interface SavedPolicy {
  /** `upload:<file>` */
  name: string;
  /** what the launcher shows under the picker */
  description: string;
  params: number;
  safetensors: Uint8Array;
  configJson: string;
  savedAt: number;
}

export interface PolicyArchive {
  put(p: SavedPolicy): Promise<void>;
  /** every saved policy, oldest first */
  loadAll(): Promise<SavedPolicy[]>;
  delete(name: string): Promise<void>;
}

export function memoryPolicyArchive(): PolicyArchive {
  const saved = new Map<string, SavedPolicy>();
  return {
    async put(p) {
      saved.set(p.name, structuredClone(p));
    },
    async loadAll() {
      return [...saved.values()].sort((a, b) => a.savedAt - b.savedAt).map((p) => structuredClone(p));
    },
    async delete(name) {
      saved.delete(name);
    },
  };
}

interface PolicyDb extends DBSchema {
  policies: { key: string; value: SavedPolicy };
}

/** Version 1 (the first release): policies by name. */
const UPGRADES: readonly Upgrade<PolicyDb>[] = [(db) => void db.createObjectStore('policies', { keyPath: 'name' })];

export function indexedDbPolicyArchive(name = 'rlvr-lab-policies'): PolicyArchive {
  let db: Promise<IDBPDatabase<PolicyDb>> | null = null;
  const get = () => (db ??= openVersioned(name, UPGRADES));
  // a write is done when its transaction commits (an abort, e.g. a full disk, rejects)
  const write = async (f: (store: IDBPObjectStore<PolicyDb, ['policies'], 'policies', 'readwrite'>) => Promise<unknown>) => {
    const tx = (await get()).transaction('policies', 'readwrite');
    await Promise.all([f(tx.store), tx.done]);
  };
  return {
    put: (p) => write((s) => s.put(p)),
    delete: (name) => write((s) => s.delete(name)),
    async loadAll() {
      const all = await (await get()).getAll('policies');
      return all.sort((a, b) => a.savedAt - b.savedAt);
    },
  };
}
