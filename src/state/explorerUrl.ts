// Keeps the explorer and the page URL in step, as urlSync.ts does for the launcher (which carries
// the grid's base set-up): `grid=` is read once at start and rewritten in place whenever the
// grid's form changes; `explore=gallery/<name>.json` opens that sweep file read-only, and
// `explore=synthetic` a synthetic grid of 48 runs × 300 steps × 20 metrics (the bench's figure).
import { EXPLORE_PARAM, formFromParam, galleryPathOf, GRID_PARAM, withGridParam } from '../explore/gridUrl';
import { syntheticSweep } from '../explore/synthetic';
import type { LabStore } from './store';
import { cutLine, escapeControls } from '../util/show';
import { followLink } from './urlSync';

export function syncExplorerWithUrl(store: LabStore, loc: Location, history: History): () => void {
  const q = new URLSearchParams(loc.search);
  const { form, warning } = formFromParam(q.get(GRID_PARAM));
  const explore = q.get(EXPLORE_PARAM);
  const warnings = warning ? [warning] : [];
  store.getState().setGridForm(form);
  if (explore === 'synthetic') store.getState().showSweep(syntheticSweep(), 'synthetic');
  else {
    const g = galleryPathOf(explore);
    if (g.warning) warnings.push(g.warning);
    if (g.path) void store.getState().openGallery(g.path);
  }
  // the address is the user's text: a warning quoting it stays one short, escaped line
  if (warnings.length) store.getState().setExplorerWarnings(warnings.map((w) => cutLine(escapeControls(w))));
  if (explore) store.getState().setExplorerReveal(true);
  return store.subscribe((s, prev) => {
    if (s.explorer.form === prev.explorer.form) return;
    history.replaceState(history.state, '', `${loc.pathname}${withGridParam(loc.search, s.explorer.form)}${loc.hash}`);
  });
}

/**
 * Follows a link inside the page to a gallery entry (the intro's "See what the lab measured"):
 * the address gets `explore=<path>` as a new history entry, keeping every other parameter
 * (followLink), the entry opens read-only, and the explorer scrolls into view once it is drawn.
 * Only this link opens it: the page's other links keep `explore=` without fetching it again.
 */
export async function followGalleryLink(store: LabStore, loc: Location, history: History, query: string, path: string): Promise<string | null> {
  followLink(store, loc, history, query);
  const error = await store.getState().openGallery(path);
  // drawn: the explorer comes into view; refused: the link says why (a reveal left pending would
  // scroll the page later, out of the blue)
  if (error === null) store.getState().setExplorerReveal(true);
  return error;
}
