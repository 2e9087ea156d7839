// Uploaded corpora kept across reloads, in their own IndexedDB database, and named in links by
// their content (`corpus=upload:<hash>`) instead of travelling in them: a 33 KB corpus made a
// 61,834-character address whose reload got HTTP 431. A link opened in another browser names a
// corpus that browser does not hold, and the page says so.

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

export interface CorpusArchive {
  put(c: SavedCorpus): Promise<void>;
  /** the corpus of that name, checked; undefined when none (or a damaged one) is kept */
  get(ref: string): Promise<SavedCorpus | undefined>;
}

export function memoryCorpusArchive(): CorpusArchive {
  const saved = new Map<string, unknown>();
  return {
    async put(c) {
      saved.set(c.ref, structuredClone(c));
    },
    async get(ref) {
      return checkSavedCorpus(saved.get(ref)) ?? undefined;
    },
  };
}

const STORE = 'corpora';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

export function indexedDbCorpusArchive(name = 'rlvr-lab-corpora'): CorpusArchive {
  let db: Promise<IDBDatabase> | null = null;
  const get = () => {
    if (db) return db;
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE, { keyPath: 'ref' });
    db = request(open);
    return db;
  };
  return {
    async put(c) {
      const tx = (await get()).transaction(STORE, 'readwrite');
      tx.objectStore(STORE).put(c);
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
        tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted (is the disk full?)'));
      });
    },
    async get(ref) {
      const tx = (await get()).transaction(STORE, 'readonly');
      return checkSavedCorpus(await request(tx.objectStore(STORE).get(ref))) ?? undefined;
    },
  };
}
