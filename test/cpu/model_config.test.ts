import { describe, expect, it } from 'vitest';
import { countParams, fromHfConfig, GPT_PRESETS, toHfConfig, validateConfig, type GPTConfig } from '../../src/model/config';
import { ConfigError } from '../../src/util/errors';

// GPT-2's parameter count written out independently of countParams: embeddings, then per
// block 2 LayerNorms (2C each), qkv (C*3C + 3C), attention output (C*C + C), MLP up
// (C*4C + 4C) and down (4C*C + C), then the final LayerNorm; no separate LM head.
function gpt2Formula(V: number, P: number, C: number, L: number): number {
  return V * C + P * C + L * (12 * C * C + 13 * C) + 2 * C;
}

// The config.json of the published 124M GPT-2 (openai-community/gpt2), as transformers has it.
const HUB_GPT2 = {
  activation_function: 'gelu_new', architectures: ['GPT2LMHeadModel'], attn_pdrop: 0.1, bos_token_id: 50256,
  embd_pdrop: 0.1, eos_token_id: 50256, initializer_range: 0.02, layer_norm_epsilon: 1e-5, model_type: 'gpt2',
  n_ctx: 1024, n_embd: 768, n_head: 12, n_layer: 12, n_positions: 1024, resid_pdrop: 0.1, summary_activation: null,
  summary_first_dropout: 0.1, summary_proj_to_labels: true, summary_type: 'cls_index', summary_use_proj: true,
  task_specific_params: { 'text-generation': { do_sample: true, max_length: 50 } }, vocab_size: 50257,
};

describe('GPT presets', () => {
  it.each(Object.entries(GPT_PRESETS))('%s validates and has the GPT-2 parameter count', (_name, cfg) => {
    expect(validateConfig({ ...cfg }, 'preset')).toEqual(cfg);
    expect(countParams(cfg)).toBe(gpt2Formula(cfg.vocabSize, cfg.nPositions, cfg.nEmbd, cfg.nLayer));
    expect(cfg.layerNormEps).toBe(1e-5);
  });

  it('has the documented sizes', () => {
    expect(GPT_PRESETS.tiny).toMatchObject({ vocabSize: 64, nPositions: 64, nEmbd: 32, nLayer: 2, nHead: 2 });
    expect(GPT_PRESETS.small).toMatchObject({ vocabSize: 64, nPositions: 128, nEmbd: 64, nLayer: 2, nHead: 2 });
    expect(GPT_PRESETS.base).toMatchObject({ vocabSize: 64, nPositions: 128, nEmbd: 128, nLayer: 4, nHead: 4 });
    expect(countParams(GPT_PRESETS.small)).toBe(112_384);
    expect(countParams(GPT_PRESETS.base)).toBe(817_920);
  });

  it('counts the published GPT-2 124M exactly', () => {
    expect(countParams(fromHfConfig(HUB_GPT2, 'config.json'))).toBe(124_439_808);
  });
});

describe('validateConfig', () => {
  const ok = { vocabSize: 64, nPositions: 64, nEmbd: 32, nLayer: 2, nHead: 2 };
  const bad: [string, unknown, RegExp][] = [
    ['not an object', [1, 2], /expected an object/],
    ['an unknown key, with a suggestion', { ...ok, nEmb: 32 }, /unknown key "nEmb" \(did you mean "nEmbd"\?\)/],
    ['a missing key', { vocabSize: 64, nPositions: 64, nEmbd: 32, nLayer: 2 }, /missing "nHead"/],
    ['a non-integer', { ...ok, nLayer: 2.5 }, /nLayer = 2\.5: must be an integer/],
    ['a string number', { ...ok, nHead: '2' }, /nHead = "2": must be an integer/],
    ['zero layers', { ...ok, nLayer: 0 }, /nLayer = 0: must be at least 1/],
    ['a vocabulary of one', { ...ok, vocabSize: 1 }, /vocabSize = 1: must be at least 2/],
    ['nEmbd not divisible by nHead', { ...ok, nEmbd: 30, nHead: 4 }, /nEmbd = 30 is not divisible by nHead = 4: set nEmbd to a multiple of nHead \(e\.g\. 28 or 32\)/],
    ['another LayerNorm epsilon', { ...ok, layerNormEps: 1e-6 }, /layerNormEps = 0\.000001: only 0\.00001 is supported/],
    ['a model too large for u32 byte offsets', { ...ok, nEmbd: 16384, nLayer: 400, nHead: 4 }, /exceed the limit/],
  ];
  it.each(bad)('rejects %s', (_label, obj, message) => {
    expect(() => validateConfig(obj, 'model')).toThrow(ConfigError);
    expect(() => validateConfig(obj, 'model')).toThrow(message);
  });

  it('accepts layerNormEps 1e-5 explicitly and returns a frozen config', () => {
    const cfg = validateConfig({ ...ok, layerNormEps: 1e-5 }, 'model');
    expect(Object.isFrozen(cfg)).toBe(true);
  });
});

describe('Hugging Face config.json', () => {
  it.each(Object.entries(GPT_PRESETS))('round-trips %s through JSON text', (_name, cfg) => {
    const text = JSON.stringify(toHfConfig(cfg));
    const back: GPTConfig = fromHfConfig(JSON.parse(text), 'config.json');
    expect(back).toEqual(cfg);
  });

  it('writes GPT2Config field names and values', () => {
    const hf = toHfConfig(GPT_PRESETS.small, { bos_token_id: 1, eos_token_id: 2 });
    expect(hf).toMatchObject({
      model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], vocab_size: 64, n_positions: 128, n_embd: 64,
      n_layer: 2, n_head: 2, n_inner: null, activation_function: 'gelu_new', layer_norm_epsilon: 1e-5,
      tie_word_embeddings: true, bos_token_id: 1, eos_token_id: 2,
    });
  });

  it('refuses extras that would override the architecture', () => {
    expect(() => toHfConfig(GPT_PRESETS.tiny, { n_embd: 3 })).toThrow(/"n_embd" is written from the model config/);
  });

  it('ignores keys that do not change the forward pass', () => {
    const cfg = fromHfConfig({ ...HUB_GPT2, reorder_and_upcast_attn: true, torch_dtype: 'float16', some_new_field: 7 }, 'config.json');
    expect(cfg).toMatchObject({ vocabSize: 50257, nPositions: 1024, nEmbd: 768, nLayer: 12, nHead: 12 });
    expect(fromHfConfig({ ...HUB_GPT2, activation_function: 'gelu_pytorch_tanh', n_inner: 3072 }, 'c').nEmbd).toBe(768);
  });

  const small = toHfConfig(GPT_PRESETS.small);
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['another model type', { ...small, model_type: 'llama' }, /model_type = "llama": must be "gpt2"/],
    ['a missing size', (({ n_head: _, ...rest }) => rest)(small), /missing "n_head"/],
    ['a non-integer size', { ...small, n_layer: 2.5 }, /config\.json\.n_layer = 2\.5: must be an integer/],
    ['n_embd not divisible by n_head, named as in the file', { ...small, n_embd: 30, n_head: 4 }, /n_embd = 30 is not divisible by n_head = 4/],
    ['the erf GELU', { ...small, activation_function: 'gelu' }, /activation_function = "gelu": unsupported/],
    ['ReLU', { ...small, activation_function: 'relu' }, /activation_function = "relu": unsupported/],
    ['another MLP width', { ...small, n_inner: 100 }, /n_inner = 100: unsupported; must be null or 4 \* n_embd/],
    ['another LayerNorm epsilon', { ...small, layer_norm_epsilon: 1e-6 }, /layer_norm_epsilon = 0\.000001: unsupported/],
    ['an untied LM head', { ...small, tie_word_embeddings: false }, /tie_word_embeddings = false: unsupported/],
    ['unscaled attention', { ...small, scale_attn_weights: false }, /scale_attn_weights = false/],
    ['layer-index attention scaling', { ...small, scale_attn_by_inverse_layer_idx: true }, /scale_attn_by_inverse_layer_idx = true/],
    ['cross-attention', { ...small, add_cross_attention: true }, /add_cross_attention = true/],
    ['quantised weights', { ...small, quantization_config: { load_in_8bit: true } }, /quantization_config/],
  ];
  it.each(bad)('rejects %s', (_label, obj, message) => {
    expect(() => fromHfConfig(obj, 'config.json')).toThrow(ConfigError);
    expect(() => fromHfConfig(obj, 'config.json')).toThrow(message);
  });
});
