// A checkpoint the user uploads as a base policy: the two files Hugging Face writes for GPT-2
// (a .safetensors file and its config.json), or a .safetensors file alone when it carries its
// config.json in its metadata (the lab's own exports do), checked on the page with the same
// parser the worker uses, so a bad file is refused here with a message naming the file and the
// problem.
import { CheckpointError } from '../../model/safetensors';
import { embeddedConfigJson, EMBEDDED_CONFIG_KEY, firstNonFinite, parseCheckpoint } from '../../model/checkpoint';
import type { GPTConfig } from '../../model/config';
import { VOCAB_SIZE } from '../../world/tokenizer';
import { ROLE_LIMITS } from '../../world/index';

/** Uploaded policies are named `upload:<file>`; the worker refuses to register other names. */
export const UPLOAD_PREFIX = 'upload:';
export const MAX_CHECKPOINT_BYTES = 256 * 2 ** 20;
export const MAX_CONFIG_BYTES = 2 ** 20;

export const isUploadName = (name: string): boolean => name.startsWith(UPLOAD_PREFIX);

/** What an upload needs of a file (a DOM File is one). */
export interface BinaryFile {
  name: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
  text(): Promise<string>;
}

export interface CheckedCheckpoint {
  /** the weights file's name, e.g. model.safetensors */
  fileName: string;
  safetensors: Uint8Array;
  configJson: string;
  cfg: GPTConfig;
  params: number;
}

export type UploadResult = { ok: true; checkpoint: CheckedCheckpoint } | { ok: false; message: string };

const mb = (n: number) => `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MB`;

/** The weights and the config among the chosen files (null: look inside the weights), or what is missing. */
export function pairFiles(files: readonly BinaryFile[]): { weights: BinaryFile; config: BinaryFile | null } | string {
  const weights = files.filter((f) => f.name.toLowerCase().endsWith('.safetensors'));
  const configs = files.filter((f) => f.name.toLowerCase().endsWith('.json'));
  const other = files.filter((f) => !weights.includes(f) && !configs.includes(f));
  const names = files.map((f) => f.name).join(', ');
  if (files.length === 0) return 'choose a .safetensors file and its config.json';
  if (other.length > 0) return `${other[0].name}: not a checkpoint file; choose a .safetensors file and its config.json`;
  if (weights.length > 1 || configs.length > 1) return `${names}: choose one .safetensors file and one config.json, not more`;
  if (weights.length === 0) return `${configs[0].name}: also choose the .safetensors file it describes (select both files at once)`;
  return { weights: weights[0], config: configs[0] ?? null };
}

/** parseCheckpoint names the files model.safetensors and config.json; say the user's names instead. */
function renamed(message: string, weights: string, config: string): string {
  if (message.startsWith('model.safetensors')) return weights + message.slice('model.safetensors'.length);
  if (message.startsWith('config.json')) return config + message.slice('config.json'.length);
  return `${weights}: ${message}`;
}

/** Reads and checks the chosen files; nothing is kept unless the checkpoint is whole and fits the lab. */
export async function readCheckpointFiles(files: readonly BinaryFile[]): Promise<UploadResult> {
  const pair = pairFiles(files);
  if (typeof pair === 'string') return { ok: false, message: pair };
  const { weights, config } = pair;
  if (weights.size > MAX_CHECKPOINT_BYTES) return { ok: false, message: `${weights.name}: ${mb(weights.size)}; checkpoints of at most ${mb(MAX_CHECKPOINT_BYTES)} are accepted` };
  if (config && config.size > MAX_CONFIG_BYTES) return { ok: false, message: `${config.name}: ${mb(config.size)}; a config.json is a few hundred bytes` };
  const [buffer, configText] = await Promise.all([weights.arrayBuffer(), config?.text() ?? null]);
  const bytes = new Uint8Array(buffer);
  if (configText !== null) return checkCheckpoint(weights.name, bytes, config!.name, configText);
  // one file: the architecture must come from its own metadata (the lab's exports carry it)
  let embedded: string | null;
  try {
    embedded = embeddedConfigJson(bytes, weights.name);
  } catch (e) {
    if (!(e instanceof CheckpointError)) throw e;
    return { ok: false, message: e.message };
  }
  if (embedded === null) {
    return { ok: false, message: `${weights.name}: carries no config (no "${EMBEDDED_CONFIG_KEY}" in its metadata, as the lab's exports have); also choose its config.json (select both at once)` };
  }
  return checkCheckpoint(weights.name, bytes, `${weights.name} (its embedded config.json)`, embedded);
}

/** Parses a checkpoint's bytes as the worker will, and checks that it fits the lab's tokenizer. */
export function checkCheckpoint(fileName: string, safetensors: Uint8Array, configName: string, configJson: string): UploadResult {
  let cfg: GPTConfig;
  let params: number;
  try {
    const ckpt = parseCheckpoint(safetensors, configJson);
    cfg = ckpt.cfg;
    // the flat buffer pads tensors for alignment: count the tensors' own values
    params = ckpt.table.tensors.reduce((n, t) => n + t.size, 0);
    // a policy with NaN or Inf weights would only ever train into NaN: refuse it here
    const bad = firstNonFinite(ckpt.params, ckpt.table);
    if (bad) return { ok: false, message: `${fileName}: tensor ${bad.tensor} holds ${bad.value} at index ${bad.index}; a base policy's weights must all be finite numbers` };
  } catch (e) {
    if (!(e instanceof CheckpointError)) throw e;
    return { ok: false, message: renamed(e.message, fileName, configName) };
  }
  if (cfg.vocabSize !== VOCAB_SIZE) {
    return { ok: false, message: `${configName}: vocab_size = ${cfg.vocabSize}, but this lab's tokenizer has ${VOCAB_SIZE} tokens; upload a policy trained on it (e.g. saved by npm run pretrain)` };
  }
  // the CLI's check (whyModelCannotServe): a context shorter than the longest solve prompt fails its run at step 0
  const need = ROLE_LIMITS.solve.prompt + 1;
  if (cfg.nPositions < need) {
    return { ok: false, message: `${configName}: n_positions = ${cfg.nPositions}, but the world's solve prompts need up to ${need} tokens with one answer token; upload a policy with a longer context` };
  }
  return { ok: true, checkpoint: { fileName, safetensors, configJson, cfg, params } };
}

/** `upload:model` for model.safetensors; `upload:model-2` when that name is taken. */
export function uploadName(fileName: string, taken: readonly string[]): string {
  const stem = fileName.replace(/\.safetensors$/i, '').replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 60) || 'checkpoint';
  let name = `${UPLOAD_PREFIX}${stem}`;
  for (let i = 2; taken.includes(name); i++) name = `${UPLOAD_PREFIX}${stem}-${i}`;
  return name;
}
