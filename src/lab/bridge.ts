// The one bridge between the page and its workers, on Comlink's own transfer handlers, so neither
// side writes the API out again: a worker serves its host object as it is (`serve`), the page
// calls it through `connect`, typed by the protocol (src/lab/protocol/).
// - A function argument travels as a proxy (a MessagePort). It is a notification: on the worker
//   side calling it returns nothing, and a page callback that throws is logged in the worker's
//   console instead of failing the call or leaving an unhandled rejection.
// - Run batches, demo batches and checkpoint files travel with their typed arrays' buffers
//   transferred, not copied (the sender builds each for the page and forgets it).
// Both sides import this module: a handler decodes only where it is registered.
import * as Comlink from 'comlink';
import type { CheckpointFile, DemoBatch } from './protocol/main';
import { RUN_COMMANDS, type RunBatch, type RunCommandName, type RunCommands } from './protocol/run';

type Callback = (...args: unknown[]) => unknown;

/** Named in the log line of a failing page callback (set by `serve`). */
let callbackLabel = 'rlvr-lab worker';

const callbackHandler: Comlink.TransferHandler<Callback, MessagePort> = {
  canHandle: (v): v is Callback => typeof v === 'function',
  serialize(fn) {
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(fn, port1);
    return [port2, [port2]];
  },
  deserialize(port) {
    const remote = Comlink.wrap<Callback>(port);
    return (...args: unknown[]) => {
      (remote(...args) as Promise<unknown>).catch((e: unknown) => console.error(`${callbackLabel}: page callback failed`, e));
    };
  },
};

const isView = (v: unknown): v is ArrayBufferView => ArrayBuffer.isView(v);
const has = (v: object, key: string, check: (x: unknown) => boolean) => check((v as Record<string, unknown>)[key]);

/** The typed arrays of a value that moves to the other side, or null for any other value. */
export function transferredArrays(v: unknown): ArrayBufferView[] | null {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return null;
  const batch = v as Partial<RunBatch & DemoBatch & CheckpointFile>;
  // a run's batch: step metrics as a matrix (src/lab/worker/runBatcher.ts)
  if (typeof batch.runId === 'string' && has(v, 'metrics', isView) && has(v, 'step', isView) && has(v, 'seconds', isView)) return [batch.step!, batch.seconds!, batch.metrics!];
  // a demo's batch (src/lab/worker/stepBatcher.ts)
  if (typeof batch.runId === 'number' && has(v, 'step', isView) && has(v, 'loss', isView) && has(v, 'tokensPerS', isView)) return [batch.step!, batch.loss!, batch.tokensPerS!];
  // a checkpoint's file to download
  if (typeof batch.filename === 'string' && typeof batch.mime === 'string' && has(v, 'bytes', isView)) return [batch.bytes!];
  return null;
}

const transferHandler: Comlink.TransferHandler<object, object> = {
  canHandle: (v): v is object => transferredArrays(v) !== null,
  serialize(v) {
    // two views of one buffer list it once (a transfer list may not repeat a buffer)
    const buffers = new Set(transferredArrays(v)!.map((a) => a.buffer as ArrayBuffer));
    return [v, [...buffers]];
  },
  deserialize: (v) => v,
};

Comlink.transferHandlers.set('rlvr-callback', callbackHandler as Comlink.TransferHandler<unknown, unknown>);
Comlink.transferHandlers.set('rlvr-transfer', transferHandler as Comlink.TransferHandler<unknown, unknown>);

/** Worker side: answers the page's calls with `host`'s methods; `label` names the worker in its log lines. */
export function serve(host: object, label: string, endpoint: Comlink.Endpoint = self as unknown as Comlink.Endpoint): void {
  callbackLabel = label;
  Comlink.expose(host, endpoint);
}

/** What a host serves for an API: each method may answer with a value or a promise of it. */
export type Served<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R | Promise<R> : T[K] };

/** An API as the page calls it: every method answers with a promise. */
export type Client<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };

export type Connected<T> = Client<T> & {
  /** Rejects every pending and later call, releases the proxy and ends the worker. */
  terminate(): void;
};

/**
 * Page side: the API that `serve` answers in `worker`. A call rejects with the reason when the
 * worker fails to load, crashes or is closed, instead of hanging; `name` ("main worker") names
 * it in the rejections.
 */
export function connect<T extends object>(worker: Worker, name: string): Connected<T> {
  const remote = Comlink.wrap<Record<string, Callback>>(worker);
  // why the worker can no longer answer (null while it can)
  let down: Error | null = null;
  let closed: (e: Error) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    closed = (e) => reject((down ??= e));
    worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      closed(new Error(`the ${name} failed: ${ev.message || 'it could not be loaded'}`));
    });
  });
  // the crash promise only matters through a call; keep it from being reported as unhandled
  crashed.catch(() => undefined);
  let released = false;
  const terminate = () => {
    closed(new Error(`the ${name} was closed`));
    if (released) return;
    released = true;
    remote[Comlink.releaseProxy]();
    worker.terminate();
  };
  return new Proxy({} as Connected<T>, {
    get: (_, key) => {
      if (key === 'terminate') return terminate;
      // not a thenable: awaiting the client itself must not call the worker
      if (typeof key !== 'string' || key === 'then') return undefined;
      return (...args: unknown[]) => (down ? Promise.reject(down) : Promise.race([remote[key](...args) as Promise<unknown>, crashed]));
    },
  });
}

/** What answers a run's commands: a client, a run manager, or a worker (values or promises). */
export type RunCommandTarget = { [K in RunCommandName]: (...args: Parameters<RunCommands[K]>) => unknown };

/**
 * The run commands (protocol/run.ts's RUN_COMMANDS), each sent to `route(runId)` (which may wait,
 * e.g. for the run's worker to open); `guard` runs first for the commands it names (a refusal
 * throws from there). Every layer between the page and a run manager forwards them this way.
 */
export function routeRunCommands(route: (runId: string) => RunCommandTarget | Promise<RunCommandTarget>, guard: Partial<Record<RunCommandName, () => void>> = {}): RunCommands {
  const forward = (name: RunCommandName) => async (runId: string, ...rest: unknown[]): Promise<unknown> => {
    guard[name]?.();
    const target = await route(runId);
    return (target[name] as (runId: string, ...rest: unknown[]) => unknown)(runId, ...rest);
  };
  return Object.fromEntries(RUN_COMMANDS.map((name) => [name, forward(name)])) as unknown as RunCommands;
}
