// Launcher slice: the set-up of the next run, the base-policy catalog, and the set-up's
// validation (recomputed on every change, so components read it without work).
import type { StateCreator } from 'zustand/vanilla';
import type { RlCorePresetName } from '../rl/config';
import type { PolicyCatalog } from './catalog';
import { errorText } from '../util/errors';
import { DEFAULT_LAUNCHER, effectiveValue, loopKeys, resolveLauncher, RL_KEYS, setField, setLoop, setPreset, setSetup, type LauncherState, type Resolved, type Section } from './launcher';
import type { LabState } from './store';
import { NO_LESSON, type Lesson } from './url';
import { lessonLaunchers, paperLesson } from './lessons';

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
  /** adapter files the next run starts its adapter sets from (TTSP; not in the address: files stay in this page) */
  adapterStart: { file: string; name: string; bytes: Uint8Array }[];
  setAdapterStart(files: { file: string; name: string; bytes: Uint8Array }[]): void;
  /** what a lesson link hides and locks (url.ts) */
  lesson: Lesson;
  loadCatalog(): Promise<void>;
  /** Locked fields keep their values: the setters below ignore them and a reset keeps them. */
  setLesson(lesson: Lesson): void;
  setLauncher(state: LauncherState, warnings?: string[]): void;
  setLoop(loop: string): void;
  setPolicy(policy: string): void;
  setRlPreset(preset: RlCorePresetName): void;
  setSetup(setup: string): void;
  setField(section: Section, key: string, value: unknown): void;
  resetLauncher(): void;
  /** Starts the open paper lesson's runs (lessons.ts) from the launcher's policy and seed, ticked side by side. */
  startLesson(): Promise<void>;
}

function resolveWith(state: LauncherState, catalog: CatalogState, uploads: readonly { name: string }[]): Resolved {
  if (catalog.status === 'failed') return { ok: false, field: 'policy', message: `the list of base policies could not be loaded: ${catalog.message}` };
  const c = catalog.status === 'ready' ? { names: [...catalog.catalog.policies, ...uploads].map((p) => p.name), defaultPolicy: catalog.catalog.defaultPolicy } : null;
  return resolveLauncher(state, c);
}

/** `next` with the locked fields' values taken from `current`. */
function keepLocked(next: LauncherState, current: LauncherState, lock: readonly string[]): LauncherState {
  let out = next;
  if (lock.includes('loop')) out = { ...out, loop: current.loop };
  if (lock.includes('policy')) out = { ...out, policy: current.policy };
  if (lock.includes('setup')) out = { ...out, setup: current.setup };
  if (lock.includes('preset')) out = { ...out, preset: current.preset };
  // a locked field keeps the value it shows, whatever layer that value came from
  for (const k of lock) {
    const section: Section | null = loopKeys(out).includes(k) ? 'loop' : (RL_KEYS as string[]).includes(k) ? 'rl' : null;
    if (section) out = setField(out, section, k, effectiveValue(current, section, k));
  }
  return out;
}

/** The open paper lesson's runs, each resolved as the launcher would (empty without a lesson). */
export function selectLessonSetups(s: LabState): Resolved[] {
  const lesson = paperLesson(s.lesson.paper);
  return lesson ? lessonLaunchers(lesson, s.launcher.state).map((l) => resolveWith(l, s.catalog, s.uploads?.list ?? [])) : [];
}

export const createLauncherSlice =
  (fetchCatalog: () => Promise<PolicyCatalog>): StateCreator<LabState, [], [], LauncherSlice> =>
  (set, get) => {
    const update = (state: LauncherState, warnings = get().launcher.warnings) =>
      set({ launcher: { state, warnings, resolved: resolveWith(state, get().catalog, get().uploads?.list ?? []) } });
    const locked = (key: string) => get().lesson.lock.includes(key);
    const initial: CatalogState = { status: 'loading' };
    return {
      launcher: { state: DEFAULT_LAUNCHER, warnings: [], resolved: resolveWith(DEFAULT_LAUNCHER, initial, []) },
      catalog: initial,
      lesson: NO_LESSON,
      adapterStart: [],
      setAdapterStart(files) {
        set({ adapterStart: files });
      },

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
      setLesson(lesson) {
        set({ lesson });
      },
      setLoop(loop) {
        if (locked('loop')) return;
        const current = get().launcher.state;
        update(keepLocked(setLoop(current, loop), current, get().lesson.lock));
      },
      setSetup(setup) {
        if (locked('setup')) return;
        const current = get().launcher.state;
        update(keepLocked(setSetup(current, setup), current, get().lesson.lock));
      },
      setPolicy(policy) {
        if (locked('policy')) return;
        const cat = get().catalog;
        const isDefault = cat.status === 'ready' && cat.catalog.defaultPolicy === policy;
        update({ ...get().launcher.state, policy: isDefault ? null : policy });
      },
      setRlPreset(preset) {
        if (locked('preset')) return;
        const current = get().launcher.state;
        update(keepLocked(setPreset(current, preset), current, get().lesson.lock));
      },
      setField(section, key, value) {
        if (!locked(key)) update(setField(get().launcher.state, section, key, value));
      },
      resetLauncher() {
        update(keepLocked(DEFAULT_LAUNCHER, get().launcher.state, get().lesson.lock), []);
      },
      async startLesson() {
        const lesson = paperLesson(get().lesson.paper);
        if (!lesson) return;
        const setups = selectLessonSetups(get());
        // the lesson compares on its own axis (DATPO against GRPO at equal generated tokens)
        if (lesson.xAxis && setups.every((r) => r.ok)) get().setXAxis(lesson.xAxis);
        await get().startRuns(setups);
      },
    };
  };
