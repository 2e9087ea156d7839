// rlvr-lab run: a loop of the registry headless from a base policy, through the lab's run
// manager (the API the page's worker serves), without a worker. One JSON line per event (the
// resolved config first), progress on stderr, a checkpoint at the end; Ctrl-C stops after the
// current step and still saves.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, CliError } from './args';
import { createNodeGpu } from '../gpu/node';
import { loadCheckpointDir, saveCheckpointDir } from '../model/checkpoint_node';
import type { LoopEvent } from '../loops/events';
import { LOOP_NAMES, loopNamed } from '../loops/registry';
import { RunManager } from '../lab/runs';
import { createWebGpuEngine } from '../engines/webgpu';

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

/** The step's headline numbers, those the loop reports of reward, entropy and length. */
function progress(e: LoopEvent, steps: number): string | null {
  const num = (v: number | undefined, d = 3) => (v === undefined ? '–' : v.toFixed(d));
  if (e.type === 'step') return `step ${e.step}/${steps} reward ${num(e.metrics.reward)} entropy ${num(e.metrics.entropy)} len ${num(e.metrics['completions/mean_length'], 1)} (${e.seconds.toFixed(1)} s)`;
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
  if (!LOOP_NAMES.includes(f.loop)) throw new CliError(`unknown --loop '${f.loop}' (available: ${LOOP_NAMES.join(', ')})`);
  const def = loopNamed(f.loop);
  const fileCfg = f.config ? await readConfigFile(f.config) : {};
  const overrides: Record<string, unknown> = { ...fileCfg };
  if (f.steps !== undefined) overrides.steps = f.steps;
  if (f.seed !== undefined) overrides.seed = f.seed;
  const config = def.spec.validate(overrides, f.config ? `${f.config}` : 'config');
  const ckptDir = f.ckpt || join('public', 'models', f.preset);
  const base = await loadCheckpointDir(ckptDir).catch((e) => {
    throw new CliError(`${(e as Error).message}${f.ckpt ? '' : ` (the ${f.preset} base policy; npm run pretrain -- --preset ${f.preset} writes it)`}`);
  });
  const gpu = await createNodeGpu();
  const out = createWriteStream(f.out);
  const write = (obj: unknown) => out.write(JSON.stringify(obj) + '\n');
  write({ type: 'config', loop: f.loop, base: ckptDir, adapter: gpu.adapterName, config });
  const runs = new RunManager({ createEngine: createWebGpuEngine, loadPolicy: async () => base });
  const runId = 'cli';
  process.once('SIGINT', () => {
    process.stderr.write('\nstopping after this step; the checkpoint will be saved\n');
    runs.stopRun(runId);
  });
  let done: Extract<LoopEvent, { type: 'done' }> | null = null;
  const status = await runs.start(gpu, { runId, loop: f.loop, policy: ckptDir, config }, () => undefined, (e) => {
    // the lab resumes from checkpoints; a CLI run saves its checkpoint at the end (below)
    if (e.type === 'checkpoint' || e.type === 'boundary') return;
    if (e.type === 'done') {
      done = e;
      return;
    }
    write(e);
    const line = progress(e, config.steps);
    if (line) process.stderr.write(line + '\n');
  });
  const last = done as Extract<LoopEvent, { type: 'done' }> | null;
  if (last) {
    const ckptOut = f.out.replace(/\.jsonl$/, '') + '.ckpt';
    await saveCheckpointDir(ckptOut, base.cfg, last.params, base.table, { loop: f.loop, step: String(last.step), base: ckptDir });
    write({ type: 'done', step: last.step, aborted: last.aborted, checkpoint: ckptOut });
    process.stderr.write(`saved ${ckptOut} at step ${last.step}\n`);
  }
  await new Promise<void>((resolve) => out.end(resolve));
  gpu.destroy();
  if (status.state === 'failed') throw new Error(`the run failed at step ${status.step}: ${status.error}`);
}
