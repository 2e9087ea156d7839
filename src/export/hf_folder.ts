// A checkpoint as a Hugging Face model folder: what `from_pretrained` (transformers in Python,
// transformers.js in JavaScript) and any GPT-2 tool read. Browser-safe: the files come back as
// bytes by path; the CLI writes them (src/cli/export_hf.ts), the page zips them.
//   config.json              GPT2Config (HF names) with the lab's token ids, and transformers.js's
//                            default dtype (fp32: the only ONNX file there is)
//   generation_config.json   bos / eos / pad, and the run's temperature and top-p
//   model.safetensors        the weights with HF GPT-2 names
//   tokenizer.json, tokenizer_config.json, special_tokens_map.json   the lab's tokenizer, ids equal
//   onnx/model.onnx          the decoder with past key values, named as transformers.js reads it
//   README.md                what the model is, each role's prompt, how to load it
import { serializeCheckpoint, type CheckpointMeta } from '../model/checkpoint';
import { toHfConfig, type GPTConfig } from '../model/config';
import type { TensorTable } from '../model/params';
import { exportOnnxWithPast } from '../onnx/export';
import { BOS, EOS, PAD } from '../world/tokenizer';
import { modelReadme } from './model_readme';
import { specialTokensMapJson, tokenizerConfigJson, tokenizerJson } from './tokenizer_json';

/** How the run sampled: generation_config.json's defaults (absent: T = 1, top-p 1). */
export interface SamplingDefaults {
  temperature: number;
  topP: number;
  /** the run's longest response, end token included (absent: up to the context) */
  maxNewTokens?: number;
}

export interface HfFolderSource {
  cfg: GPTConfig;
  table: TensorTable;
  params: Float32Array;
  /** the checkpoint's own metadata (run id, loop, step, ...): kept in the safetensors and ONNX files and listed in the README */
  meta?: CheckpointMeta;
  sampling?: SamplingDefaults;
}

/** The folder's files in the order a listing shows them; paths use '/'. */
export type HfFolder = ReadonlyMap<string, Uint8Array>;

const json = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

export function configJson(cfg: GPTConfig): Record<string, unknown> {
  return {
    ...toHfConfig(cfg, { bos_token_id: BOS, eos_token_id: EOS, pad_token_id: PAD }),
    // transformers.js picks model_quantized.onnx on wasm unless told: this folder holds model.onnx only
    'transformers.js_config': { dtype: 'fp32' },
  };
}

export function generationConfigJson(cfg: GPTConfig, s: SamplingDefaults = { temperature: 1, topP: 1 }): Record<string, unknown> {
  return {
    bos_token_id: BOS,
    eos_token_id: EOS,
    pad_token_id: PAD,
    do_sample: true,
    temperature: s.temperature,
    top_p: s.topP,
    top_k: 0,
    // prompt plus response never exceed the learned positions
    max_length: cfg.nPositions,
    ...(s.maxNewTokens !== undefined ? { max_new_tokens: s.maxNewTokens } : {}),
  };
}

export function buildHfFolder(src: HfFolderSource): HfFolder {
  const { cfg, table, params } = src;
  const meta = src.meta ?? {};
  const text = new TextEncoder();
  const { safetensors } = serializeCheckpoint(cfg, params, table, meta);
  const files = new Map<string, Uint8Array>();
  files.set('README.md', text.encode(modelReadme(cfg, meta, src.sampling)));
  files.set('config.json', text.encode(json(configJson(cfg))));
  files.set('generation_config.json', text.encode(json(generationConfigJson(cfg, src.sampling))));
  files.set('model.safetensors', safetensors);
  files.set('tokenizer.json', text.encode(json(tokenizerJson())));
  files.set('tokenizer_config.json', text.encode(json(tokenizerConfigJson(cfg.nPositions))));
  files.set('special_tokens_map.json', text.encode(json(specialTokensMapJson())));
  files.set('onnx/model.onnx', exportOnnxWithPast(cfg, table, params, meta));
  return files;
}
