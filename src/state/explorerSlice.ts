// Explorer slice: the grid's form (its base set-up is the launcher's), the grid that runs (kept in
// the grid archive, so a reload resumes its queue), and what the explorer shows: the grid's runs
// or a sweep file (imported, or a gallery entry opened by address), drawn through the same code.
// The queue itself is gridDriver.ts; its rules are src/explore/queue.ts.
import type { StateCreator } from 'zustand/vanilla';
import type { BandKind } from '../metrics/bands';
import { EMPTY_FORM, expandGrid, type GridForm, type GridPlan, type GridRefusal } from '../explore/grid';
import { mergeSweeps, readSweepText, MAX_SWEEP_FILE_BYTES, SweepFileError, type Sweep } from '../explore/format';
import type { XMode } from '../explore/draw';
import { newEntries, defaultConcurrency, type GridState } from '../explore/queue';
import { plansOfSweep } from '../explore/replay';
import { errorText } from '../util/errors';
import type { GridArchive } from './persist/gridArchive';
import type { TextFile } from './importSlice';
import type { LabState } from './store';
import { startGridDriver } from './gridDriver';
import { GALLERY_INDEX, parseGalleryIndex, type GalleryEntry } from '../explore/galleryIndex';

/** The gallery's list (public/gallery/index.json), fetched when the intro first shows it. */
export type GalleryList =
  | { status: 'idle' | 'loading' }
  | { status: 'ready'; entries: GalleryEntry[] }
  | { status: 'error'; error: string };

export type ExplorerSource =
  | { kind: 'grid' }
  /** a sweep file: imported, or a gallery entry (read-only: drawn from the file, no runs behind it) */
  | { kind: 'file'; sweep: Sweep; name: string; gallery: string | null };

export interface ExplorerSlice {
  explorer: {
    form: GridForm;
    /** the grid started last (null: none); its runs are ordinary runs of the run list */
    grid: GridState | null;
    /** the grid archive has been read (or there is none) */
    loaded: boolean;
    /** why the last start was refused: the arm and the field */
    refusal: GridRefusal | null;
    source: ExplorerSource;
    /** why the last import or gallery entry was refused (the explorer is unchanged) */
    importError: string | null;
    /** a gallery entry being fetched */
    opening: string | null;
    band: BandKind;
    xAxis: XMode;
    /** each seed's own line, thin, in its arm's colour */
    showSeeds: boolean;
    /** problems with the address's grid or explore parameter */
    warnings: string[];
    /** the address opened a sweep: the page scrolls the explorer into view once it is drawn */
    reveal: boolean;
    gallery: GalleryList;
  };
  setGridForm(patch: Partial<GridForm>): void;
  /** Checks every arm's config with its loop's validator and queues the grid; the refusal, or null. */
  startGrid(): Promise<GridRefusal | null>;
  /** Starts the arms of the shown sweep file live (a gallery entry's "Run it live"), the same configs and seeds. */
  startSweepLive(): Promise<GridRefusal | null>;
  pauseGrid(): void;
  resumeGrid(): void;
  setGridConcurrency(n: number): void;
  /** Forgets the grid (its runs stay in the run list). */
  clearGrid(): Promise<void>;
  loadGrid(): Promise<void>;
  importSweepFiles(files: readonly TextFile[]): Promise<string | null>;
  openGallery(path: string): Promise<string | null>;
  /** Shows a sweep already in memory (the bench's synthetic grid). */
  showSweep(sweep: Sweep, name: string): void;
  showGrid(): void;
  setExplorerBand(kind: BandKind): void;
  setExplorerX(mode: XMode): void;
  setShowSeeds(on: boolean): void;
  setExplorerWarnings(w: string[]): void;
  setExplorerReveal(on: boolean): void;
  /** Fetches and checks the gallery's list once (again only after an error). */
  loadGalleryList(): Promise<void>;
}

export interface ExplorerServices {
  grids?: GridArchive | null;
  /** a file under the page's public folder, as text (gallery entries) */
  fetchText?: (path: string) => Promise<string>;
  newRunId: () => string;
  now: () => number;
}

/** The catalog as the launcher's resolver takes it (null while it loads). */
function catalogOf(s: LabState) {
  if (s.catalog.status !== 'ready') return null;
  return { names: [...s.catalog.catalog.policies, ...(s.uploads?.list ?? [])].map((p) => p.name), defaultPolicy: s.catalog.catalog.defaultPolicy };
}

export const createExplorerSlice =
  (services: ExplorerServices): StateCreator<LabState, [], [], ExplorerSlice> =>
  (set, get, api) => {
    const patch = (p: Partial<ExplorerSlice['explorer']>) => set((s) => ({ explorer: { ...s.explorer, ...p } }));
    const save = (g: GridState | null) => (g ? services.grids?.save(g) : services.grids?.clear())?.catch((e: unknown) => patch({ warnings: [`the grid could not be saved for the next visit: ${errorText(e)}`] }));

    const queue = async (plan: GridPlan, title: string, concurrency: number | null, from?: string): Promise<null> => {
      const s = get();
      const adapter = s.device.adapter.status === 'ready' ? s.device.adapter.adapter : null;
      const grid: GridState = {
        id: services.newRunId(), createdAt: services.now(), title, arms: plan.arms, runs: plan.runs, entries: newEntries(plan.runs), paused: false,
        concurrency: concurrency ?? defaultConcurrency(adapter, s.cpuMode.status === 'on'), ...(from ? { from } : {}),
      };
      await save(grid);
      patch({ grid, refusal: null, source: { kind: 'grid' } });
      return null;
    };

    const refuse = (r: GridRefusal) => {
      patch({ refusal: r });
      return r;
    };

    // the queue follows the store from here on (a reload: once the grid and the run list have loaded)
    startGridDriver(api, { save: (g) => save(g) ?? Promise.resolve(), newRunId: services.newRunId });

    return {
      explorer: {
        form: EMPTY_FORM, grid: null, loaded: !services.grids, refusal: null, source: { kind: 'grid' }, importError: null, opening: null,
        band: 'se', xAxis: 'step', showSeeds: false, warnings: [], reveal: false, gallery: { status: 'idle' },
      },

      setGridForm(p) {
        patch({ form: { ...get().explorer.form, ...p }, refusal: null });
      },

      async startGrid() {
        const s = get();
        const e = expandGrid(s.explorer.form, s.launcher.state, catalogOf(s));
        if (!e.ok) return refuse({ arm: e.arm, field: e.field, message: e.message });
        const knobs = s.explorer.form.knobs.map((k) => k.key).join(' × ');
        return queue(e, `${s.launcher.state.loop}${knobs ? ` · ${knobs}` : ''} · ${e.arms.length} arm${e.arms.length === 1 ? '' : 's'}`, s.explorer.form.concurrency);
      },

      async startSweepLive() {
        const s = get();
        const src = s.explorer.source;
        if (src.kind !== 'file') return refuse({ arm: null, field: null, message: 'no sweep file is shown' });
        const e = plansOfSweep(src.sweep, catalogOf(s));
        if (!e.ok) return refuse({ arm: e.arm, field: e.field, message: e.message });
        return queue(e, `${src.sweep.title} (live)`, s.explorer.form.concurrency, src.gallery ?? src.name);
      },

      pauseGrid() {
        const g = get().explorer.grid;
        if (g && !g.paused) patch({ grid: { ...g, paused: true } });
      },
      resumeGrid() {
        const g = get().explorer.grid;
        if (g?.paused) patch({ grid: { ...g, paused: false } });
      },
      setGridConcurrency(n) {
        if (!(Number.isInteger(n) && n >= 1 && n <= 16)) return;
        const g = get().explorer.grid;
        patch({ form: { ...get().explorer.form, concurrency: n }, ...(g ? { grid: { ...g, concurrency: n } } : {}) });
      },
      async clearGrid() {
        patch({ grid: null });
        await save(null);
      },

      async loadGrid() {
        if (!services.grids) return patch({ loaded: true });
        try {
          const g = await services.grids.load();
          // a grid started in this page meanwhile wins over the stored one
          patch({ grid: get().explorer.grid ?? g, loaded: true });
        } catch (e) {
          patch({ loaded: true, warnings: [`the grid of the last visit could not be read: ${errorText(e)}`] });
        }
      },

      async importSweepFiles(files) {
        if (files.length === 0) return null;
        const sweeps: Sweep[] = [];
        // every file checked before anything changes: one bad file refuses them all
        for (const f of files) {
          if (f.size > MAX_SWEEP_FILE_BYTES) {
            const m = `${f.name}: ${(f.size / 2 ** 20).toFixed(0)} MB; sweep and ablation files of at most ${MAX_SWEEP_FILE_BYTES / 2 ** 20} MB are accepted`;
            patch({ importError: m });
            return m;
          }
          try {
            sweeps.push(readSweepText(f.name, await f.text()));
          } catch (e) {
            const m = e instanceof SweepFileError ? e.message : `${f.name}: could not be read (${errorText(e)})`;
            patch({ importError: m });
            return m;
          }
        }
        let sweep: Sweep;
        try {
          sweep = mergeSweeps(files.map((f) => f.name).join(' + '), sweeps);
        } catch (e) {
          patch({ importError: errorText(e) });
          return errorText(e);
        }
        patch({ source: { kind: 'file', sweep, name: files.map((f) => f.name).join(', '), gallery: null }, importError: null });
        return null;
      },

      async openGallery(path) {
        if (!services.fetchText) {
          patch({ importError: `${path}: this page cannot fetch files` });
          return `${path}: this page cannot fetch files`;
        }
        patch({ opening: path });
        try {
          const sweep = readSweepText(path, await services.fetchText(path));
          // an entry compared at equal tokens opens on the tokens axis (the menu still changes it)
          patch({ source: { kind: 'file', sweep, name: path, gallery: path }, importError: null, opening: null, ...(sweep.xAxis ? { xAxis: sweep.xAxis } : {}) });
          return null;
        } catch (e) {
          const m = e instanceof SweepFileError ? e.message : `${path}: could not be fetched (${errorText(e)})`;
          patch({ importError: m, opening: null });
          return m;
        }
      },

      showSweep(sweep, name) {
        patch({ source: { kind: 'file', sweep, name, gallery: null }, importError: null });
      },
      showGrid() {
        patch({ source: { kind: 'grid' } });
      },
      setExplorerBand(kind) {
        patch({ band: kind });
      },
      setExplorerX(mode) {
        patch({ xAxis: mode });
      },
      setShowSeeds(on) {
        patch({ showSeeds: on });
      },
      setExplorerWarnings(w) {
        patch({ warnings: w });
      },
      setExplorerReveal(on) {
        patch({ reveal: on });
      },
      async loadGalleryList() {
        const st = get().explorer.gallery.status;
        if (st === 'loading' || st === 'ready') return;
        if (!services.fetchText) return patch({ gallery: { status: 'error', error: `${GALLERY_INDEX}: this page cannot fetch files` } });
        patch({ gallery: { status: 'loading' } });
        try {
          patch({ gallery: { status: 'ready', entries: parseGalleryIndex(await services.fetchText(GALLERY_INDEX)) } });
        } catch (e) {
          const m = errorText(e);
          patch({ gallery: { status: 'error', error: m.startsWith(GALLERY_INDEX) ? m : `${GALLERY_INDEX}: could not be fetched (${m})` } });
        }
      },
    };
  };
