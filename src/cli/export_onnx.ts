// rlvr-lab export-onnx: a checkpoint folder as one ONNX file (opset 17) for onnxruntime,
// Netron or any other ONNX tool. The graph is built by src/onnx/export.ts.
import { showText } from '../util/show';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs, CliError } from './args';
import { loadCheckpointDir } from '../model/checkpoint_node';
import { exportOnnx, exportOnnxWithPast } from '../onnx/export';
import { whyModelCannotServe } from '../eval/evaluate';

export async function exportOnnxCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    ckpt: { type: 'string', required: true, help: 'checkpoint folder (model.safetensors + config.json)' },
    out: { type: 'string', required: true, help: 'the .onnx file to write' },
    'with-past': { type: 'boolean', default: false, help: 'the decoder with a KV cache, as Hugging Face exports GPT-2 for generation' },
  });
  if (f.out === '' || f.out.endsWith('/')) throw new CliError(`--out must name a file (e.g. model.onnx), got ${showText(String(f.out))}`);
  const ckpt = await loadCheckpointDir(f.ckpt);
  // an ONNX file of a model that cannot read or answer the world's prompts serves nobody
  const unfit = whyModelCannotServe(ckpt.cfg);
  if (unfit) throw new CliError(`checkpoint ${f.ckpt}: ${unfit}; nothing exported`);
  const bytes = (f['with-past'] ? exportOnnxWithPast : exportOnnx)(ckpt.cfg, ckpt.table, ckpt.params, ckpt.meta);
  try {
    await mkdir(dirname(f.out), { recursive: true });
    await writeFile(f.out, bytes);
  } catch (err) {
    throw new CliError(`--out: cannot write ${f.out} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  const { nLayer, nEmbd, vocabSize, nPositions } = ckpt.cfg;
  process.stderr.write(`wrote ${f.out} (${bytes.length} bytes; ${nLayer} layers, width ${nEmbd}, vocabulary ${vocabSize}, context ${nPositions}; ${f['with-past'] ? 'input_ids, attention_mask, position_ids int64 and past_key_values.N.key/.value in; logits and present.N.key/.value out' : 'input_ids int32 [batch, seq]'})\n`);
}
