// The explorer's grid kept across reloads, beside the run archive: which runs the grid planned and
// which run of the run list is whose (the runs themselves are in the run archive). One grid at a
// time: a new grid replaces it (its runs stay in the run list). IndexedDB in the page; tests use
// memoryGridArchive.
import type { DBSchema, IDBPDatabase, IDBPObjectStore } from 'idb';
import type { GridState } from '../../explore/queue';
import { openVersioned, type Upgrade } from './idb';

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

const KEY = 'current';

interface GridDb extends DBSchema {
  grid: { key: string; value: GridState };
}

/** Version 1 (the first release): one store, the grid under the key `current`. */
const UPGRADES: readonly Upgrade<GridDb>[] = [(db) => void db.createObjectStore('grid')];

/** A database of its own: the run archive's schema stays as it is. */
export function indexedDbGridArchive(name = 'rlvr-lab-explorer'): GridArchive {
  let db: Promise<IDBPDatabase<GridDb>> | null = null;
  const get = () => (db ??= openVersioned(name, UPGRADES));
  const write = async (f: (s: IDBPObjectStore<GridDb, ['grid'], 'grid', 'readwrite'>) => Promise<unknown>) => {
    const tx = (await get()).transaction('grid', 'readwrite');
    await Promise.all([f(tx.store), tx.done]);
  };
  return {
    async load() {
      return (await (await get()).get('grid', KEY)) ?? null;
    },
    save: (g) => write((s) => s.put(g, KEY)),
    clear: () => write((s) => s.delete(KEY)),
  };
}
