// How a tab that computes a run keeps the other tabs of this browser showing it live: each batch
// it applies goes out on a BroadcastChannel with its place among the run's archived chunks, and
// its final status after it is stored. A tab that shows the run read-only appends the chunks it
// has not read from the archive (and re-reads the archive if it missed one), and takes the final
// status; if the owning tab goes away without one, its Web Lock frees and the run reads as cut off.
import type { RunStatus } from '../lab/protocol';
import type { RunChunk } from './runData';

export type RunMessage =
  /** the run's chunk number `seq` (0-based, as the archive holds them) and the status after it */
  | { type: 'chunk'; runId: string; seq: number; chunk: RunChunk; status: RunStatus }
  /** the run's status once it has ended, posted after it is stored */
  | { type: 'status'; runId: string; status: RunStatus };

export interface RunChannel {
  post(m: RunMessage): void;
  /** Calls `f` with every message another tab posts; returns the unsubscribe. */
  listen(f: (m: RunMessage) => void): () => void;
}

const NAME = 'rlvr-lab-runs';

/** The channel between this browser's tabs of the lab (null where there is no BroadcastChannel). */
export function broadcastRunChannel(make: ((name: string) => BroadcastChannel) | undefined = globalThis.BroadcastChannel ? (n) => new BroadcastChannel(n) : undefined): RunChannel | null {
  if (!make) return null;
  const out = make(NAME);
  return {
    post(m) {
      out.postMessage(m);
    },
    listen(f) {
      // a channel object does not hear its own posts: listening on a second one is like another tab's
      const inbox = make(NAME);
      inbox.onmessage = (e: MessageEvent<RunMessage>) => f(e.data);
      return () => inbox.close();
    },
  };
}

/** Channels between stores in one process (tests): each hears the others' posts, not its own. */
export function memoryRunChannels(): () => RunChannel {
  const listeners = new Set<{ owner: object; f: (m: RunMessage) => void }>();
  return () => {
    const me = {};
    return {
      post(m) {
        for (const l of [...listeners]) if (l.owner !== me) queueMicrotask(() => l.f(structuredClone(m)));
      },
      listen(f) {
        const l = { owner: me, f };
        listeners.add(l);
        return () => void listeners.delete(l);
      },
    };
  };
}
