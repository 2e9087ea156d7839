// Runs kept across reloads: one record per run (set-up, label, last status) and its events as
// append-only chunks, in IndexedDB. The store sees only the RunArchive interface; tests use
// memoryArchive.
import type { BaseLoopConfig } from '../loops/base_config';
import type { RunStatus } from '../lab/protocol';
import type { RunChunk } from './runData';

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

const RUNS = 'runs';
const CHUNKS = 'chunks';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

function openDb(name: string): Promise<IDBDatabase> {
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => {
    const db = open.result;
    db.createObjectStore(RUNS, { keyPath: 'id' });
    db.createObjectStore(CHUNKS, { autoIncrement: true }).createIndex('runId', 'runId');
  };
  return request(open);
}

/** The browser archive; transactions on one database run in the order they are created. */
export function indexedDbArchive(name = 'rlvr-lab'): RunArchive {
  let db: Promise<IDBDatabase> | null = null;
  const get = () => (db ??= openDb(name));
  return {
    async putRun(r) {
      const tx = (await get()).transaction(RUNS, 'readwrite');
      tx.objectStore(RUNS).put(r);
      await done(tx);
    },
    async appendChunk(runId, chunk) {
      const tx = (await get()).transaction(CHUNKS, 'readwrite');
      tx.objectStore(CHUNKS).add({ runId, chunk });
      await done(tx);
    },
    async loadRuns() {
      const tx = (await get()).transaction([RUNS, CHUNKS], 'readonly');
      const records = (await request(tx.objectStore(RUNS).getAll())) as RunRecord[];
      const index = tx.objectStore(CHUNKS).index('runId');
      const out: ArchivedRun[] = [];
      for (const record of records.sort((a, b) => a.createdAt - b.createdAt)) {
        const rows = (await request(index.getAll(record.id))) as { chunk: RunChunk }[];
        out.push({ record, chunks: rows.map((r) => r.chunk) });
      }
      return out;
    },
    async deleteRun(runId) {
      const tx = (await get()).transaction([RUNS, CHUNKS], 'readwrite');
      tx.objectStore(RUNS).delete(runId);
      const keys = await request(tx.objectStore(CHUNKS).index('runId').getAllKeys(runId));
      for (const k of keys) tx.objectStore(CHUNKS).delete(k);
      await done(tx);
    },
    async rewriteRun(r, cs) {
      // one transaction: a page closed half way keeps the old run whole
      const tx = (await get()).transaction([RUNS, CHUNKS], 'readwrite');
      tx.objectStore(RUNS).put(r);
      const keys = await request(tx.objectStore(CHUNKS).index('runId').getAllKeys(r.id));
      for (const k of keys) tx.objectStore(CHUNKS).delete(k);
      for (const chunk of cs) tx.objectStore(CHUNKS).add({ runId: r.id, chunk });
      await done(tx);
    },
  };
}
