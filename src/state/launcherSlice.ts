// Launcher slice: the set-up of the next run, the base-policy catalog, and the set-up's
// validation (recomputed on every change, so components read it without work).
import type { StateCreator } from 'zustand/vanilla';
import type { RlCorePresetName } from '../rl/config';
import type { PolicyCatalog } from './catalog';
import { errorText } from './engineSlice';
import { DEFAULT_LAUNCHER, resolveLauncher, setField, setPreset, type LauncherState, type Resolved, type Section } from './launcher';
import type { LabState } from './store';

export type CatalogState =
  | { status: 'loading' }
  | { status: 'ready'; catalog: PolicyCatalog }
  | { status: 'failed'; message: string };

export interface LauncherSlice {
  launcher: {
    state: LauncherState;
    resolved: Resolved;
    /** problems with the URL the set-up was read from */
    warnings: string[];
  };
  catalog: CatalogState;
  loadCatalog(): Promise<void>;
  setLauncher(state: LauncherState, warnings?: string[]): void;
  setLoop(loop: string): void;
  setPolicy(policy: string): void;
  setRlPreset(preset: RlCorePresetName): void;
  setField(section: Section, key: string, value: unknown): void;
  resetLauncher(): void;
}

function resolveWith(state: LauncherState, catalog: CatalogState): Resolved {
  if (catalog.status === 'failed') return { ok: false, field: 'policy', message: `the list of base policies could not be loaded: ${catalog.message}` };
  const c = catalog.status === 'ready' ? { names: catalog.catalog.policies.map((p) => p.name), defaultPolicy: catalog.catalog.defaultPolicy } : null;
  return resolveLauncher(state, c);
}

export const createLauncherSlice =
  (fetchCatalog: () => Promise<PolicyCatalog>): StateCreator<LabState, [], [], LauncherSlice> =>
  (set, get) => {
    const update = (state: LauncherState, warnings = get().launcher.warnings) =>
      set({ launcher: { state, warnings, resolved: resolveWith(state, get().catalog) } });
    const initial: CatalogState = { status: 'loading' };
    return {
      launcher: { state: DEFAULT_LAUNCHER, warnings: [], resolved: resolveWith(DEFAULT_LAUNCHER, initial) },
      catalog: initial,

      async loadCatalog() {
        let catalog: CatalogState;
        try {
          catalog = { status: 'ready', catalog: await fetchCatalog() };
        } catch (e) {
          catalog = { status: 'failed', message: errorText(e) };
        }
        set({ catalog });
        update(get().launcher.state);
      },
      setLauncher(state, warnings = []) {
        update(state, warnings);
      },
      setLoop(loop) {
        update({ ...get().launcher.state, loop });
      },
      setPolicy(policy) {
        const cat = get().catalog;
        const isDefault = cat.status === 'ready' && cat.catalog.defaultPolicy === policy;
        update({ ...get().launcher.state, policy: isDefault ? null : policy });
      },
      setRlPreset(preset) {
        update(setPreset(get().launcher.state, preset));
      },
      setField(section, key, value) {
        update(setField(get().launcher.state, section, key, value));
      },
      resetLauncher() {
        update(DEFAULT_LAUNCHER, []);
      },
    };
  };
