// Keeps the launcher and the page URL in step: the URL's set-up (and a lesson link's hidden
// parts and locked fields) is read once at start, then every launcher change rewrites the query
// in place (no history entry per keystroke).
import type { LabStore } from './store';
import { mergeQuery, queryToLauncher, queryToLesson } from './url';

export function syncLauncherWithUrl(store: LabStore, loc: Location, history: History): () => void {
  const decoded = queryToLauncher(new URLSearchParams(loc.search));
  const lesson = queryToLesson(new URLSearchParams(loc.search));
  store.getState().setLesson(lesson.lesson);
  store.getState().setLauncher(decoded.launcher, [...decoded.warnings, ...lesson.warnings]);
  return store.subscribe((s, prev) => {
    if (s.launcher.state === prev.launcher.state) return;
    const query = mergeQuery(new URLSearchParams(loc.search), s.launcher.state);
    history.replaceState(history.state, '', `${loc.pathname}${query}${loc.hash}`);
  });
}
