// Runs kept across reloads: one record per run (set-up, label, last status) and its events as
// append-only chunks, in IndexedDB. The store sees only the RunArchive interface; tests use
// memoryArchive.
import type { BaseLoopConfig } from '../../loops/base_config';
import type { RunStatus } from '../../lab/protocol';
import type { DBSchema, IDBPDatabase } from 'idb';
import { openVersioned, type Upgrade } from './idb';
import type { RunChunk } from '../runData';

export interface RunRecord {
  id: string;
  /** 1, 2, 3…: the run's number on this page */
  index: number;
  label: string;
  /** the set-up's difference from the previous run ("" for none) */
  diff: string;
  loop: string;
  policy: string;
  config: BaseLoopConfig;
  createdAt: number;
  status: RunStatus;
}

export interface ArchivedRun {
  record: RunRecord;
  chunks: RunChunk[];
}

export interface RunArchive {
  putRun(r: RunRecord): Promise<void>;
  appendChunk(runId: string, chunk: RunChunk): Promise<void>;
  /** every run, oldest first, with its chunks in the order they were appended */
  loadRuns(): Promise<ArchivedRun[]>;
  deleteRun(runId: string): Promise<void>;
  /** Replaces a run's record and all its chunks at once (a resumed run drops what came after its checkpoint). */
  rewriteRun(r: RunRecord, chunks: readonly RunChunk[]): Promise<void>;
}

export function memoryArchive(): RunArchive {
  const runs = new Map<string, RunRecord>();
  const chunks = new Map<string, RunChunk[]>();
  return {
    async putRun(r) {
      runs.set(r.id, structuredClone(r));
    },
    async appendChunk(runId, chunk) {
      chunks.set(runId, [...(chunks.get(runId) ?? []), structuredClone(chunk)]);
    },
    async loadRuns() {
      return [...runs.values()].sort((a, b) => a.createdAt - b.createdAt).map((record) => ({ record: structuredClone(record), chunks: structuredClone(chunks.get(record.id) ?? []) }));
    },
    async deleteRun(runId) {
      runs.delete(runId);
      chunks.delete(runId);
    },
    async rewriteRun(r, cs) {
      runs.set(r.id, structuredClone(r));
      chunks.set(r.id, structuredClone([...cs]));
    },
  };
}

interface ArchiveDb extends DBSchema {
  runs: { key: string; value: RunRecord };
  chunks: { key: number; value: { runId: string; chunk: RunChunk }; indexes: { runId: string } };
}

/** Version 1 (the first release): runs by id, chunks in append order with an index by run. */
const UPGRADES: readonly Upgrade<ArchiveDb>[] = [
  (db) => {
    db.createObjectStore('runs', { keyPath: 'id' });
    db.createObjectStore('chunks', { autoIncrement: true }).createIndex('runId', 'runId');
  },
];

/**
 * The browser archive. Read-write transactions over the same store run in the order they are
 * created; a run's record (`runs`) and its chunks (`chunks`) are different stores, whose writes
 * may land in either order (the runs slice waits for both before it shows a run finished).
 */
export function indexedDbArchive(name = 'rlvr-lab'): RunArchive {
  let db: Promise<IDBPDatabase<ArchiveDb>> | null = null;
  const get = () => (db ??= openVersioned(name, UPGRADES));
  return {
    async putRun(r) {
      const tx = (await get()).transaction('runs', 'readwrite');
      await Promise.all([tx.store.put(r), tx.done]);
    },
    async appendChunk(runId, chunk) {
      const tx = (await get()).transaction('chunks', 'readwrite');
      await Promise.all([tx.store.add({ runId, chunk }), tx.done]);
    },
    async loadRuns() {
      const tx = (await get()).transaction(['runs', 'chunks'], 'readonly');
      const records = await tx.objectStore('runs').getAll();
      const index = tx.objectStore('chunks').index('runId');
      const out: ArchivedRun[] = [];
      for (const record of records.sort((a, b) => a.createdAt - b.createdAt)) {
        const rows = await index.getAll(record.id);
        out.push({ record, chunks: rows.map((r) => r.chunk) });
      }
      await tx.done;
      return out;
    },
    async deleteRun(runId) {
      const tx = (await get()).transaction(['runs', 'chunks'], 'readwrite');
      const chunks = tx.objectStore('chunks');
      const keys = await chunks.index('runId').getAllKeys(runId);
      await Promise.all([tx.objectStore('runs').delete(runId), ...keys.map((k) => chunks.delete(k)), tx.done]);
    },
    async rewriteRun(r, cs) {
      // one transaction: a page closed half way keeps the old run whole
      const tx = (await get()).transaction(['runs', 'chunks'], 'readwrite');
      const chunks = tx.objectStore('chunks');
      const keys = await chunks.index('runId').getAllKeys(r.id);
      await Promise.all([tx.objectStore('runs').put(r), ...keys.map((k) => chunks.delete(k)), ...cs.map((chunk) => chunks.add({ runId: r.id, chunk })), tx.done]);
    },
  };
}
