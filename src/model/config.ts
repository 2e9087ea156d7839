// The model's architecture: a GPT-2 decoder described by five integers, its presets, a
// validator that says what to change, and conversion to and from Hugging Face's config.json.
import { showValue } from '../util/show';
import { ConfigError, didYouMean } from '../util/errors';

export interface GPTConfig {
  /** V: token vocabulary size (rows of wte, columns of the tied LM head). */
  readonly vocabSize: number;
  /** Maximum sequence length: rows of the learned position embedding wpe. */
  readonly nPositions: number;
  /** C: model width (d_model). Must be a multiple of nHead. */
  readonly nEmbd: number;
  /** L: number of transformer blocks. */
  readonly nLayer: number;
  /** NH: attention heads per block; head size HS = nEmbd / nHead. */
  readonly nHead: number;
  /** LayerNorm epsilon; fixed at 1e-5 like GPT-2 (kept in the type so it is saved, not implied). */
  readonly layerNormEps: number;
}

export const LAYER_NORM_EPS = 1e-5;

/** Help text for each field, for config forms and error messages. */
export const GPT_CONFIG_HELP: Readonly<Record<keyof GPTConfig, string>> = {
  vocabSize: 'vocabulary size V: must equal the tokenizer size',
  nPositions: 'context length: the longest prompt plus response the model can see',
  nEmbd: 'model width C (d_model); a multiple of nHead',
  nLayer: 'number of transformer blocks L',
  nHead: 'attention heads NH; head size is nEmbd / nHead',
  layerNormEps: 'LayerNorm epsilon, fixed at 1e-5 (GPT-2)',
};

// The flat parameter buffer is addressed with u32 byte offsets in WGSL, so it must stay
// below 2^32 bytes = 2^30 floats.
export const MAX_PARAM_FLOATS = 2 ** 30;

function preset(vocabSize: number, nPositions: number, nEmbd: number, nLayer: number, nHead: number): GPTConfig {
  return Object.freeze({ vocabSize, nPositions, nEmbd, nLayer, nHead, layerNormEps: LAYER_NORM_EPS });
}

export const GPT_PRESETS = Object.freeze({
  /** For tests: every code path, smallest shapes. */
  tiny: preset(64, 64, 32, 2, 2),
  /** The default policy (~112k parameters): learns the world in minutes to hours. */
  small: preset(64, 128, 64, 2, 2),
  /** Four times wider and twice as deep (~0.8M parameters); needs far more tokens. */
  base: preset(64, 128, 128, 4, 4),
});

export type GPTPresetName = keyof typeof GPT_PRESETS;

/** Number of parameters (floats) of the architecture, without alignment padding. */
export function countParams(cfg: GPTConfig): number {
  const { vocabSize: V, nPositions: P, nEmbd: C, nLayer: L } = cfg;
  const perLayer = 2 * C + (C * 3 * C + 3 * C) + (C * C + C) + 2 * C + (C * 4 * C + 4 * C) + (4 * C * C + C);
  return V * C + P * C + L * perLayer + 2 * C;
}

const KEYS: readonly (keyof GPTConfig)[] = ['vocabSize', 'nPositions', 'nEmbd', 'nLayer', 'nHead', 'layerNormEps'];

function positiveInt(where: string, key: string, v: unknown, min: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new ConfigError(`${where}.${key} = ${showValue(v)}: must be an integer >= ${min}`);
  }
  if (v < min) throw new ConfigError(`${where}.${key} = ${v}: must be at least ${min}`);
  return v;
}

function isPlainObject(obj: unknown): obj is Record<string, unknown> {
  return typeof obj === 'object' && obj !== null && !Array.isArray(obj);
}

type KeyNames = Readonly<Record<keyof GPTConfig, string>>;
const OWN_NAMES: KeyNames = { vocabSize: 'vocabSize', nPositions: 'nPositions', nEmbd: 'nEmbd', nLayer: 'nLayer', nHead: 'nHead', layerNormEps: 'layerNormEps' };

/** Checks the values, naming them as the caller's format does (ours or config.json's). */
function checkSizes(obj: Record<string, unknown>, where: string, names: KeyNames): GPTConfig {
  const get = (key: keyof GPTConfig, min: number) => positiveInt(where, names[key], obj[names[key]], min);
  const vocabSize = get('vocabSize', 2);
  const nPositions = get('nPositions', 1);
  const nEmbd = get('nEmbd', 1);
  const nLayer = get('nLayer', 1);
  const nHead = get('nHead', 1);
  if (nEmbd % nHead !== 0) {
    const lower = Math.floor(nEmbd / nHead) * nHead;
    const hint = lower > 0 ? `${lower} or ${lower + nHead}` : `${nHead}`;
    throw new ConfigError(
      `${where}.${names.nEmbd} = ${nEmbd} is not divisible by ${names.nHead} = ${nHead}: set ${names.nEmbd} to a multiple of ${names.nHead} (e.g. ${hint}) or change ${names.nHead}`,
    );
  }
  const cfg = preset(vocabSize, nPositions, nEmbd, nLayer, nHead);
  const n = countParams(cfg);
  if (n > MAX_PARAM_FLOATS) {
    throw new ConfigError(`${where}: ${n} parameters exceed the limit of ${MAX_PARAM_FLOATS} (u32 byte offsets in WGSL); make the model smaller`);
  }
  return cfg;
}

/**
 * Checks an untrusted object (a form, a URL, a saved run) and returns a frozen GPTConfig.
 * `layerNormEps` may be omitted (it is fixed); every other field is required.
 */
export function validateConfig(obj: unknown, where: string): GPTConfig {
  if (!isPlainObject(obj)) throw new ConfigError(`${where}: expected an object with ${KEYS.slice(0, 5).join(', ')}`);
  for (const key of Object.keys(obj)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(`${where}: unknown key "${key}"${didYouMean(key, KEYS)}; allowed keys: ${KEYS.join(', ')}`);
    }
  }
  for (const key of KEYS.slice(0, 5)) {
    if (!Object.hasOwn(obj, key)) throw new ConfigError(`${where}: missing "${key}" (${GPT_CONFIG_HELP[key]})`);
  }
  if (obj.layerNormEps !== undefined && obj.layerNormEps !== LAYER_NORM_EPS) {
    throw new ConfigError(`${where}.layerNormEps = ${showValue(obj.layerNormEps)}: only ${LAYER_NORM_EPS} is supported; remove the key or set it to ${LAYER_NORM_EPS}`);
  }
  return checkSizes(obj, where, OWN_NAMES);
}

// ---- Hugging Face config.json (transformers.GPT2Config)

/** Activation names that transformers maps to the tanh approximation of GELU we implement. */
const HF_TANH_GELU = ['gelu_new', 'gelu_pytorch_tanh', 'gelu_fast'];

const HF_NAMES: KeyNames = { vocabSize: 'vocab_size', nPositions: 'n_positions', nEmbd: 'n_embd', nLayer: 'n_layer', nHead: 'n_head', layerNormEps: 'layer_norm_epsilon' };
const HF_SIZE_KEYS = ['vocab_size', 'n_positions', 'n_embd', 'n_layer', 'n_head'] as const;

type HfValue = string | number | boolean | null | readonly string[];

/**
 * Keys that would change the computation if they took another value. Absent means the
 * GPT2Config default, which is the supported value. Any other key (dropouts, token ids,
 * summary heads, torch_dtype, transformers_version, ...) does not change the forward pass and
 * is ignored on reading.
 */
const HF_ARCH_CHECKS: Readonly<Record<string, { ok: (v: unknown, raw: Record<string, unknown>) => boolean; want: string }>> = {
  activation_function: { ok: (v) => v === undefined || HF_TANH_GELU.includes(v as string), want: `one of ${HF_TANH_GELU.join(', ')} (tanh GELU)` },
  layer_norm_epsilon: { ok: (v) => v === undefined || v === LAYER_NORM_EPS, want: `${LAYER_NORM_EPS}` },
  n_inner: { ok: (v, raw) => v === undefined || v === null || v === 4 * (raw.n_embd as number), want: 'null or 4 * n_embd' },
  tie_word_embeddings: { ok: (v) => v === undefined || v === true, want: 'true (the LM head is the token embedding)' },
  scale_attn_weights: { ok: (v) => v === undefined || v === true, want: 'true (scores scaled by 1/sqrt(head size))' },
  scale_attn_by_inverse_layer_idx: { ok: (v) => v === undefined || v === false, want: 'false' },
  add_cross_attention: { ok: (v) => v === undefined || v === false, want: 'false (decoder only)' },
  is_encoder_decoder: { ok: (v) => v === undefined || v === false, want: 'false (decoder only)' },
  quantization_config: { ok: (v) => v === undefined || v === null, want: 'absent (weights must be plain floats)' },
};

/** The config.json transformers writes for GPT2LMHeadModel, for this architecture. */
export function toHfConfig(cfg: GPTConfig, extras: Readonly<Record<string, HfValue>> = {}): Record<string, HfValue> {
  const base: Record<string, HfValue> = {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    vocab_size: cfg.vocabSize,
    n_positions: cfg.nPositions,
    n_ctx: cfg.nPositions,
    n_embd: cfg.nEmbd,
    n_layer: cfg.nLayer,
    n_head: cfg.nHead,
    n_inner: null,
    activation_function: 'gelu_new',
    layer_norm_epsilon: cfg.layerNormEps,
    tie_word_embeddings: true,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    resid_pdrop: 0,
    embd_pdrop: 0,
    attn_pdrop: 0,
    initializer_range: 0.02,
    use_cache: true,
    torch_dtype: 'float32',
  };
  for (const key of Object.keys(extras)) {
    if (Object.hasOwn(base, key)) throw new ConfigError(`config.json extras: "${key}" is written from the model config and cannot be overridden`);
  }
  return { ...base, ...extras };
}

/** Reads a parsed config.json (GPT2Config field names) and rejects architectures we cannot run. */
export function fromHfConfig(raw: unknown, where: string): GPTConfig {
  if (!isPlainObject(raw)) throw new ConfigError(`${where}: expected a JSON object (GPT2Config)`);
  if (raw.model_type !== 'gpt2') {
    throw new ConfigError(`${where}.model_type = ${showValue(raw.model_type)}: must be "gpt2"`);
  }
  for (const key of HF_SIZE_KEYS) {
    if (!Object.hasOwn(raw, key)) throw new ConfigError(`${where}: missing "${key}"; give it explicitly (the GPT2Config default is for the 124M model)`);
  }
  const cfg = checkSizes(raw, where, HF_NAMES);
  for (const [key, check] of Object.entries(HF_ARCH_CHECKS)) {
    if (!check.ok(raw[key], raw)) {
      throw new ConfigError(`${where}.${key} = ${showValue(raw[key])}: unsupported; must be ${check.want}`);
    }
  }
  return cfg;
}
