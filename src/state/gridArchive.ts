// The explorer's grid kept across reloads, beside the run archive: which runs the grid planned and
// which run of the run list is whose (the runs themselves are in the run archive). One grid at a
// time: a new grid replaces it (its runs stay in the run list). IndexedDB in the page; tests use
// memoryGridArchive.
import type { GridState } from '../explore/queue';

export interface GridArchive {
  load(): Promise<GridState | null>;
  save(g: GridState): Promise<void>;
  clear(): Promise<void>;
}

export function memoryGridArchive(): GridArchive & { saved: () => GridState | null } {
  let grid: GridState | null = null;
  return {
    async load() {
      return grid ? structuredClone(grid) : null;
    },
    async save(g) {
      grid = structuredClone(g);
    },
    async clear() {
      grid = null;
    },
    saved: () => grid,
  };
}

const STORE = 'grid';
const KEY = 'current';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

/** A database of its own: the run archive's schema stays as it is. */
export function indexedDbGridArchive(name = 'rlvr-lab-explorer'): GridArchive {
  let db: Promise<IDBDatabase> | null = null;
  const get = () =>
    (db ??= (() => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => void open.result.createObjectStore(STORE);
      return request(open);
    })());
  const write = async (f: (s: IDBObjectStore) => void) => {
    const tx = (await get()).transaction(STORE, 'readwrite');
    f(tx.objectStore(STORE));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  };
  return {
    async load() {
      const tx = (await get()).transaction(STORE, 'readonly');
      return ((await request(tx.objectStore(STORE).get(KEY))) as GridState | undefined) ?? null;
    },
    save: (g) => write((s) => void s.put(g, KEY)),
    clear: () => write((s) => void s.delete(KEY)),
  };
}
