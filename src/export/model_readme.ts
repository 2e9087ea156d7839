// README.md of an exported Hugging Face folder: what the model is, the prompt of each role (the
// formats of src/world/roles.ts), and how to load it in Python and in JavaScript.
import type { CheckpointMeta } from '../model/checkpoint';
import { countParams, type GPTConfig } from '../model/config';
import { solvePrompt } from '../world/roles';
import { decode, VOCABULARY } from '../world/tokenizer';
import type { SamplingDefaults } from './hf_folder';

const ROLE_TABLE = [
  ['solve', '`<bos><solve>(7+5)*3-4=`', '`7+5=12;12*3=36;36-4=32;#32<eos>`: one step per reduction, innermost-leftmost, then `#` and the answer'],
  ['vary (SvS)', '`<bos><vary>TRACE<sep>` (ablation: `<bos><vary>PROBLEM=TRACE<sep>`)', 'a new problem with the same answer, `<eos>`'],
  ['challenge (SPICE)', '`<bos><challenge>WORKED-DOCUMENT<sep>`', '`QUESTION#GOLD<eos>`'],
  ['teach (OpenSIR)', '`<bos><teach>PROBLEM<sep>`', 'a new problem and at most three concept tags `<c:add>` … `<c:big>`, `<eos>`'],
  ['propose (TTSP)', '`<bos><propose>TARGET<sep>` then earlier proposals, each `PROBLEM<sep>`', '`PROBLEM=TRACE<eos>`'],
] as const;

function describeMeta(meta: CheckpointMeta): string {
  const keys = Object.keys(meta).filter((k) => k !== 'loop_config' && k !== 'config_json');
  if (keys.length === 0) return 'It carries no run metadata (a base policy).';
  return `From the lab's checkpoint metadata (also in model.safetensors' header): ${keys.map((k) => `${k} = \`${meta[k]}\``).join(', ')}.`;
}

export function modelReadme(cfg: GPTConfig, meta: CheckpointMeta, sampling?: SamplingDefaults): string {
  const example = decode(solvePrompt('(7+5)*3-4'));
  const specials = VOCABULARY.map((t, id) => [t, id] as const).filter(([t]) => t.startsWith('<') && !t.startsWith('<reserved'));
  return `# An RLVR Lab policy

A GPT-2 decoder (${cfg.nLayer} layers, width ${cfg.nEmbd}, ${cfg.nHead} heads, ${cfg.nPositions} positions, vocabulary ${cfg.vocabSize}; ${countParams(cfg).toLocaleString('en-US')} parameters, LM head tied to the token embedding) trained in RLVR Lab on its arithmetic world: problems over 0..999 with + - * ( ) and min, max, mod, solved by step traces whose answer a verifier checks exactly.
${describeMeta(meta)}

## Files

- \`config.json\`: GPT2Config (\`model_type: gpt2\`, \`activation_function: gelu_new\`), with the lab's token ids.
- \`model.safetensors\`: the weights, float32, Hugging Face GPT-2 names (\`wte.weight\`, \`h.0.attn.c_attn.weight\` stored [in, out] as Conv1D, …).
- \`tokenizer.json\`, \`tokenizer_config.json\`, \`special_tokens_map.json\`: the lab's character tokenizer; ids equal the lab's.
- \`generation_config.json\`: eos \`<eos>\` (${VOCABULARY.indexOf('<eos>')}), pad \`<pad>\` (${VOCABULARY.indexOf('<pad>')}), bos \`<bos>\` (${VOCABULARY.indexOf('<bos>')}); temperature ${sampling?.temperature ?? 1} and top-p ${sampling?.topP ?? 1}${sampling?.maxNewTokens !== undefined ? `, at most ${sampling.maxNewTokens} new tokens` : ''} as the run sampled.
- \`onnx/model.onnx\`: the same model with past key values (opset 17; inputs \`input_ids\`, \`attention_mask\`, \`position_ids\` int64 and \`past_key_values.N.key/value\`; outputs \`logits\` and \`present.N.key/value\`), as transformers.js and onnxruntime read it.

## The tokenizer

One token per character of \`0-9 + - * ( ) = ; # ,\` and \`a-z\`; the tokens written \`<name>\` are whole tokens: ${specials.map(([t, id]) => `\`${t}\` ${id}`).join(', ')}; ids ${VOCABULARY.findIndex((t) => t.startsWith('<reserved'))}..${cfg.vocabSize - 1} are reserved and never produced. There is no space and no unknown token: a character outside the vocabulary is dropped by the Hugging Face tokenizer (the lab refuses it). \`encode\` adds nothing (prompts carry their own \`<bos>\`), and \`decode(..., skip_special_tokens=True)\` drops the control tokens but keeps the concept tags.

## Prompts

Every prompt starts with \`<bos>\` and its role's token; a response ends with \`<eos>\`. The verifier reads the integer after the **last** \`#\`; anything else (no marker, a malformed number, a response cut before \`<eos>\`) scores 0.

| role | prompt | response |
|---|---|---|
${ROLE_TABLE.map((r) => `| ${r.join(' | ')} |`).join('\n')}

## Loading it

Python (transformers):

\`\`\`python
from transformers import AutoModelForCausalLM, AutoTokenizer
tok = AutoTokenizer.from_pretrained("path/to/this/folder")
model = AutoModelForCausalLM.from_pretrained("path/to/this/folder")
ids = tok("${example}", return_tensors="pt").input_ids
out = model.generate(ids, do_sample=False, max_new_tokens=${Math.max(1, cfg.nPositions - solvePrompt('(7+5)*3-4').length)})
print(tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True))
\`\`\`

JavaScript (transformers.js, in Node or a page):

\`\`\`js
import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers';
env.localModelPath = '/path/to/parent/'; env.allowRemoteModels = false;
const tok = await AutoTokenizer.from_pretrained('this-folder');
const model = await AutoModelForCausalLM.from_pretrained('this-folder'); // reads onnx/model.onnx (fp32)
const { input_ids } = tok('${example}');
const out = await model.generate({ input_ids, do_sample: false, max_new_tokens: 40 });
console.log(tok.decode(out[0].slice([input_ids.dims[1], null]).tolist()));
\`\`\`

onnxruntime (any language): \`onnx/model.onnx\`, start with past tensors of shape [batch, ${cfg.nHead}, 0, ${cfg.nEmbd / cfg.nHead}] and feed each call's \`present.*\` back as \`past_key_values.*\`.
`;
}
