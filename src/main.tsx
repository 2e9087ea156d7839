// Entry of the page: one store, the engine's workers, one React root. The launcher's set-up is
// read from and written to the URL; runs are kept in IndexedDB across reloads.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createLab } from './lab/page/lab';
import { indexedDbArchive } from './state/persist/archive';
import { indexedDbPolicyArchive } from './state/persist/policyArchive';
import { indexedDbCorpusArchive } from './state/persist/corpusArchive';
import { fetchCatalog } from './state/catalog';
import { createLabStore } from './state/store';
import { webLockOwnership } from './state/ownership';
import { syncExplorerWithUrl } from './state/explorerUrl';
import { indexedDbGridArchive } from './state/persist/gridArchive';
import { broadcastRunChannel } from './state/runChannel';
import { openAddress, syncLauncherWithUrl } from './state/urlSync';
import { App } from './ui/App';
import { LabStoreProvider } from './ui/LabStore';

const base = new URL(import.meta.env.BASE_URL, window.location.origin);
let runCounter = 0;
// the main worker serves the adapter panel, self-test, demo and checkpoints; each run
// trains in a GPU worker of its own; CPU mode's workers start only if the user picks CPU
// mode (no WebGPU)
const { client, cpuMode } = createLab();
const store = createLabStore(client, {
  fetchCatalog: () => fetchCatalog(base),
  archive: typeof indexedDB === 'undefined' ? null : indexedDbArchive(),
  ownership: webLockOwnership(),
  // the other tabs of this browser follow this tab's runs live, and it theirs
  channel: broadcastRunChannel(),
  policies: typeof indexedDB === 'undefined' ? null : indexedDbPolicyArchive(),
  // uploaded corpora, which links name (corpus=upload:…) instead of carrying
  corpora: typeof indexedDB === 'undefined' ? null : indexedDbCorpusArchive(),
  newRunId: () => `${Date.now().toString(36)}-${(runCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
  now: () => Date.now(),
  cpuMode,
  // the explorer's grid across reloads, and the gallery's sweep files under public/
  grids: typeof indexedDB === 'undefined' ? null : indexedDbGridArchive(),
  fetchText: async (path) => {
    const res = await fetch(new URL(path, base), { cache: 'no-cache' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res.text();
  },
  // checkpoints live in the origin-private file system; ask once that the browser keep them
  persistStorage: navigator.storage?.persist ? () => navigator.storage.persist() : undefined,
});
void syncLauncherWithUrl(store, window.location, window.history);
syncExplorerWithUrl(store, window.location, window.history);
// back and forward through the page's own links (followLink) read the address again
window.addEventListener('popstate', () => openAddress(store, window.location.search));
void store.getState().loadCatalog();
void store.getState().loadArchive();
void store.getState().loadGrid();
void store.getState().requestPersistentStorage();
void store.getState().loadUploadedPolicies();

const debug = new URLSearchParams(window.location.search).has('debug');
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <LabStoreProvider store={store}>
      <App debug={debug} />
    </LabStoreProvider>
  </StrictMode>,
);
