// Page side of event batching: whatever arrives between two animation frames is applied to the
// store in one update, so React renders at most once per frame however often the worker sends.
export type FrameScheduler = (callback: () => void) => void;

export class FrameQueue<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(
    private readonly schedule: FrameScheduler,
    private readonly apply: (items: T[]) => void,
  ) {}

  push(item: T): void {
    this.items.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Applies everything queued so far in one call (the frame callback; also usable directly). */
  flush(): void {
    this.scheduled = false;
    const items = this.items;
    this.items = [];
    if (items.length > 0) this.apply(items);
  }

  get pending(): number {
    return this.items.length;
  }
}

/** requestAnimationFrame where there is one (the page), a macrotask elsewhere (Node tests). */
export const animationFrame: FrameScheduler = (cb) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => cb());
  else setTimeout(cb, 16);
};
