// The page's IndexedDB databases open through `idb` (promises instead of request callbacks) at
// a version that counts their upgrades: upgrade i (from version i to i + 1) runs only on a
// database stored before it, so a later store or index is one more entry, and a user's data
// from any earlier version opens and is kept.
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';

export type Upgrade<S extends DBSchema> = (db: IDBPDatabase<S>, tx: IDBPTransaction<S, StoreNames<S>[], 'versionchange'>) => void;

/** `name` at version `upgrades.length`, with the upgrades its stored version lacks applied in order. */
export function openVersioned<S extends DBSchema>(name: string, upgrades: readonly Upgrade<S>[]): Promise<IDBPDatabase<S>> {
  return openDB<S>(name, upgrades.length, {
    upgrade(db, oldVersion, _newVersion, tx) {
      for (let v = oldVersion; v < upgrades.length; v++) upgrades[v](db, tx);
    },
  });
}
