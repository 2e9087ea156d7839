// rlvr-lab run: a loop headless from a base policy. One JSON line per event (the resolved
// config first), progress on stderr, a checkpoint at the end; Ctrl-C stops after the current
// step and still saves.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, CliError } from './args';
import { createNodeGpu } from '../gpu/node';
import { loadCheckpointDir, saveCheckpointDir } from '../model/checkpoint_node';
import { runGrpo, validateGrpoConfig } from '../loops/grpo';
import type { LoopEvent } from '../loops/events';

const LOOPS = ['grpo'] as const;

async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`--config: cannot read ${path} (${(e as NodeJS.ErrnoException).code})`);
  }
  try {
    const obj = JSON.parse(text);
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error('not an object');
    return obj;
  } catch (e) {
    throw new CliError(`--config: ${path} is not a JSON object (${(e as Error).message})`);
  }
}

function progress(e: LoopEvent, steps: number): string | null {
  if (e.type === 'step') return `step ${e.step}/${steps} reward ${e.metrics.reward.toFixed(3)} entropy ${e.metrics.entropy.toFixed(3)} len ${e.metrics['completions/mean_length'].toFixed(1)} (${e.seconds.toFixed(1)} s)`;
  if (e.type === 'eval') return `eval @${e.step} on ${e.set}: pass@1 ${e.passAtK['1'].toFixed(3)} entropy ${e.meanEntropy.toFixed(3)}`;
  return null;
}

export async function runCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    loop: { type: 'string', default: 'grpo' },
    preset: { type: 'string', default: 'small' },
    ckpt: { type: 'string', default: '' },
    steps: { type: 'number' },
    seed: { type: 'number' },
    out: { type: 'string', required: true },
    config: { type: 'string', default: '' },
  });
  if (!(LOOPS as readonly string[]).includes(f.loop)) throw new CliError(`unknown --loop '${f.loop}' (available: ${LOOPS.join(', ')})`);
  const fileCfg = f.config ? await readConfigFile(f.config) : {};
  const overrides: Record<string, unknown> = { ...fileCfg };
  if (f.steps !== undefined) overrides.steps = f.steps;
  if (f.seed !== undefined) overrides.seed = f.seed;
  const config = validateGrpoConfig(overrides, f.config ? `${f.config}` : 'config');
  const ckptDir = f.ckpt || join('public', 'models', f.preset);
  const base = await loadCheckpointDir(ckptDir).catch((e) => {
    throw new CliError(`${(e as Error).message}${f.ckpt ? '' : ` (the ${f.preset} base policy; npm run pretrain -- --preset ${f.preset} writes it)`}`);
  });
  const gpu = await createNodeGpu();
  const out = createWriteStream(f.out);
  const write = (obj: unknown) => out.write(JSON.stringify(obj) + '\n');
  write({ type: 'config', loop: f.loop, base: ckptDir, adapter: gpu.adapterName, config });
  const ac = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('\nstopping after this step; the checkpoint will be saved\n');
    ac.abort();
  });
  const ckptOut = f.out.replace(/\.jsonl$/, '') + '.ckpt';
  for await (const e of runGrpo(gpu, base.cfg, base.params, config, ac.signal)) {
    // the lab resumes from these; a CLI run saves its checkpoint at the end (below)
    if (e.type === 'checkpoint') continue;
    if (e.type === 'done') {
      await saveCheckpointDir(ckptOut, base.cfg, e.params, base.table, { loop: f.loop, step: String(e.step), base: ckptDir });
      write({ type: 'done', step: e.step, aborted: e.aborted, checkpoint: ckptOut });
      process.stderr.write(`saved ${ckptOut} at step ${e.step}\n`);
      continue;
    }
    write(e);
    const line = progress(e, config.steps);
    if (line) process.stderr.write(line + '\n');
  }
  await new Promise<void>((resolve) => out.end(resolve));
  gpu.destroy();
}
