// Node-only: checkpoints and adapters as directories on disk. Kept apart from checkpoint.ts so
// the browser bundle never imports node:fs.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GPTConfig } from './config';
import { CONFIG_FILE, firstNonFinite, MODEL_FILE, parseCheckpoint, serializeCheckpoint, type Checkpoint, type CheckpointMeta, type HfExtras } from './checkpoint';
import { adapterFileNames, parseAdapter, serializeAdapter, type LoraSpec } from './lora';
import type { TensorTable } from './params';
import { CheckpointError } from './safetensors';

async function readOrExplain(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new CheckpointError(`${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
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
  const configText = (await readOrExplain(join(dir, CONFIG_FILE), CONFIG_FILE)).toString('utf8');
  const bytes = await readOrExplain(join(dir, MODEL_FILE), MODEL_FILE);
  let ckpt: Checkpoint;
  try {
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
  const jsonText = (await readOrExplain(join(dir, files.json), files.json)).toString('utf8');
  const bytes = await readOrExplain(join(dir, files.safetensors), files.safetensors);
  return parseAdapter(bytesOf(bytes), jsonText, cfg, name);
}
