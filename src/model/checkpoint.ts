// A model checkpoint is two files, as Hugging Face writes them for GPT-2: model.safetensors
// (HF tensor names, [in, out] matmul weights, F32) and config.json (GPT2Config). Browser-safe:
// bytes and strings in, bytes and strings out; checkpoint_node.ts does the file system.
import { showValue } from '../util/show';
import { fromHfConfig, toHfConfig, type GPTConfig } from './config';
import { ConfigError } from '../util/errors';
import { buildTensorTable, type TensorTable } from './params';
import { CheckpointError, decodeSafetensors, encodeSafetensors, readTable, tableTensors, type DecodedTensor } from './safetensors';

export const MODEL_FILE = 'model.safetensors';
export const CONFIG_FILE = 'config.json';

/** Free-form string metadata stored in the safetensors header (run id, tokenizer, step, ...). */
export type CheckpointMeta = Readonly<Record<string, string>>;

export interface Checkpoint {
  cfg: GPTConfig;
  params: Float32Array;
  table: TensorTable;
  meta: CheckpointMeta;
}

/** Extra config.json fields that do not change the architecture (e.g. bos_token_id). */
export type HfExtras = Parameters<typeof toHfConfig>[1];

// transformers refuses a safetensors file whose metadata lacks format "pt".
const FORMAT_KEY = 'format';

/** Metadata key under which a file the lab exports carries its config.json, so it stands alone. */
export const EMBEDDED_CONFIG_KEY = 'config_json';

/** The config.json text a .safetensors file carries in its metadata (null when it carries none). */
export function embeddedConfigJson(safetensorsBytes: Uint8Array, what = MODEL_FILE): string | null {
  return decodeSafetensors(safetensorsBytes, what).metadata[EMBEDDED_CONFIG_KEY] ?? null;
}

export function serializeCheckpoint(
  cfg: GPTConfig,
  params: Float32Array,
  table: TensorTable,
  meta: CheckpointMeta = {},
  hfExtras: HfExtras = {},
): { safetensors: Uint8Array; configJson: string } {
  checkTableMatches(cfg, table);
  if (FORMAT_KEY in meta) throw new CheckpointError(`checkpoint metadata: ${showValue(FORMAT_KEY)} is reserved (always "pt")`);
  const safetensors = encodeSafetensors(tableTensors(table, params), { [FORMAT_KEY]: 'pt', ...meta });
  const configJson = JSON.stringify(toHfConfig(cfg, hfExtras), null, 2) + '\n';
  return { safetensors, configJson };
}

function checkTableMatches(cfg: GPTConfig, table: TensorTable): void {
  const want = buildTensorTable(cfg);
  const same =
    want.totalFloats === table.totalFloats &&
    want.tensors.length === table.tensors.length &&
    want.tensors.every((t, i) => t.name === table.tensors[i].name && t.offset === table.tensors[i].offset && t.size === table.tensors[i].size);
  if (!same) throw new CheckpointError('serializeCheckpoint: the tensor table was not built from this config (buildTensorTable(cfg))');
}

/** Parses config.json text into a GPTConfig; every failure is a CheckpointError. */
export function parseConfigJson(configJsonText: string, what = CONFIG_FILE): GPTConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(configJsonText);
  } catch (err) {
    throw new CheckpointError(`${what}: not JSON (${(err as Error).message})`);
  }
  try {
    return fromHfConfig(raw, what);
  } catch (err) {
    if (err instanceof ConfigError) throw new CheckpointError(err.message, { cause: err });
    throw err;
  }
}

export function parseCheckpoint(safetensorsBytes: Uint8Array, configJsonText: string): Checkpoint {
  const cfg = parseConfigJson(configJsonText);
  const table = buildTensorTable(cfg);
  const file = decodeSafetensors(safetensorsBytes, MODEL_FILE);
  const params = readTable(gpt2Tensors(file.tensors, MODEL_FILE), table, MODEL_FILE);
  const meta = Object.fromEntries(Object.entries(file.metadata).filter(([k]) => k !== FORMAT_KEY));
  return { cfg, params, table, meta };
}

/** The first NaN or ±Inf in the parameters, by tensor name; null when every value is finite. */
export function firstNonFinite(params: Float32Array, table: TensorTable): { tensor: string; index: number; value: number } | null {
  for (const t of table.tensors) {
    for (let i = 0; i < t.size; i++) {
      const v = params[t.offset + i];
      if (!Number.isFinite(v)) return { tensor: t.name, index: i, value: v };
    }
  }
  return null;
}

const MASK_BUFFER = /^h\.\d+\.attn\.(bias|masked_bias)$/;

/**
 * Normalises the names Python tools write for the same model: GPT2LMHeadModel.save_pretrained
 * prefixes "transformer."; older files carry the causal-mask buffers h.{i}.attn.bias and
 * .masked_bias (constants, not parameters); a file may store lm_head.weight, which must then
 * equal wte.weight since this model ties them.
 */
function gpt2Tensors(tensors: ReadonlyMap<string, DecodedTensor>, what: string): Map<string, DecodedTensor> {
  const out = new Map<string, DecodedTensor>();
  let lmHead: DecodedTensor | undefined;
  for (const [fileName, t] of tensors) {
    const name = fileName.startsWith('transformer.') ? fileName.slice('transformer.'.length) : fileName;
    if (MASK_BUFFER.test(name)) continue;
    if (name === 'lm_head.weight') {
      lmHead = t;
      continue;
    }
    if (out.has(name)) throw new CheckpointError(`${what}: tensor ${showValue(name)} appears both with and without the "transformer." prefix`);
    out.set(name, t);
  }
  if (lmHead) checkTied(lmHead, out.get('wte.weight'), what);
  return out;
}

function checkTied(lmHead: DecodedTensor, wte: DecodedTensor | undefined, what: string): void {
  const a = lmHead.data;
  const b = wte?.data;
  const tied = a && b && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  if (!tied) {
    throw new CheckpointError(`${what}: lm_head.weight differs from wte.weight, but this model ties the LM head to the token embedding; remove lm_head.weight or make it equal`);
  }
}
