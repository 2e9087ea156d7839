// The IndexedDB archives (runs, uploaded policies, the explorer's grid, uploaded corpora) on fake-indexeddb: what
// is written reads back, deletes and rewrites touch only their run, and a database written by
// the first release's raw-IndexedDB code (version 1) opens with its data kept.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { indexedDbArchive, type RunRecord } from '../../src/state/persist/archive';
import { indexedDbPolicyArchive, type SavedPolicy } from '../../src/state/persist/policyArchive';
import { indexedDbGridArchive } from '../../src/state/persist/gridArchive';
import { corpusRef, indexedDbCorpusArchive, memoryCorpusArchive, MAX_SAVED_CORPORA, type SavedCorpus } from '../../src/state/persist/corpusArchive';
import type { RunChunk } from '../../src/state/runData';
import type { GridState } from '../../src/explore/queue';
import { defaultConfig } from '../../src/state/launcher';

let dbs = 0;
const fresh = (prefix: string) => `${prefix}-${++dbs}`;

const record = (id: string, createdAt: number): RunRecord => ({
  id, index: createdAt, label: `#${createdAt} GRPO · tiny`, diff: '', loop: 'grpo', policy: 'tiny', config: defaultConfig('grpo'), createdAt,
  status: { state: 'done', step: 2, totalSteps: 2, stepsPerS: null, etaS: null, error: null, checkpointStep: 2 },
});
const chunk = (step: number): RunChunk => ({ step: [step], seconds: [0.5], keys: ['reward'], metrics: new Float64Array([step / 10]), samples: [], evals: [] });

/** What the first release's openDb wrote: the same names, stores and index, by hand. */
function openLikeRelease1(name: string, upgrade: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => upgrade(open.result);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

function put(db: IDBDatabase, store: string, value: unknown, key?: IDBValidKey): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, 'readwrite');
    tx.objectStore(store).put(value, key);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

describe('run archive in IndexedDB', () => {
  it('loads runs oldest first with their chunks in append order; delete and rewrite touch one run', async () => {
    const a = indexedDbArchive(fresh('runs'));
    await a.putRun(record('late', 20));
    await a.putRun(record('early', 10));
    for (const s of [1, 2, 3]) await a.appendChunk('early', chunk(s));
    await a.appendChunk('late', chunk(7));
    const loaded = await a.loadRuns();
    expect(loaded.map((r) => r.record.id)).toEqual(['early', 'late']);
    expect(loaded[0].record).toEqual(record('early', 10));
    expect(loaded[0].chunks.map((c) => c.step[0])).toEqual([1, 2, 3]);
    expect(loaded[0].chunks[1].metrics).toEqual(new Float64Array([0.2]));

    // a resumed run drops what came after its checkpoint: its record and chunks replaced at once
    await a.rewriteRun({ ...record('early', 10), label: 'resumed' }, [chunk(1), chunk(5)]);
    await a.deleteRun('late');
    const after = await a.loadRuns();
    expect(after.map((r) => [r.record.id, r.record.label, r.chunks.map((c) => c.step[0])])).toEqual([['early', 'resumed', [1, 5]]]);
  });

  it('opens a version-1 database written before idb, keeping its runs', async () => {
    const name = fresh('runs');
    const old = await openLikeRelease1(name, (db) => {
      db.createObjectStore('runs', { keyPath: 'id' });
      db.createObjectStore('chunks', { autoIncrement: true }).createIndex('runId', 'runId');
    });
    await put(old, 'runs', record('kept', 5));
    await put(old, 'chunks', { runId: 'kept', chunk: chunk(4) });
    old.close();
    const loaded = await indexedDbArchive(name).loadRuns();
    expect(loaded).toEqual([{ record: record('kept', 5), chunks: [chunk(4)] }]);
  });
});

describe('policy and grid archives in IndexedDB', () => {
  const policy = (name: string, savedAt: number): SavedPolicy => ({ name, description: 'd', params: 10, safetensors: new Uint8Array([1, 2, 3]), configJson: '{}', savedAt });

  it('keeps uploaded policies oldest first, replaces by name and deletes', async () => {
    const p = indexedDbPolicyArchive(fresh('policies'));
    await p.put(policy('upload:b', 2));
    await p.put(policy('upload:a', 1));
    await p.put({ ...policy('upload:b', 3), description: 'again' });
    expect((await p.loadAll()).map((x) => [x.name, x.description])).toEqual([['upload:a', 'd'], ['upload:b', 'again']]);
    await p.delete('upload:a');
    expect(await p.loadAll()).toEqual([{ ...policy('upload:b', 3), description: 'again' }]);
  });

  it('opens version-1 policy and grid databases, keeping what they hold', async () => {
    const pName = fresh('policies');
    const pOld = await openLikeRelease1(pName, (db) => db.createObjectStore('policies', { keyPath: 'name' }));
    await put(pOld, 'policies', policy('upload:old', 1));
    pOld.close();
    expect(await indexedDbPolicyArchive(pName).loadAll()).toEqual([policy('upload:old', 1)]);

    const gName = fresh('grid');
    const grid = { entries: {}, order: ['arm1/1'] } as unknown as GridState;
    const gOld = await openLikeRelease1(gName, (db) => db.createObjectStore('grid'));
    await put(gOld, 'grid', grid, 'current');
    gOld.close();
    const g = indexedDbGridArchive(gName);
    expect(await g.load()).toEqual(grid);
    await g.clear();
    expect(await g.load()).toBeNull();
    await g.save(grid);
    expect(await g.load()).toEqual(grid);
  });
});

describe('corpus archive in IndexedDB', () => {
  const corpus = (i: number): SavedCorpus => {
    const text = `Document ${i}: the sum of ${i} and ${i + 1} is ${2 * i + 1}.`;
    return { ref: corpusRef(text), fileName: `c${i}.txt`, text, savedAt: 1000 + i };
  };

  it('reads back what it keeps, checked against its name, and forgets the oldest past the bound', async () => {
    const archive = indexedDbCorpusArchive(fresh('corpora'));
    const all = Array.from({ length: MAX_SAVED_CORPORA + 2 }, (_, i) => corpus(i));
    for (const c of all) await archive.put(c);
    // the two saved first are gone, the newest MAX_SAVED_CORPORA kept whole
    expect(await archive.get(all[0].ref)).toBeUndefined();
    expect(await archive.get(all[1].ref)).toBeUndefined();
    for (const c of all.slice(2)) expect(await archive.get(c.ref)).toEqual(c);
    // saving a kept one again forgets nothing
    await archive.put({ ...all[2], savedAt: 5000 });
    for (const c of all.slice(3)) expect(await archive.get(c.ref)).toEqual(c);
    expect((await archive.get(all[2].ref))?.savedAt).toBe(5000);
  });

  it('opens a version-1 corpus database, keeping its corpora and refusing a damaged one', async () => {
    const name = fresh('corpora-v1');
    const good = corpus(1);
    const db = await openLikeRelease1(name, (d) => d.createObjectStore('corpora', { keyPath: 'ref' }));
    await put(db, 'corpora', good);
    await put(db, 'corpora', { ...corpus(2), text: 'not the text its name was made from' });
    db.close();
    const archive = indexedDbCorpusArchive(name);
    expect(await archive.get(good.ref)).toEqual(good);
    expect(await archive.get(corpus(2).ref)).toBeUndefined();
    await archive.put(corpus(3));
    expect(await archive.get(corpus(3).ref)).toEqual(corpus(3));
  });

  it('the in-memory archive keeps the same bound', async () => {
    const archive = memoryCorpusArchive();
    const all = Array.from({ length: MAX_SAVED_CORPORA + 1 }, (_, i) => corpus(i));
    for (const c of all) await archive.put(c);
    expect(await archive.get(all[0].ref)).toBeUndefined();
    expect(await archive.get(all[MAX_SAVED_CORPORA].ref)).toEqual(all[MAX_SAVED_CORPORA]);
  });
});
