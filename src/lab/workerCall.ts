// The page's side of a Comlink worker (src/lab/client.ts, src/lab/cpuClient.ts): calls that
// reject with the reason when the worker fails to load, crashes or is closed, instead of
// leaving them hanging. Imports no worker code, only Comlink.
import * as Comlink from 'comlink';
import type { RunClient } from './protocol';
import type { RunApi } from './runApi';
import { RUN_COMMANDS, routeRunCommands, type RunCommandTarget } from './runCommands';

export interface WrappedWorker<T> {
  remote: Comlink.Remote<T>;
  /** The call's answer, or a rejection once the worker has failed or been closed. */
  call<R>(p: Promise<R>): Promise<R>;
  /** Rejects every pending and later call, releases the proxy and ends the worker. */
  terminate(): void;
}

/** Wraps `worker` with Comlink; `name` ("engine worker") names it in the rejections. */
export function wrapWorker<T>(worker: Worker, name: string): WrappedWorker<T> {
  const remote = Comlink.wrap<T>(worker);
  let closed: (e: Error) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    closed = reject;
    worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      reject(new Error(`the ${name} failed: ${ev.message || 'it could not be loaded'}`));
    });
  });
  // the crash promise only matters through `call`; keep it from being reported as unhandled
  crashed.catch(() => undefined);
  return {
    remote,
    call: <R>(p: Promise<R>): Promise<R> => Promise.race([p, crashed]),
    terminate: () => {
      closed(new Error(`the ${name} was closed`));
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}

/** The run commands (src/lab/runApi.ts) of a wrapped worker whose API includes them. */
export function runCalls({ remote, call }: { remote: Comlink.Remote<RunApi>; call: WrappedWorker<unknown>['call'] }): RunClient {
  // each command is the remote's, answered or rejected once the worker has failed
  const viaWorker: RunCommandTarget = Object.fromEntries(RUN_COMMANDS.map((name) => [name, (...args: unknown[]) => call((remote[name] as (...a: unknown[]) => Promise<void>)(...args))])) as unknown as RunCommandTarget;
  return {
    startRun: (spec, onBatch) => call(remote.startRun(spec, Comlink.proxy(onBatch))),
    ...routeRunCommands(() => viaWorker),
  };
}
