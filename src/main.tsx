// Entry of the page: one store, one engine worker, one React root. The launcher's set-up is
// read from and written to the URL; runs are kept in IndexedDB across reloads.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createLabClient } from './lab/client';
import { indexedDbArchive } from './state/archive';
import { fetchCatalog } from './state/catalog';
import { createLabStore } from './state/store';
import { syncLauncherWithUrl } from './state/urlSync';
import { App } from './ui/App';
import { LabStoreProvider } from './ui/LabStore';

const base = new URL(import.meta.env.BASE_URL, window.location.origin);
let runCounter = 0;
const store = createLabStore(createLabClient(), {
  fetchCatalog: () => fetchCatalog(base),
  archive: typeof indexedDB === 'undefined' ? null : indexedDbArchive(),
  newRunId: () => `${Date.now().toString(36)}-${(runCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
  now: () => Date.now(),
});
syncLauncherWithUrl(store, window.location, window.history);
void store.getState().loadCatalog();
void store.getState().loadArchive();

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
