// SPICE's corpus: the lab's generated corpus of worked documents (fixed by a seed, so every run
// and every machine reads the same documents) or a user's corpus file, one document per line.
// A file with any bad line is refused as a whole, each bad line named by its number: a run never
// trains on a corpus quietly missing lines.
import { challengePrompt, generateCorpus, loadCorpus, renderDocument, type Document } from '../../world/index';
import { GENERATED_CORPUS } from '../../config/fields';
/** The seed of the generated corpus: part of the lab, not of a run. */
export const CORPUS_SEED = 0x5eed_c0de;

/** Lines shown of a bad file's errors. */
const SHOWN_ERRORS = 5;

/** Why a corpus file's text is refused (every bad line, the first few shown), or null when every line is a document. */
export function corpusError(text: string): string | null {
  let loaded;
  try {
    loaded = loadCorpus(text);
  } catch (e) {
    return (e as Error).message;
  }
  if (loaded.errors.length === 0) return null;
  const shown = loaded.errors.slice(0, SHOWN_ERRORS).map((e) => `line ${e.line}: ${e.message}`);
  const more = loaded.errors.length > SHOWN_ERRORS ? `; and ${loaded.errors.length - SHOWN_ERRORS} more bad lines` : '';
  return `${loaded.errors.length} of ${loaded.errors.length + loaded.docs.length} documents are not valid: ${shown.join('; ')}${more} (a document is one line like a=7;b=a+5;c=b*3)`;
}

let cached: { key: string; docs: Document[] } | null = null;

/** The documents of a run's corpus (throws with the line numbers if a file has bad lines). */
export function corpusDocuments(c: { corpus: string; corpusDocuments: number }): Document[] {
  const key = c.corpus === GENERATED_CORPUS ? `${GENERATED_CORPUS}:${c.corpusDocuments}` : c.corpus;
  if (cached?.key === key) return cached.docs;
  let docs: Document[];
  if (c.corpus === GENERATED_CORPUS) docs = generateCorpus(CORPUS_SEED, c.corpusDocuments);
  else {
    const e = corpusError(c.corpus);
    if (e) throw new Error(`corpus: ${e}`);
    docs = loadCorpus(c.corpus).docs;
  }
  cached = { key, docs };
  return docs;
}

/** A corpus as a file: one document per line, without values (what a corpus file holds). */
export function corpusText(docs: readonly Document[]): string {
  return docs.map((d) => renderDocument(d, false)).join('\n') + '\n';
}

/** The no-corpus ablation's "document": nothing to read. */
const EMPTY_DOCUMENT: Document = { text: '', statements: [] };

/**
 * The challenger's prompt as a run builds it: the document's worked record, or nothing (`doc`
 * null: the no-corpus ablation). The run and its cross-play both build it here, so they agree.
 */
export const challengerPrompt = (doc: Document | null): number[] => challengePrompt(doc ?? EMPTY_DOCUMENT);

/** Fewest response tokens a challenge prompt must leave in the policy's context (`2+3#5` and the end token). */
const MIN_QUESTION_ROOM = 8;

/**
 * Indices of the documents whose challenge prompt fits a policy of `nPositions` with room for a
 * question (all of them on `small`); throws, prefixed by `where`, when none does.
 */
export function usableDocuments(corpus: readonly Document[], nPositions: number, where: string): number[] {
  const room = nPositions - MIN_QUESTION_ROOM;
  const usable = corpus.map((d, i) => (challengePrompt(d).length <= room ? i : -1)).filter((i) => i >= 0);
  if (usable.length === 0) throw new Error(`${where}: no document of the corpus fits the policy's context of ${nPositions} tokens with room for a question; use shorter documents or a larger policy`);
  return usable;
}
