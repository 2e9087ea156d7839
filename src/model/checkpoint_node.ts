// Node-only: checkpoints and adapters as directories on disk. Kept apart from checkpoint.ts so
// the browser bundle never imports node:fs.
import type { Stats } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GPTConfig } from './config';
import { CONFIG_FILE, firstNonFinite, MODEL_FILE, parseCheckpoint, parseConfigJson, serializeCheckpoint, type Checkpoint, type CheckpointMeta, type HfExtras } from './checkpoint';
import { adapterFileNames, parseAdapter, serializeAdapter, type LoraSpec } from './lora';
import { buildTensorTable, type TensorTable } from './params';
import { CheckpointError } from './safetensors';

/**
 * A regular file's bytes, refused before they are read when they could not be what is wanted:
 * a FIFO or a device (its read would block or never end), a folder, or more than `maxBytes`.
 */
async function readOrExplain(path: string, what: string, maxBytes: number): Promise<Buffer> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err) {
    throw new CheckpointError(`${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  if (!st.isFile()) throw new CheckpointError(`${what}: ${path} is ${st.isDirectory() ? 'a directory' : 'not a regular file (a pipe or a device)'}`);
  if (st.size > maxBytes) throw new CheckpointError(`${what}: ${path} is ${st.size} bytes, more than the ${maxBytes} this file can hold`);
  try {
    return await readFile(path);
  } catch (err) {
    throw new CheckpointError(`${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
}

/** config.json is a few hundred bytes; 1 MB holds any with room. */
const MAX_CONFIG_JSON_BYTES = 1_000_000;
/** The safetensors header limit of the reference implementation. */
const MAX_HEADER_BYTES = 100_000_000;

/**
 * The size a safetensors file must have by its own header (8 + header + the tensors' last byte),
 * read from its first bytes only: a file cut short or padded is refused before it is read whole.
 * null when the header cannot say (the full decode then names the problem).
 */
async function declaredSize(path: string, fileSize: number): Promise<number | null> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(8);
    if ((await fh.read(head, 0, 8, 0)).bytesRead < 8) return null;
    const n = head.readBigUInt64LE(0);
    if (n > BigInt(Math.min(MAX_HEADER_BYTES, fileSize - 8))) return null;
    const header = Buffer.alloc(Number(n));
    await fh.read(header, 0, header.length, 8);
    const entries = JSON.parse(header.toString('utf8')) as Record<string, { data_offsets?: unknown }>;
    let end = 0;
    for (const [name, e] of Object.entries(entries)) {
      const offs = name === '__metadata__' ? undefined : e?.data_offsets;
      if (Array.isArray(offs) && typeof offs[1] === 'number') end = Math.max(end, offs[1]);
    }
    return 8 + header.length + end;
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

/** A safetensors file of at most `maxData` tensor bytes, its size checked against its header first. */
async function readSafetensorsFile(path: string, what: string, maxData: number): Promise<Buffer> {
  const st = await stat(path).catch(() => null);
  if (st?.isFile()) {
    const want = await declaredSize(path, st.size);
    if (want !== null && want !== st.size) throw new CheckpointError(`${what}: ${path} is ${st.size} bytes but its header declares ${want} (cut short, or bytes after its tensors)`);
  }
  return readOrExplain(path, what, MAX_HEADER_BYTES + maxData);
}

/**
 * Writes the whole file under a temporary name beside it, then renames it into place: a full
 * disk or a kill mid-write leaves the previous file (or none), never a truncated one.
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

const bytesOf = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** Writes dir/model.safetensors and dir/config.json, creating dir if needed. */
export async function saveCheckpointDir(
  dir: string,
  cfg: GPTConfig,
  params: Float32Array,
  table: TensorTable,
  meta?: CheckpointMeta,
  hfExtras?: HfExtras,
): Promise<void> {
  const { safetensors, configJson } = serializeCheckpoint(cfg, params, table, meta, hfExtras);
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, MODEL_FILE), safetensors);
  await writeFileAtomic(join(dir, CONFIG_FILE), configJson);
}

/**
 * Reads dir/config.json and dir/model.safetensors. Every error names the directory, and
 * weights holding NaN or ±Inf are refused: whatever a command would do with them (sample,
 * evaluate, train, export) gives meaningless numbers without a word.
 */
export async function loadCheckpointDir(dir: string): Promise<Checkpoint> {
  let ckpt: Checkpoint;
  try {
    const configText = (await readOrExplain(join(dir, CONFIG_FILE), CONFIG_FILE, MAX_CONFIG_JSON_BYTES)).toString('utf8');
    // the config bounds the weights: F64 (the widest float) of every parameter, and a tied lm_head
    const cfg = parseConfigJson(configText);
    const table = buildTensorTable(cfg);
    const bytes = await readSafetensorsFile(join(dir, MODEL_FILE), MODEL_FILE, 8 * (table.totalFloats + cfg.vocabSize * cfg.nEmbd) + 1e6);
    ckpt = parseCheckpoint(bytesOf(bytes), configText);
  } catch (err) {
    if (err instanceof CheckpointError) throw new CheckpointError(`checkpoint ${dir}: ${err.message}`, { cause: err });
    throw err;
  }
  const bad = firstNonFinite(ckpt.params, ckpt.table);
  if (bad) {
    throw new CheckpointError(`checkpoint ${dir}: ${MODEL_FILE}: tensor ${bad.tensor} holds ${bad.value} at index ${bad.index}; non-finite weights cannot be used (a diverged run?)`);
  }
  return ckpt;
}

/** Writes dir/adapter_<name>.safetensors and dir/adapter_<name>.json beside a base checkpoint. */
export async function saveAdapterDir(
  dir: string,
  spec: LoraSpec,
  params: Float32Array,
  table: TensorTable,
  meta?: Readonly<Record<string, string>>,
): Promise<void> {
  const { safetensors, configJson } = serializeAdapter(spec, params, table, meta);
  const files = adapterFileNames(spec.name);
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, files.safetensors), safetensors);
  await writeFileAtomic(join(dir, files.json), configJson);
}

export async function loadAdapterDir(dir: string, name: string, cfg: GPTConfig): Promise<ReturnType<typeof parseAdapter>> {
  const files = adapterFileNames(name);
  const jsonText = (await readOrExplain(join(dir, files.json), files.json, MAX_CONFIG_JSON_BYTES)).toString('utf8');
  // an adapter is at most rank nEmbd on every projection: far less than the base's parameters
  const bytes = await readSafetensorsFile(join(dir, files.safetensors), files.safetensors, 8 * 24 * cfg.nLayer * cfg.nEmbd * cfg.nEmbd + 1e6);
  return parseAdapter(bytesOf(bytes), jsonText, cfg, name);
}
