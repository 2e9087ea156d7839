// In a worker, messages from the page (pause, stop, new knobs) are tasks that only run when the
// event loop turns, which a chain of resolved promises never lets happen. The loop driver awaits
// this between steps; the CPU engine, which computes synchronously for seconds at a time, also
// between pieces of work.

/** Resolves on a new task, after the messages already queued have been handled. */
export function breathe(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
