// Uploaded base policies kept across reloads, in their own IndexedDB database (so the run
// archive's schema is not involved). The bytes are kept as uploaded and checked again on load.
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

const STORE = 'policies';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

export function indexedDbPolicyArchive(name = 'rlvr-lab-policies'): PolicyArchive {
  let db: Promise<IDBDatabase> | null = null;
  const get = () => {
    if (db) return db;
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE, { keyPath: 'name' });
    db = request(open);
    return db;
  };
  const write = async (f: (store: IDBObjectStore) => void) => {
    const tx = (await get()).transaction(STORE, 'readwrite');
    f(tx.objectStore(STORE));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted (is the disk full?)'));
    });
  };
  return {
    put: (p) => write((s) => s.put(p)),
    delete: (name) => write((s) => s.delete(name)),
    async loadAll() {
      const tx = (await get()).transaction(STORE, 'readonly');
      const all = (await request(tx.objectStore(STORE).getAll())) as SavedPolicy[];
      return all.sort((a, b) => a.savedAt - b.savedAt);
    },
  };
}
