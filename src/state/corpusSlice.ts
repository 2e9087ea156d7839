// The corpora this page holds by name: a file uploaded into a corpus field is kept here (and in
// the browser's storage, corpusArchive.ts) under `upload:<hash>`, which is what the link writes;
// an address naming one is read after its corpus is loaded, so a reload keeps the corpus.
import type { StateCreator } from 'zustand/vanilla';
import { errorText } from '../util/errors';
import { corpusRef, type CorpusArchive } from './persist/corpusArchive';
import type { LabState } from './store';

export interface KnownCorpus {
  fileName: string;
  text: string;
}

export interface CorpusSlice {
  corpora: {
    /** uploaded corpora this page has read (uploaded here, or loaded for an address), by name */
    byRef: Readonly<Record<string, KnownCorpus>>;
    /** why uploaded corpora are not being kept across reloads, if they are not */
    saveError: string | null;
  };
  /** Keeps an uploaded corpus under its name (and in the browser's storage); returns the name. */
  keepCorpus(fileName: string, text: string): Promise<string>;
  /** Loads the named corpora from the browser's storage (those it holds; the address reader warns of the rest). */
  loadCorpora(refs: readonly string[]): Promise<void>;
}

export interface CorpusServices {
  corpora?: CorpusArchive | null;
  now: () => number;
}

export const createCorpusSlice =
  (services: CorpusServices): StateCreator<LabState, [], [], CorpusSlice> =>
  (set, get) => {
    const archive = services.corpora ?? null;
    const patch = (p: Partial<CorpusSlice['corpora']>) => set((s) => ({ corpora: { ...s.corpora, ...p } }));
    const know = (ref: string, c: KnownCorpus) => patch({ byRef: { ...get().corpora.byRef, [ref]: c } });
    return {
      corpora: { byRef: {}, saveError: archive ? null : 'this browser has no IndexedDB: an uploaded corpus lasts until the page closes, and a link cannot name it after that' },

      async keepCorpus(fileName, text) {
        const ref = corpusRef(text);
        know(ref, { fileName, text });
        try {
          await archive?.put({ ref, fileName, text, savedAt: services.now() });
        } catch (e) {
          patch({ saveError: `uploaded corpora are not being kept across reloads: ${errorText(e)}` });
        }
        return ref;
      },

      async loadCorpora(refs) {
        if (!archive) return;
        for (const ref of refs) {
          if (Object.hasOwn(get().corpora.byRef, ref)) continue;
          try {
            const c = await archive.get(ref);
            if (c) know(ref, { fileName: c.fileName, text: c.text });
          } catch (e) {
            patch({ saveError: `kept corpora could not be read: ${errorText(e)}` });
          }
        }
      },
    };
  };
