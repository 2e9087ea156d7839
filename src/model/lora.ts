// LoRA adapter layout: a named set of low-rank updates W + (alpha / r) * A @ B on the qkv,
// attention-output and both MLP projections of every block, the base frozen. In memory A is
// [in, r] and B is [r, out] (the base's [in, out] orientation, so the same matmuls apply),
// in its own flat buffer with its own 64-float-aligned table.
//
// On disk (adapter_<name>.safetensors) tensors carry PEFT's names and PEFT's torch.nn.Linear
// orientation, lora_A.weight [r, in] and lora_B.weight [out, r], so Python's PEFT reads the
// values as they are (prefix the names with "base_model.model.transformer."); the JSON beside
// it uses PEFT's LoraConfig field names.
import * as v from 'valibot';
import { showValue } from '../util/show';
import { parseOr } from '../util/valibot';
import type { GPTConfig } from './config';
import { ConfigError, didYouMean } from '../util/errors';
import { fillUniform, mulberry32 } from './init';
import { layoutTensors, tensor, tensorData, type TensorInfo, type TensorTable } from './params';
import { CheckpointError, decodeSafetensors, encodeSafetensors, readTable, type DecodedTensor, type NamedTensor } from './safetensors';

export interface LoraSpec {
  /** Adapter set name: letters, digits, '_' and '-' (it becomes part of file names). */
  readonly name: string;
  /** R: rank of A and B. */
  readonly rank: number;
  /** The update is scaled by alpha / rank. */
  readonly alpha: number;
  /** the projections adapted in every block (absent: all four, PEFT's "all linear layers" of GPT-2) */
  readonly targets?: readonly LoraTarget[];
}

export const LORA_TARGETS = ['attn.c_attn', 'attn.c_proj', 'mlp.c_fc', 'mlp.c_proj'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

export const loraScale = (spec: LoraSpec): number => spec.alpha / spec.rank;

/** Whether two sets have one layout and scale (rank, α, targets): one's values can be the other's. */
export const sameShape = (a: LoraSpec, b: LoraSpec): boolean =>
  a.rank === b.rank && a.alpha === b.alpha && specTargets(a).join() === specTargets(b).join();

/** The projections a set adapts, in LORA_TARGETS order. */
export const specTargets = (spec: LoraSpec): readonly LoraTarget[] => (spec.targets ? LORA_TARGETS.filter((t) => spec.targets!.includes(t)) : LORA_TARGETS);

/** PEFT's target_modules for a set of targets (module-name suffixes; "c_proj" alone would match both projections). */
function peftModules(targets: readonly LoraTarget[]): string[] {
  const out: string[] = [];
  if (targets.includes('attn.c_attn')) out.push('c_attn');
  const attnProj = targets.includes('attn.c_proj'), mlpProj = targets.includes('mlp.c_proj');
  if (attnProj && mlpProj) out.push('c_proj');
  else if (attnProj) out.push('attn.c_proj');
  else if (mlpProj) out.push('mlp.c_proj');
  if (targets.includes('mlp.c_fc')) out.push('c_fc');
  return out;
}

/** The targets of PEFT target_modules written by peftModules; null when the list is not one of them. */
function targetsOfModules(modules: unknown): LoraTarget[] | null {
  if (!Array.isArray(modules) || modules.some((m) => typeof m !== 'string')) return null;
  const ts = LORA_TARGETS.filter((t) => modules.includes(t) || modules.includes(t.split('.')[1]));
  // PEFT keeps target_modules as a set: any order reads the same
  return JSON.stringify(peftModules(ts).sort()) === JSON.stringify([...(modules as unknown[])].sort()) && ts.length > 0 ? ts : null;
}

const ADAPTER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** File names of an adapter set; the name is checked so it can never leave the directory. */
export function adapterFileNames(name: string): { safetensors: string; json: string } {
  if (!ADAPTER_NAME.test(name)) throw new ConfigError(`adapter name ${showValue(name)}: use 1 to 64 letters, digits, '_' or '-'`);
  return { safetensors: `adapter_${name}.safetensors`, json: `adapter_${name}.json` };
}

/** [in, out] of each adapted projection for width C. */
export function targetDims(cfg: GPTConfig, target: LoraTarget): [number, number] {
  const C = cfg.nEmbd;
  const dims: Record<LoraTarget, [number, number]> = {
    'attn.c_attn': [C, 3 * C],
    'attn.c_proj': [C, C],
    'mlp.c_fc': [C, 4 * C],
    'mlp.c_proj': [4 * C, C],
  };
  return dims[target];
}

type SpecNames = Readonly<Record<'name' | 'rank' | 'alpha', string>>;
const SPEC_NAMES: SpecNames = { name: 'name', rank: 'rank', alpha: 'alpha' };
const JSON_NAMES: SpecNames = { name: 'adapter_name', rank: 'r', alpha: 'lora_alpha' };

/** Checks the values, naming them as the caller's format does (ours or the adapter JSON's). */
function checkSpec(o: Record<string, unknown>, cfg: GPTConfig, where: string, names: SpecNames): LoraSpec {
  const [name, rank, alpha] = [o[names.name], o[names.rank], o[names.alpha]];
  if (typeof name !== 'string' || !ADAPTER_NAME.test(name)) {
    throw new ConfigError(`${where}.${names.name} = ${showValue(name)}: use 1 to 64 letters, digits, '_' or '-'`);
  }
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 1 || rank > cfg.nEmbd) {
    throw new ConfigError(`${where}.${names.rank} = ${showValue(rank)}: must be an integer from 1 to nEmbd = ${cfg.nEmbd}`);
  }
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0) {
    throw new ConfigError(`${where}.${names.alpha} = ${showValue(alpha)}: must be a positive number (the update is scaled by alpha / rank)`);
  }
  return Object.freeze({ name, rank, alpha });
}

export function validateLoraSpec(obj: unknown, cfg: GPTConfig, where: string): LoraSpec {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new ConfigError(`${where}: expected an object with name, rank, alpha`);
  const keys = Object.values(SPEC_NAMES);
  for (const key of Object.keys(obj)) {
    if (!keys.includes(key)) throw new ConfigError(`${where}: unknown key ${showValue(key)}${didYouMean(key, keys)}; allowed keys: ${keys.join(', ')}`);
  }
  return checkSpec(obj as Record<string, unknown>, cfg, where, SPEC_NAMES);
}

/** The adapter buffer's table: per block, per target, A [in, R] then B [R, out]. */
export function buildLoraTable(cfg: GPTConfig, spec: LoraSpec): TensorTable {
  const entries: { name: string; shape: number[] }[] = [];
  for (let i = 0; i < cfg.nLayer; i++) {
    for (const target of specTargets(spec)) {
      const [fanIn, fanOut] = targetDims(cfg, target);
      entries.push({ name: `h.${i}.${target}.lora_A.weight`, shape: [fanIn, spec.rank] });
      entries.push({ name: `h.${i}.${target}.lora_B.weight`, shape: [spec.rank, fanOut] });
    }
  }
  return layoutTensors(entries);
}

export interface LoraPair {
  a: TensorInfo; // (in, R)
  b: TensorInfo; // (R, out)
}

/** Block i's adapters by target (the targets the table holds). */
export function layerAdapters(table: TensorTable, i: number): Partial<Record<LoraTarget, LoraPair>> {
  const out: Partial<Record<LoraTarget, LoraPair>> = {};
  for (const target of LORA_TARGETS) {
    const a = table.tensors.find((t) => t.name === `h.${i}.${target}.lora_A.weight`);
    if (a) out[target] = { a, b: tensor(table, `h.${i}.${target}.lora_B.weight`) };
  }
  return out;
}

/**
 * A ~ U(-1/sqrt(in), 1/sqrt(in)) (PEFT's kaiming_uniform_(a=sqrt(5)) on [r, in]), B = 0: the
 * adapted model starts equal to the base, and B's gradient is non-zero from the first step.
 */
export function initLora(table: TensorTable, seed: number): Float32Array {
  const buf = new Float32Array(table.totalFloats);
  const rand = mulberry32(seed);
  for (const t of table.tensors) {
    if (t.name.endsWith('.lora_A.weight')) fillUniform(tensorData(buf, t), rand, 1 / Math.sqrt(t.shape[0]));
  }
  return buf;
}

function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}

/** The same names with PEFT's (transposed) shapes, to check a file against. */
function diskTable(table: TensorTable): TensorTable {
  return layoutTensors(table.tensors.map((t) => ({ name: t.name, shape: [...t.shape].reverse() })));
}

// ---- adapter_<name>.json: PEFT LoraConfig field names, fixed fields checked on reading.
const FIXED_JSON = { peft_type: 'LORA', task_type: 'CAUSAL_LM', fan_in_fan_out: true, bias: 'none', lora_dropout: 0 } as const;

/**
 * The adapter JSON (PEFT's adapter_config.json, one per set): its shape here, what serializeAdapter
 * writes as its input type; the values that depend on the model (rank ≤ nEmbd, the modules) are
 * checked after, by checkSpec and targetsOfModules.
 */
const AdapterJsonSchema = v.strictObject({
  adapter_name: v.pipe(v.string(), v.maxLength(200)),
  r: v.number(),
  lora_alpha: v.number(),
  target_modules: v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(8)),
  peft_type: v.literal(FIXED_JSON.peft_type),
  task_type: v.literal(FIXED_JSON.task_type),
  fan_in_fan_out: v.literal(FIXED_JSON.fan_in_fan_out),
  bias: v.literal(FIXED_JSON.bias),
  lora_dropout: v.literal(FIXED_JSON.lora_dropout),
});

export function serializeAdapter(
  spec: LoraSpec,
  params: Float32Array,
  table: TensorTable,
  meta: Readonly<Record<string, string>> = {},
): { safetensors: Uint8Array; configJson: string } {
  if (params.length !== table.totalFloats) throw new CheckpointError(`adapter ${showValue(spec.name)}: buffer has ${params.length} floats, table needs ${table.totalFloats}`);
  const rankOf = (t: TensorInfo) => (t.name.endsWith('.lora_A.weight') ? t.shape[1] : t.shape[0]);
  const wrong = table.tensors.find((t) => t.shape.length !== 2 || rankOf(t) !== spec.rank);
  if (wrong) throw new CheckpointError(`adapter ${showValue(spec.name)}: table tensor ${showValue(wrong.name)} ${showValue(wrong.shape)} is not of rank ${spec.rank} (use buildLoraTable(cfg, spec))`);
  const tensors: NamedTensor[] = table.tensors.map((t) => ({
    name: t.name,
    shape: [t.shape[1], t.shape[0]],
    data: transpose(tensorData(params, t), t.shape[0], t.shape[1]),
  }));
  const safetensors = encodeSafetensors(tensors, { format: 'pt', ...meta });
  const json: v.InferInput<typeof AdapterJsonSchema> = { adapter_name: spec.name, r: spec.rank, lora_alpha: spec.alpha, target_modules: peftModules(specTargets(spec)), ...FIXED_JSON };
  return { safetensors, configJson: JSON.stringify(json, null, 2) + '\n' };
}

function parseAdapterJson(text: string, cfg: GPTConfig, what: string): LoraSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CheckpointError(`${what}: not JSON (${(err as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CheckpointError(`${what}: expected a JSON object`);
  const o = parseOr(AdapterJsonSchema, raw, (line) => {
    throw new CheckpointError(`${what}: ${line}`);
  });
  const targets = targetsOfModules(o.target_modules);
  if (!targets) throw new CheckpointError(`${what}.target_modules = ${showValue(o.target_modules)}: unsupported; use a list of c_attn, c_proj (both projections), attn.c_proj, mlp.c_proj and c_fc`);
  try {
    const spec = checkSpec(o, cfg, what, JSON_NAMES);
    return targets.length === LORA_TARGETS.length ? spec : Object.freeze({ ...spec, targets });
  } catch (err) {
    if (err instanceof ConfigError) throw new CheckpointError(err.message, { cause: err });
    throw err;
  }
}

/** PEFT saves names as base_model.model.transformer.h.…; accept those too. */
function stripPeftPrefix(tensors: ReadonlyMap<string, DecodedTensor>): Map<string, DecodedTensor> {
  const out = new Map<string, DecodedTensor>();
  for (const [name, t] of tensors) out.set(name.replace(/^base_model\.model\./, '').replace(/^transformer\./, ''), t);
  return out;
}

/**
 * Trained adapter weights are of order 1; past this the products A@B (summed over the rank) and
 * the adapted matmuls after them overflow float32 into Inf and NaN within a step.
 */
export const MAX_ADAPTER_WEIGHT = 1e6;

/** Refuses NaN, ±Inf and weights past ±MAX_ADAPTER_WEIGHT, naming the tensor, as base checkpoints are refused. */
function checkAdapterValues(params: Float32Array, table: TensorTable, what: string): void {
  for (const t of table.tensors) {
    for (let i = 0; i < t.size; i++) {
      const v = params[t.offset + i];
      if (!Number.isFinite(v)) throw new CheckpointError(`${what}: tensor ${t.name} holds ${v} at index ${i}; non-finite adapter weights cannot be used (a diverged run?)`);
      if (Math.abs(v) > MAX_ADAPTER_WEIGHT) throw new CheckpointError(`${what}: tensor ${t.name} holds ${v} at index ${i}; adapter weights beyond ±${MAX_ADAPTER_WEIGHT} overflow float32 in the adapted layers (a diverged run?)`);
    }
  }
}

/** Reads an adapter for a base config; `expectedName` guards against renamed files. */
export function parseAdapter(
  safetensorsBytes: Uint8Array,
  configJsonText: string,
  cfg: GPTConfig,
  expectedName?: string,
  /** the file's own name in errors (an uploaded file); by default the PEFT folder's file names */
  fileWhat?: string,
): { spec: LoraSpec; params: Float32Array; table: TensorTable; meta: Record<string, string> } {
  const jsonWhat = fileWhat ? `${fileWhat}: adapter_config` : expectedName ? adapterFileNames(expectedName).json : 'adapter json';
  const spec = parseAdapterJson(configJsonText, cfg, jsonWhat);
  if (expectedName !== undefined && spec.name !== expectedName) {
    throw new CheckpointError(`${jsonWhat}: adapter_name is ${showValue(spec.name)} but the file is named for ${showValue(expectedName)}`);
  }
  const what = fileWhat ?? adapterFileNames(spec.name).safetensors;
  const table = buildLoraTable(cfg, spec);
  const file = decodeSafetensors(safetensorsBytes, what);
  const onDisk = diskTable(table);
  const disk = readTable(stripPeftPrefix(file.tensors), onDisk, what);
  const params = new Float32Array(table.totalFloats);
  for (const t of table.tensors) {
    tensorData(params, t).set(transpose(tensorData(disk, tensor(onDisk, t.name)), t.shape[1], t.shape[0]));
  }
  checkAdapterValues(params, table, what);
  const meta = Object.fromEntries(Object.entries(file.metadata).filter(([k]) => k !== 'format'));
  return { spec, params, table, meta };
}

/**
 * The base with one adapter set merged in, W + (α/r)·A@B on each adapted projection (the policy
 * a LoRA run trains, as one checkpoint); `table` is the base's tensor table.
 */
export function mergeLora(cfg: GPTConfig, table: TensorTable, base: Float32Array, spec: LoraSpec, adapter: Float32Array): Float32Array {
  const atable = buildLoraTable(cfg, spec);
  if (adapter.length !== atable.totalFloats) throw new CheckpointError(`adapter ${showValue(spec.name)}: ${adapter.length} floats, its table needs ${atable.totalFloats}`);
  const out = base.slice();
  const s = loraScale(spec), R = spec.rank;
  for (let l = 0; l < cfg.nLayer; l++) {
    const pairs = layerAdapters(atable, l);
    for (const t of specTargets(spec)) {
      const [K, N] = targetDims(cfg, t);
      const w = tensor(table, `h.${l}.${t}.weight`), { a, b } = pairs[t]!;
      for (let k = 0; k < K; k++) {
        for (let n = 0; n < N; n++) {
          let acc = 0;
          for (let r = 0; r < R; r++) acc += adapter[a.offset + k * R + r] * adapter[b.offset + r * N + n];
          out[w.offset + k * N + n] += s * acc;
        }
      }
    }
  }
  return out;
}

/**
 * An adapter set from one file the lab exported (PEFT's tensor names, its adapter_config in the
 * safetensors metadata); `what` names the file in errors.
 */
export function parseAdapterFile(bytes: Uint8Array, cfg: GPTConfig, what: string): { spec: LoraSpec; params: Float32Array } {
  // decodeSafetensors names the file itself
  const config: string | undefined = decodeSafetensors(bytes, what).metadata.adapter_config;
  if (!config) throw new CheckpointError(`${what}: no adapter_config in its metadata; upload an adapter the lab exported (headless, --adapters reads a PEFT folder with its .json)`);
  const a = parseAdapter(bytes, config, cfg, undefined, what);
  return { spec: a.spec, params: a.params };
}
