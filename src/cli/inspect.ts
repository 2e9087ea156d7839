// rlvr-lab inspect: logits, next-token loss and every parameter tensor's gradient norm for one
// token sequence, computed by the GPU engine (one forward + backward, no optimiser step).
import { showText } from '../util/show';
import { parseArgs, CliError } from './args';
import { loadCheckpointDir } from '../model/checkpoint_node';
import { createNodeGpu } from '../gpu/node';
import { GPT } from '../model/gpt';
import { nextTokenBatch } from '../reference/gpt';

export interface InspectResult {
  logits: number[][];
  loss: number;
  gradNorms: Record<string, number>;
}

export function parseTokenList(text: string, vocabSize: number, ctx: number): number[] {
  const parts = text.split(',').map((s) => s.trim());
  const tokens = parts.map((s, i) => {
    const n = Number(s);
    if (s === '' || !Number.isInteger(n) || n < 0 || n >= vocabSize) throw new CliError(`--tokens: entry ${i + 1} (${showText(String(s))}) is not a token id in [0, ${vocabSize})`);
    return n;
  });
  if (tokens.length < 2) throw new CliError('--tokens needs at least 2 tokens (the loss predicts each next token)');
  if (tokens.length > ctx) throw new CliError(`--tokens has ${tokens.length} tokens; the model's context is ${ctx}`);
  return tokens;
}

export async function inspectCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    ckpt: { type: 'string', required: true },
    tokens: { type: 'string', required: true },
    json: { type: 'boolean', default: false },
  });
  const ckpt = await loadCheckpointDir(f.ckpt);
  const tokens = parseTokenList(f.tokens, ckpt.cfg.vocabSize, ckpt.cfg.nPositions);
  const gpu = await createNodeGpu();
  try {
    const result = await inspect(gpu, ckpt, tokens);
    if (f.json) process.stdout.write(JSON.stringify(result) + '\n');
    else printHuman(result);
  } finally {
    gpu.destroy();
  }
}

export async function inspect(gpu: Awaited<ReturnType<typeof createNodeGpu>>, ckpt: Awaited<ReturnType<typeof loadCheckpointDir>>, tokens: number[]): Promise<InspectResult> {
  const T = tokens.length;
  const model = await GPT.create(gpu, ckpt.cfg, ckpt.params, { B: 1, T });
  const batch = nextTokenBatch(tokens);
  model.setBatch(batch.tokens, batch.targets, batch.w);
  model.gradients();
  const [logitsFlat, logp, grads] = await Promise.all([gpu.readF32(model.batch.logits), gpu.readF32(model.batch.logp), model.readGrads()]);
  const V = ckpt.cfg.vocabSize;
  const logits: number[][] = [];
  for (let t = 0; t < T; t++) logits.push(Array.from(logitsFlat.subarray(t * V, (t + 1) * V)));
  let loss = 0;
  for (let t = 0; t + 1 < T; t++) loss -= logp[t] / (T - 1);
  const gradNorms: Record<string, number> = {};
  for (const t of model.table.tensors) {
    let s = 0;
    for (let i = t.offset; i < t.offset + t.size; i++) s += grads[i] * grads[i];
    gradNorms[t.name] = Math.sqrt(s);
  }
  return { logits, loss, gradNorms };
}

function printHuman(r: InspectResult): void {
  const lines = [`loss ${r.loss.toFixed(6)}`, `positions ${r.logits.length}, vocabulary ${r.logits[0].length}`, 'gradient norms:'];
  for (const [name, n] of Object.entries(r.gradNorms)) lines.push(`  ${name.padEnd(28)} ${n.toExponential(4)}`);
  process.stdout.write(lines.join('\n') + '\n');
}
