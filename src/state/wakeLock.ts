// Keeps the screen awake while a run trains (a laptop that sleeps stops the GPU), through the
// Screen Wake Lock API where the browser has it. The browser drops the lock whenever the page is
// hidden; `want(true)` again on return takes a new one. Framework-free so tests drive it with a
// fake `navigator.wakeLock`.

export interface WakeLockSentinelLike {
  released: boolean;
  release(): Promise<void>;
  addEventListener(type: 'release', cb: () => void): void;
}

export interface WakeLockApi {
  request(type: 'screen'): Promise<WakeLockSentinelLike>;
}

/** `unsupported`: no API; `refused`: the browser said no (e.g. battery saver); the page shows it. */
export type WakeLockStatus = 'unsupported' | 'off' | 'held' | 'refused';

export class WakeLockKeeper {
  private sentinel: WakeLockSentinelLike | null = null;
  private pending: Promise<void> | null = null;
  private wanted = false;
  status: WakeLockStatus;

  constructor(private readonly api: WakeLockApi | undefined, private readonly onChange: (s: WakeLockStatus) => void = () => undefined) {
    this.status = api ? 'off' : 'unsupported';
  }

  /** Takes the lock when `on` (if not held), releases it otherwise. */
  want(on: boolean): Promise<void> {
    this.wanted = on;
    if (!this.api) return Promise.resolve();
    this.pending = (this.pending ?? Promise.resolve()).then(() => this.apply());
    return this.pending;
  }

  private async apply(): Promise<void> {
    if (this.wanted && (!this.sentinel || this.sentinel.released)) {
      try {
        const s = await this.api!.request('screen');
        this.sentinel = s;
        s.addEventListener('release', () => this.sentinel === s && this.set('off'));
        this.set('held');
      } catch {
        this.set('refused');
      }
    }
    if (!this.wanted && this.sentinel) {
      const s = this.sentinel;
      this.sentinel = null;
      if (!s.released) await s.release();
      this.set('off');
    }
  }

  private set(s: WakeLockStatus): void {
    this.status = s;
    this.onChange(s);
  }
}
