// Keeps the launcher and the page URL in step: the URL's set-up (and a lesson link's hidden
// parts, locked fields and paper lesson) is read at start and whenever a link inside the page
// changes the address (openAddress: no reload, so runs keep training), then every launcher change
// rewrites the query in place (no history entry per keystroke).
import type { LabStore } from './store';
import { mergeQuery, queryToLauncher, queryToLesson } from './url';

/** Reads a page address's set-up and lesson into the store (what the page does on load). */
export function openAddress(store: LabStore, search: string): void {
  const decoded = queryToLauncher(new URLSearchParams(search));
  const lesson = queryToLesson(new URLSearchParams(search));
  // the lesson first: its locks apply to the launcher state read with it
  store.getState().setLesson(lesson.lesson);
  store.getState().setLauncher(decoded.launcher, [...decoded.warnings, ...lesson.warnings]);
}

export function syncLauncherWithUrl(store: LabStore, loc: Location, history: History): () => void {
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
