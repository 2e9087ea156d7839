// A corpus file as the user gives it (the page's upload, the CLI's --corpus), checked before and
// after reading: a size cap first (a 300 MB file crashed the tab), then its text: a file is a
// file, so one whose whole text is the word `generated` (the config's name for the built-in
// corpus) is refused rather than silently becoming the built-in corpus.
import { GENERATED_CORPUS } from './fields';
import { cutLine, escapeControls, showText } from '../util/show';

/** 16 MB is some 400,000 documents, far past what a run reads (corpusDocuments). */
export const MAX_CORPUS_BYTES = 16_000_000;

/** Why a file of this size is not read; null when it may be. */
export function corpusSizeProblem(name: string, bytes: number): string | null {
  return bytes > MAX_CORPUS_BYTES ? `${name} is ${(bytes / 1e6).toFixed(0)} MB; a corpus file is at most ${MAX_CORPUS_BYTES / 1e6} MB` : null;
}

/** Why a file's text is no corpus before the loop's validator reads it; null when the loop may judge it. */
export function corpusTextProblem(name: string, text: string): string | null {
  if (text.trim() === '') return `${name} is empty: a corpus file holds one document a line, e.g. a=7;b=a+5;c=b*3`;
  if (text.trim() === GENERATED_CORPUS) return `${name} holds only the word "${GENERATED_CORPUS}", which names the built-in corpus; a corpus file holds one document a line, e.g. a=7;b=a+5;c=b*3`;
  return null;
}

/**
 * The one line that refuses a corpus file (page and CLI): the file's name, the loop validator's
 * reason without its `corpus.corpus = …:` head, escaped and cut so the line stays under 300
 * characters, and `tail` (e.g. "the corpus in use is unchanged") kept whole after the cut.
 */
export function corpusRefusal(name: string, validatorMessage: string, tail = ''): string {
  const reason = validatorMessage.replace(/^corpus\.corpus(?: = .*?)?: /s, '');
  const end = tail ? `; ${tail}` : '';
  return cutLine(`${showText(name)}: ${escapeControls(reason)}`, 280 - end.length) + end;
}
