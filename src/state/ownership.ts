// Which tab a run belongs to. Every tab of the lab shares one archive (IndexedDB), so a second tab
// sees the first tab's runs as unfinished; without more, it took them for runs cut off by a reload
// and offered to resume them while they still trained. A tab holds a Web Lock named after each run
// it computes for as long as the run computes (the browser releases it when the tab closes); on
// load, a run whose lock another tab holds is shown as running there, read-only.

/** Claims and queries of run ownership across the tabs of this browser. */
export interface RunOwnership {
  /** Holds run `runId` as this tab's until the returned release is called (or the tab closes). */
  claim(runId: string): () => void;
  /** The runs another tab holds now. */
  heldElsewhere(): Promise<Set<string>>;
  /** Resolves once no tab holds run `runId` (its owner finished it, or closed). */
  whenFree?(runId: string): Promise<void>;
}

const PREFIX = 'rlvr-lab-run:';

/** Ownership through the Web Locks API (null where the browser has none: every run is then this tab's). */
export function webLockOwnership(locks: LockManager | undefined = globalThis.navigator?.locks): RunOwnership | null {
  if (!locks) return null;
  const mine = new Set<string>();
  return {
    claim(runId) {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      mine.add(runId);
      void locks.request(PREFIX + runId, () => held).catch(() => undefined);
      return () => {
        mine.delete(runId);
        release();
      };
    },
    whenFree(runId) {
      // granted only once the owner's lock is gone; released at once
      return locks.request(PREFIX + runId, async () => undefined).then(() => undefined, () => undefined);
    },
    async heldElsewhere() {
      const { held = [] } = await locks.query();
      const out = new Set<string>();
      for (const l of held) if (l.name?.startsWith(PREFIX) && !mine.has(l.name.slice(PREFIX.length))) out.add(l.name.slice(PREFIX.length));
      return out;
    },
  };
}
