// rlvr-lab export-hf: a checkpoint folder as a Hugging Face model folder (config, weights,
// tokenizer, generation defaults, the ONNX decoder with past key values, a README), which
// transformers and transformers.js load with from_pretrained. The files come from
// src/export/hf_folder.ts (shared with the page's zip download); this writes them.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs, CliError, positiveInt } from './args';
import { loadCheckpointDir } from '../model/checkpoint_node';
import { buildHfFolder, type HfFolder, type SamplingDefaults } from '../export/hf_folder';
import { whyModelCannotServe } from '../eval/evaluate';
import type { Checkpoint } from '../model/checkpoint';

/** Writes every file of the folder under `out`, creating subfolders (onnx/). */
export async function writeFolder(out: string, files: HfFolder): Promise<void> {
  try {
    for (const [path, bytes] of files) {
      const full = join(out, ...path.split('/'));
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, bytes);
    }
  } catch (err) {
    throw new CliError(`--out: cannot write into ${out} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
}

/** Loads a checkpoint that can serve the world's prompts (an export of any other serves nobody). */
export async function servingCheckpoint(dir: string): Promise<Checkpoint> {
  const ckpt = await loadCheckpointDir(dir);
  const unfit = whyModelCannotServe(ckpt.cfg);
  if (unfit) throw new CliError(`checkpoint ${dir}: ${unfit}; nothing exported`);
  return ckpt;
}

export async function exportHfCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    ckpt: { type: 'string', required: true, help: 'checkpoint folder (model.safetensors + config.json)' },
    out: { type: 'string', required: true, help: 'the folder to write' },
    temperature: { type: 'number', default: 1, help: 'generation_config.json temperature (the run\'s)' },
    'top-p': { type: 'number', default: 1, help: 'generation_config.json top_p (the run\'s)' },
    'max-new-tokens': { type: 'number', help: 'generation_config.json max_new_tokens (absent: up to the context)' },
  });
  if (f.out === '') throw new CliError('--out is empty: give the folder to write');
  if (!(f.temperature > 0)) throw new CliError(`--temperature must be above 0, got ${f.temperature}`);
  if (!(f['top-p'] > 0 && f['top-p'] <= 1)) throw new CliError(`--top-p must be in (0, 1], got ${f['top-p']}`);
  const ckpt = await servingCheckpoint(f.ckpt);
  const sampling: SamplingDefaults = { temperature: f.temperature, topP: f['top-p'] };
  if (f['max-new-tokens'] !== undefined) sampling.maxNewTokens = positiveInt('max-new-tokens', f['max-new-tokens']);
  const files = buildHfFolder({ cfg: ckpt.cfg, table: ckpt.table, params: ckpt.params, meta: ckpt.meta, sampling });
  await writeFolder(f.out, files);
  process.stderr.write(`wrote ${f.out}/ (${[...files.keys()].join(', ')})\n`);
}
