// Checkpoints of the lab's runs, so a run survives a reload or a lost GPU. One folder per run
// id with two slots and a manifest naming the current one: a save fills the other slot, then
// rewrites the manifest, so a save that fails part way (a full disk) leaves the previous
// checkpoint whole. A slot holds model.safetensors + config.json (Hugging Face GPT-2 names, as
// the base policies), optimizer.safetensors (AdamW moments), state.json (step, loop config) and
// history.json (the step metrics and evaluations so far: a resumed run's charts come from its
// checkpoint, so nothing is missing when the page archived less than the worker saved).
// The store works on a small file-system interface: the origin-private file system in the
// worker (opfs.ts), a Map in tests.
import { showValue } from '../../util/show';
import { parseCheckpoint, serializeCheckpoint, CONFIG_FILE, MODEL_FILE } from '../../model/checkpoint';
import type { GPTConfig } from '../../model/config';
import { buildTensorTable } from '../../model/params';
import { CheckpointError, decodeSafetensors, encodeSafetensors } from '../../model/safetensors';
import type { LoopCheckpoint, LoopEvent, OptimiserState } from '../../loops/events';
import type { AdapterState } from '../../loops/engine';
import { adapterFileNames, buildLoraTable, parseAdapter, serializeAdapter } from '../../model/lora';
import type { CheckpointInfo, EvalEvent, RecordsEvent } from '../protocol';
import { checkStoredHistory, checkStoredState, checkStoredValues } from './checkpointSchema';

/** What a run recorded up to its checkpoint, for the charts and views of its resumed run. */
export interface RunHistory {
  steps: Extract<LoopEvent, { type: 'step' }>[];
  evals: EvalEvent[];
  /** curriculum records (absent in checkpoints saved before loops had records) */
  records?: RecordsEvent[];
}

/** Whole files under a root; paths are folder names then the file name. */
export interface CheckpointFs {
  /** the file's bytes, or null when it (or a folder on its path) does not exist */
  read(path: readonly string[]): Promise<Uint8Array | null>;
  /** writes the whole file; the previous content stays until the new one is complete */
  write(path: readonly string[], bytes: Uint8Array): Promise<void>;
  /** removes a file or a folder with everything in it; absent is fine */
  remove(path: readonly string[]): Promise<void>;
  /** the names of the entries of a folder ([] when it does not exist) */
  list(path: readonly string[]): Promise<string[]>;
}

/** A run's state after `step` completed steps, enough to resume it exactly or export its policy. */
export interface RunCheckpoint extends LoopCheckpoint {
  runId: string;
  /** the loop's name in the registry (src/loops/registry.ts) */
  loop: string;
  /** the base policy it started from */
  policy: string;
  cfg: GPTConfig;
  history: RunHistory;
  savedAt: number;
}

export interface CheckpointStore {
  /** Replaces the run's checkpoint; on failure the previous one is still there (and the error is thrown). */
  save(c: RunCheckpoint): Promise<void>;
  /** The run's latest checkpoint, or null when it has none. */
  load(runId: string): Promise<RunCheckpoint | null>;
  list(): Promise<CheckpointInfo[]>;
  /** Removes the run's checkpoint and its snapshots. */
  remove(runId: string): Promise<void>;
  /**
   * Keeps the parameters of step `step` beside the run's checkpoint (analyses over a run's
   * history, e.g. SPICE's cross-play, read them); past `keep` snapshots every other older one is
   * dropped, the first and the latest always kept.
   */
  saveSnapshot(runId: string, step: number, params: Float32Array, keep: number): Promise<void>;
  /** The steps of the run's snapshots, ascending. */
  snapshotSteps(runId: string): Promise<number[]>;
  loadSnapshot(runId: string, step: number): Promise<Float32Array | null>;
}

const SNAPSHOTS = 'snapshots';

const ROOT = 'checkpoints';
const MANIFEST = 'manifest.json';
const OPTIMISER_FILE = 'optimizer.safetensors';
const STATE_FILE = 'state.json';
const HISTORY_FILE = 'history.json';
// JSON has no NaN or ±Infinity, which metrics may be (a halted step): they travel as strings
const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);
const TEXT_KEYS = new Set(['type', 'set']);
const SLOTS = ['a', 'b'] as const;
const FORMAT = 'rlvr-lab checkpoint 1';
// run ids become folder names: keep them to what every file system accepts
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

interface Manifest {
  format: string;
  slot: (typeof SLOTS)[number];
  step: number;
  bytes: number;
  savedAt: number;
}

interface SlotState {
  format: string;
  runId: string;
  loop: string;
  policy: string;
  step: number;
  config: unknown;
  /** the loop body's state (absent in checkpoints saved before loops had one) */
  loopState?: unknown;
  /** names of the adapter sets saved beside the model (adapter_<name>.safetensors / .json, and its optimiser) */
  adapters?: string[];
  savedAt: number;
}

/** True for the browser's "storage is full" failure (a DOMException named QuotaExceededError). */
export function isQuotaError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'QuotaExceededError';
}

function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId)) throw new CheckpointError(`checkpoint: run id ${showValue(runId)} is not a valid folder name (letters, digits, - and _, at most 100)`);
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

function parseJson<T>(bytes: Uint8Array, what: string, check: (v: Record<string, unknown>) => boolean): T {
  let v: unknown;
  try {
    v = JSON.parse(text(bytes));
  } catch (e) {
    throw new CheckpointError(`${what}: not JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !check(v as Record<string, unknown>)) throw new CheckpointError(`${what}: not an ${FORMAT} file`);
  return v as T;
}

/** The files of one slot, ready to write. */
function slotFiles(c: RunCheckpoint): [string, Uint8Array][] {
  const table = buildTensorTable(c.cfg);
  if (c.optimiser.m.length !== c.params.length || c.optimiser.v.length !== c.params.length) {
    throw new CheckpointError(`checkpoint of run ${c.runId}: optimiser state has ${c.optimiser.m.length} floats, the parameters ${c.params.length}`);
  }
  const model = serializeCheckpoint(c.cfg, c.params, table, { run_id: c.runId, step: String(c.step) });
  const n = c.params.length;
  const optimiser = encodeSafetensors(
    [{ name: 'exp_avg', shape: [n], data: c.optimiser.m }, { name: 'exp_avg_sq', shape: [n], data: c.optimiser.v }],
    { step: String(c.optimiser.step) },
  );
  const adapters = c.adapters ?? [];
  const state: SlotState = {
    format: FORMAT, runId: c.runId, loop: c.loop, policy: c.policy, step: c.step, config: c.config, loopState: c.state, savedAt: c.savedAt,
    ...(adapters.length ? { adapters: adapters.map((a) => a.spec.name) } : {}),
  };
  const history = JSON.stringify(c.history, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
  const adapterFiles = adapters.flatMap((a): [string, Uint8Array][] => {
    const names = adapterFileNames(a.spec.name);
    const { safetensors, configJson } = serializeAdapter(a.spec, a.params, buildLoraTable(c.cfg, a.spec), { run_id: c.runId, step: String(c.step) });
    const n = a.params.length;
    const opt = encodeSafetensors([{ name: 'exp_avg', shape: [n], data: a.optimiser.m }, { name: 'exp_avg_sq', shape: [n], data: a.optimiser.v }], { step: String(a.optimiser.step) });
    return [[names.safetensors, safetensors], [names.json, utf8(configJson)], [adapterOptimiserFile(a.spec.name), opt]];
  });
  return [[MODEL_FILE, model.safetensors], [CONFIG_FILE, utf8(model.configJson)], [OPTIMISER_FILE, optimiser], ...adapterFiles, [STATE_FILE, utf8(JSON.stringify(state))], [HISTORY_FILE, utf8(history)]];
}

/** The AdamW state of adapter set `name`, beside its adapter files. */
const adapterOptimiserFile = (name: string): string => `adapter_${name}.optimizer.safetensors`;

/** The adapter sets a slot lists, read back (values, spec and optimiser state). */
async function readAdapters(fs: CheckpointFs, slotDir: string[], names: unknown, cfg: GPTConfig, where: string): Promise<AdapterState[] | undefined> {
  if (names === undefined) return undefined;
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) throw new CheckpointError(`${where}: ${STATE_FILE} "adapters" is not a list of names`);
  return Promise.all((names as string[]).map(async (name) => {
    const files = adapterFileNames(name);
    const [st, json, opt] = await Promise.all([files.safetensors, files.json, adapterOptimiserFile(name)].map((f) => fs.read([...slotDir, f])));
    if (!st || !json || !opt) throw new CheckpointError(`${where}: the files of adapter set ${showValue(name)} are missing`);
    const a = parseAdapter(st, text(json), cfg, name);
    return { spec: a.spec, params: a.params, optimiser: readOptimiser(opt, a.params.length, `${where}: ${adapterOptimiserFile(name)}`) };
  }));
}

function readHistory(bytes: Uint8Array, what: string): RunHistory {
  let h: unknown;
  try {
    h = JSON.parse(text(bytes), (k: string, v: unknown) => (typeof v === 'string' && NON_FINITE.has(v) && !TEXT_KEYS.has(k) ? Number(v) : v));
  } catch (e) {
    throw new CheckpointError(`${what}: not JSON (${(e as Error).message})`);
  }
  const ok = typeof h === 'object' && h !== null && Array.isArray((h as RunHistory).steps) && Array.isArray((h as RunHistory).evals);
  if (!ok) throw new CheckpointError(`${what}: expected {"steps": [...], "evals": [...]}`);
  return h as RunHistory;
}

function readOptimiser(bytes: Uint8Array, n: number, what: string): OptimiserState {
  const file = decodeSafetensors(bytes, what);
  const get = (name: string) => {
    const t = file.tensors.get(name);
    if (!t?.data || t.data.length !== n) throw new CheckpointError(`${what}: tensor ${showValue(name)} is missing or does not have ${n} floats`);
    return t.data;
  };
  const step = Number(file.metadata.step);
  if (!Number.isSafeInteger(step) || step < 0) throw new CheckpointError(`${what}: metadata "step" = ${showValue(file.metadata.step)} is not a step count`);
  return { m: get('exp_avg'), v: get('exp_avg_sq'), step };
}

export function fileCheckpointStore(fs: CheckpointFs): CheckpointStore {
  const dir = (runId: string) => [ROOT, runId];

  async function manifest(runId: string): Promise<Manifest | null> {
    const bytes = await fs.read([...dir(runId), MANIFEST]);
    if (!bytes) return null;
    return parseJson<Manifest>(bytes, `checkpoint of run ${runId}: ${MANIFEST}`, (v) => v.format === FORMAT && SLOTS.includes(v.slot as Manifest['slot']));
  }

  // The browser may run two saves of one run at once only if a caller forgets to wait; chain them.
  const busy = new Map<string, Promise<unknown>>();
  const serial = <T>(runId: string, f: () => Promise<T>): Promise<T> => {
    const next = (busy.get(runId) ?? Promise.resolve()).catch(() => undefined).then(f);
    busy.set(runId, next);
    return next;
  };

  return {
    save: (c) =>
      serial(c.runId, async () => {
        checkRunId(c.runId);
        const files = slotFiles(c);
        const current = await manifest(c.runId).catch(() => null);
        const slot = current?.slot === 'a' ? 'b' : 'a';
        const slotDir = [...dir(c.runId), slot];
        // the other slot holds an older checkpoint nobody points at: free its space first
        await fs.remove(slotDir);
        try {
          for (const [name, bytes] of files) await fs.write([...slotDir, name], bytes);
        } catch (e) {
          await fs.remove(slotDir).catch(() => undefined);
          throw e;
        }
        const bytes = files.reduce((a, [, b]) => a + b.length, 0);
        const m: Manifest = { format: FORMAT, slot, step: c.step, bytes, savedAt: c.savedAt };
        // the manifest is written last: until it is complete the previous slot stays current
        await fs.write([...dir(c.runId), MANIFEST], utf8(JSON.stringify(m)));
      }),

    async load(runId) {
      checkRunId(runId);
      const m = await manifest(runId);
      if (!m) return null;
      const where = `checkpoint of run ${runId} (step ${m.step})`;
      const slotDir = [...dir(runId), m.slot];
      const [model, config, optimiser, state, history] = await Promise.all([MODEL_FILE, CONFIG_FILE, OPTIMISER_FILE, STATE_FILE, HISTORY_FILE].map((f) => fs.read([...slotDir, f])));
      if (!model || !config || !optimiser || !state || !history) throw new CheckpointError(`${where}: files are missing from slot ${m.slot}`);
      const ckpt = parseCheckpoint(model, text(config));
      const s = parseJson<SlotState>(state, `${where}: ${STATE_FILE}`, (v) => v.format === FORMAT);
      // the whole stored state, checked before anything reads it (one schema: checkpointSchema.ts)
      checkStoredState(s, where);
      const adapters = await readAdapters(fs, slotDir, s.adapters, ckpt.cfg, where);
      const opt = readOptimiser(optimiser, ckpt.params.length, `${where}: ${OPTIMISER_FILE}`);
      const hist = readHistory(history, `${where}: ${HISTORY_FILE}`);
      checkStoredHistory(hist, s.step, where);
      checkStoredValues(ckpt.params, MODEL_FILE, where);
      checkStoredValues(opt.m, `${OPTIMISER_FILE} exp_avg`, where);
      checkStoredValues(opt.v, `${OPTIMISER_FILE} exp_avg_sq`, where);
      for (const a of adapters ?? []) {
        checkStoredValues(a.optimiser.m, `${adapterOptimiserFile(a.spec.name)} exp_avg`, where);
        checkStoredValues(a.optimiser.v, `${adapterOptimiserFile(a.spec.name)} exp_avg_sq`, where);
      }
      return {
        runId, loop: s.loop, policy: s.policy, cfg: ckpt.cfg, step: s.step, params: ckpt.params,
        optimiser: opt, ...(adapters ? { adapters } : {}), config: s.config, state: s.loopState ?? null,
        history: hist, savedAt: s.savedAt,
      };
    },

    async list() {
      const out: CheckpointInfo[] = [];
      for (const runId of await fs.list([ROOT])) {
        const m = RUN_ID.test(runId) ? await manifest(runId).catch(() => null) : null;
        if (m) out.push({ runId, step: m.step, bytes: m.bytes, savedAt: m.savedAt });
      }
      return out.sort((a, b) => a.savedAt - b.savedAt);
    },

    remove: (runId) =>
      serial(runId, async () => {
        checkRunId(runId);
        await fs.remove(dir(runId));
      }),

    saveSnapshot: (runId, step, params, keep) =>
      serial(runId, async () => {
        checkRunId(runId);
        if (!Number.isInteger(step) || step < 0) throw new Error(`snapshot of run ${runId}: step ${step} is not a step`);
        await fs.write([...dir(runId), SNAPSHOTS, `${step}.f32`], new Uint8Array(params.buffer.slice(params.byteOffset, params.byteOffset + params.byteLength)));
        const steps = await snapshotSteps(runId);
        if (steps.length > Math.max(2, keep)) {
          // thin the older ones: every other snapshot between the first and the latest goes
          const drop = steps.slice(1, -1).filter((_, i) => i % 2 === 0);
          for (const s of drop) await fs.remove([...dir(runId), SNAPSHOTS, `${s}.f32`]);
        }
      }),

    snapshotSteps: (runId) => (checkRunId(runId), snapshotSteps(runId)),

    async loadSnapshot(runId, step) {
      checkRunId(runId);
      const bytes = await fs.read([...dir(runId), SNAPSHOTS, `${step}.f32`]);
      if (!bytes) return null;
      if (bytes.byteLength % 4 !== 0) throw new CheckpointError(`snapshot ${step} of run ${runId}: ${bytes.byteLength} bytes is not a whole number of floats`);
      return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    },
  };

  async function snapshotSteps(runId: string): Promise<number[]> {
    const names = await fs.list([...dir(runId), SNAPSHOTS]);
    return names.flatMap((n) => (/^\d+\.f32$/.test(n) ? [Number(n.slice(0, -4))] : [])).sort((a, b) => a - b);
  }
}

/** Files in a Map; `fail` may throw to act out a full disk or a broken write (for tests). */
export function memoryFs(fail?: (path: readonly string[], bytes: Uint8Array) => void): CheckpointFs & { files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  const key = (p: readonly string[]) => p.join('/');
  const under = (p: readonly string[]) => [...files.keys()].filter((k) => k === key(p) || k.startsWith(`${key(p)}/`));
  return {
    files,
    async read(p) {
      const b = files.get(key(p));
      return b ? b.slice() : null;
    },
    async write(p, bytes) {
      fail?.(p, bytes);
      files.set(key(p), bytes.slice());
    },
    async remove(p) {
      for (const k of under(p)) files.delete(k);
    },
    async list(p) {
      const prefix = p.length ? `${key(p)}/` : '';
      return [...new Set([...files.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length).split('/')[0]))];
    },
  };
}

/** The store for unit tests: the same code over files in memory. */
export function memoryCheckpointStore(fail?: (path: readonly string[], bytes: Uint8Array) => void): CheckpointStore {
  return fileCheckpointStore(memoryFs(fail));
}
