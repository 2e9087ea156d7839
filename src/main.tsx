// Entry of the page: one store, one engine worker, one React root.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createLabClient } from './lab/client';
import { createLabStore } from './state/store';
import { App } from './ui/App';
import { LabStoreProvider } from './ui/LabStore';

const store = createLabStore(createLabClient());
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
