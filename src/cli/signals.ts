// Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed) stop a long command after its
// current step, and it still saves. A second signal while it saves must not kill it half-way
// (a timeout that signals the whole process group and the launcher watch of bin/rlvr-lab.mjs
// can both send one), so later signals only say that it is stopping; SIGKILL still ends it.
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Calls `stop` on the first stop signal; returns the function that removes the handlers. */
export function onStopSignals(stop: (signal: StopSignal) => void, saving: string): () => void {
  let stopping = false;
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => {
      if (stopping) {
        process.stderr.write(`${signal}: already stopping; ${saving}\n`);
        return;
      }
      stopping = true;
      stop(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
