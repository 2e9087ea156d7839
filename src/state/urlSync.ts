// Keeps the launcher and the page URL in step: the URL's set-up (and a lesson link's hidden
// parts, locked fields and paper lesson) is read at start and whenever a link inside the page
// changes the address (openAddress: no reload, so runs keep training), then every launcher change
// rewrites the query in place (no history entry per keystroke). An uploaded corpus is named in
// the address (`corpus=upload:…`) and read back from the browser's storage.
import type { LabStore } from './store';
import { corpusRefsIn, mergeQuery, queryToLauncher, queryToLesson } from './url';

/** Reads a page address's set-up and lesson into the store (what the page does on load). */
export function openAddress(store: LabStore, search: string): void {
  // an uploaded corpus the address names: the text this page holds under that name
  const decoded = queryToLauncher(new URLSearchParams(search), (ref) => store.getState().corpora.byRef[ref]?.text);
  const lesson = queryToLesson(new URLSearchParams(search));
  // the lesson first: its locks apply to the launcher state read with it
  store.getState().setLesson(lesson.lesson);
  store.getState().setLauncher(decoded.launcher, [...decoded.warnings, ...lesson.warnings]);
}

/**
 * Reads the address, then keeps it in step with the launcher. An address naming an uploaded
 * corpus (`corpus=upload:…`) is read once that corpus is loaded from the browser's storage, and
 * only then is the address rewritten, so a reload keeps the corpus and its name.
 */
export async function syncLauncherWithUrl(store: LabStore, loc: Location, history: History): Promise<() => void> {
  const refs = corpusRefsIn(loc.search);
  if (refs.length > 0) await store.getState().loadCorpora(refs);
  openAddress(store, loc.search);
  return store.subscribe((s, prev) => {
    if (s.launcher.state === prev.launcher.state) return;
    const query = mergeQuery(new URLSearchParams(loc.search), s.launcher.state);
    history.replaceState(history.state, '', `${loc.pathname}${query}${loc.hash}`);
  });
}

/** Follows a link inside the page: a new history entry, read into the store without a reload. */
export function followLink(store: LabStore, loc: Location, history: History, query: string): void {
  history.pushState(history.state, '', `${loc.pathname}${query === '?' ? '' : query}${loc.hash}`);
  openAddress(store, loc.search);
}
