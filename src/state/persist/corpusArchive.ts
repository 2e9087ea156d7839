// Uploaded corpora kept across reloads, in their own IndexedDB database, and named in links by
// their content (`corpus=upload:<hash>`) instead of travelling in them: a 33 KB corpus made a
// 61,834-character address whose reload got HTTP 431. A link opened in another browser names a
// corpus that browser does not hold, and the page says so. The newest MAX_SAVED_CORPORA are kept.
import type { DBSchema, IDBPDatabase } from 'idb';
import { openVersioned, type Upgrade } from './idb';

/** A link names an uploaded corpus `upload:<16 hex digits>`, the hash of its text. */
export const CORPUS_REF_PREFIX = 'upload:';
const REF = /^upload:[0-9a-f]{16}$/;

export const isCorpusRef = (v: unknown): v is string => typeof v === 'string' && v.startsWith(CORPUS_REF_PREFIX);

/**
 * The name a link gives a corpus: 64 bits of two 32-bit string hashes (cyrb53's mixing) of its
 * text, so equal texts get one name in every browser and any text gets it without a lookup.
 */
export function corpusRef(text: string): string {
  // the launcher writes its link on every change: a 16 MB corpus is hashed once, not per keystroke
  if (last?.text === text) return last.ref;
  const ref = hashRef(text);
  last = { text, ref };
  return ref;
}

let last: { text: string; ref: string } | null = null;

function hashRef(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hex = (h: number) => (h >>> 0).toString(16).padStart(8, '0');
  return `${CORPUS_REF_PREFIX}${hex(h2)}${hex(h1)}`;
}

export interface SavedCorpus {
  /** `upload:<hash>`: corpusRef(text) */
  ref: string;
  /** the uploaded file's name, shown beside the corpus field */
  fileName: string;
  text: string;
  savedAt: number;
}

/**
 * A stored record as read back (the browser's storage can hold anything an older page or a
 * damaged disk left): the corpus, or null when it is not one whose text still has its name.
 */
export function checkSavedCorpus(v: unknown): SavedCorpus | null {
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  if (typeof r.ref !== 'string' || !REF.test(r.ref) || typeof r.text !== 'string' || typeof r.fileName !== 'string') return null;
  if (corpusRef(r.text) !== r.ref) return null;
  return { ref: r.ref, fileName: r.fileName.slice(0, 200), text: r.text, savedAt: typeof r.savedAt === 'number' && Number.isFinite(r.savedAt) ? r.savedAt : 0 };
}

/** Corpora kept at most; saving one more forgets the one saved longest ago (16 × 16 MB at worst). */
export const MAX_SAVED_CORPORA = 16;

export interface CorpusArchive {
  /** keeps `c`; past MAX_SAVED_CORPORA the oldest others are forgotten */
  put(c: SavedCorpus): Promise<void>;
  /** the corpus of that name, checked; undefined when none (or a damaged one) is kept */
  get(ref: string): Promise<SavedCorpus | undefined>;
}

/** The names to forget so that `c` and at most MAX_SAVED_CORPORA - 1 others stay: the oldest first. */
function toForget(kept: readonly { ref: string; savedAt: number }[], c: SavedCorpus): string[] {
  const others = kept.filter((k) => k.ref !== c.ref).sort((a, b) => a.savedAt - b.savedAt);
  return others.slice(0, Math.max(0, others.length - (MAX_SAVED_CORPORA - 1))).map((k) => k.ref);
}

export function memoryCorpusArchive(): CorpusArchive {
  const saved = new Map<string, unknown>();
  return {
    async put(c) {
      const kept = [...saved.entries()].map(([ref, v]) => ({ ref, savedAt: checkSavedCorpus(v)?.savedAt ?? 0 }));
      for (const ref of toForget(kept, c)) saved.delete(ref);
      saved.set(c.ref, structuredClone(c));
    },
    async get(ref) {
      return checkSavedCorpus(saved.get(ref)) ?? undefined;
    },
  };
}

interface CorpusDb extends DBSchema {
  corpora: { key: string; value: SavedCorpus; indexes: { savedAt: number } };
}

/** Version 1: corpora by name. Version 2: an index by age, so that forgetting reads no texts. */
const UPGRADES: readonly Upgrade<CorpusDb>[] = [
  (db) => void db.createObjectStore('corpora', { keyPath: 'ref' }),
  (_db, tx) => void tx.objectStore('corpora').createIndex('savedAt', 'savedAt'),
];

export function indexedDbCorpusArchive(name = 'rlvr-lab-corpora'): CorpusArchive {
  let db: Promise<IDBPDatabase<CorpusDb>> | null = null;
  const get = () => (db ??= openVersioned(name, UPGRADES));
  return {
    async put(c) {
      const tx = (await get()).transaction('corpora', 'readwrite');
      // oldest first by the index (a record without a numeric savedAt is not in it and stays)
      const byAge = (await tx.store.index('savedAt').getAllKeys()).filter((ref) => ref !== c.ref);
      for (const ref of byAge.slice(0, Math.max(0, byAge.length - (MAX_SAVED_CORPORA - 1)))) await tx.store.delete(ref);
      await tx.store.put(c);
      // a write is done when its transaction commits (an abort, e.g. a full disk, rejects)
      await tx.done;
    },
    async get(ref) {
      return checkSavedCorpus(await (await get()).get('corpora', ref)) ?? undefined;
    },
  };
}
