// rlvr-lab ablate (npm run ablate -- --loop grpo): runs a loop from a shipped base policy with
// several seeds and prints, at the start and the end, the held-out policy entropy and pass@k for
// k up to evalN — the table of docs/results.md. `--markdown FILE` also writes it as Markdown.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, CliError } from './args';
import { createNodeGpu } from '../gpu/node';
import { loadCheckpointDir } from '../model/checkpoint_node';
import type { LoopEvent } from '../loops/events';
import { LOOP_NAMES, loopNamed } from '../loops/registry';
import { RunManager } from '../lab/runs';
import { createWebGpuEngine } from '../engines/webgpu';

type EvalEvent = Extract<LoopEvent, { type: 'eval' }>;

interface SeedResult {
  seed: number;
  start: EvalEvent;
  end: EvalEvent;
  seconds: number;
}

function table(results: SeedResult[], ks: string[]): string {
  const head = ['seed', 'entropy start', 'entropy end', ...ks.flatMap((k) => [`pass@${k} start`, `pass@${k} end`])];
  const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const f = (x: number) => x.toFixed(3);
  const lines = [row(head), row(head.map(() => '---'))];
  for (const r of results) {
    lines.push(row([r.seed, f(r.start.meanEntropy), f(r.end.meanEntropy), ...ks.flatMap((k) => [f(r.start.passAtK[k]), f(r.end.passAtK[k])])]));
  }
  const mean = (g: (r: SeedResult) => number) => results.reduce((a, r) => a + g(r), 0) / results.length;
  lines.push(row(['mean', f(mean((r) => r.start.meanEntropy)), f(mean((r) => r.end.meanEntropy)), ...ks.flatMap((k) => [f(mean((r) => r.start.passAtK[k])), f(mean((r) => r.end.passAtK[k]))])]));
  return lines.join('\n');
}

export async function ablateCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    loop: { type: 'string', default: 'grpo' },
    preset: { type: 'string', default: 'small' },
    ckpt: { type: 'string', default: '' },
    seeds: { type: 'string', default: '1,2,3' },
    steps: { type: 'number', default: 40 },
    'eval-n': { type: 'number', default: 64 },
    'eval-problems': { type: 'number', default: 50 },
    config: { type: 'string', default: '' },
    markdown: { type: 'string', default: '' },
  });
  if (!LOOP_NAMES.includes(f.loop)) throw new CliError(`unknown --loop '${f.loop}' (available: ${LOOP_NAMES.join(', ')})`);
  const def = loopNamed(f.loop);
  const seeds = f.seeds.split(',').map((s) => Number(s.trim()));
  if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new CliError(`--seeds must be comma-separated non-negative integers, got '${f.seeds}'`);
  const ckptDir = f.ckpt || join('public', 'models', f.preset);
  const base = await loadCheckpointDir(ckptDir);
  const extra = f.config ? JSON.parse(await readFile(f.config, 'utf8')) : {};
  const gpu = await createNodeGpu();
  const results: SeedResult[] = [];
  const runs = new RunManager({ createEngine: createWebGpuEngine, loadPolicy: async () => base });
  for (const seed of seeds) {
    const config = def.spec.validate({ ...extra, seed, steps: f.steps, evalEvery: 0, evalN: f['eval-n'], evalProblems: f['eval-problems'], samplesPerStep: 0 }, f.config || 'ablate');
    const evals: EvalEvent[] = [];
    const t0 = Date.now();
    const status = await runs.start(gpu, { runId: `ablate-${seed}`, loop: f.loop, policy: ckptDir, config }, () => undefined, (e) => {
      if (e.type === 'eval') evals.push(e);
      if (e.type === 'step') process.stderr.write(`seed ${seed} step ${e.step}/${f.steps} reward ${e.metrics.reward?.toFixed(3)} entropy ${e.metrics.entropy?.toFixed(3)}\n`);
    });
    if (status.state !== 'done') throw new Error(`seed ${seed}: the run ended ${status.state} at step ${status.step}${status.error ? `: ${status.error}` : ''}`);
    results.push({ seed, start: evals[0], end: evals[evals.length - 1], seconds: (Date.now() - t0) / 1000 });
  }
  gpu.destroy();
  const ks = Object.keys(results[0].start.passAtK).sort((a, b) => Number(a) - Number(b));
  const md = table(results, ks);
  const cmd = `npm run ablate -- --loop ${f.loop} --seeds ${f.seeds} --steps ${f.steps} --eval-n ${f['eval-n']} --eval-problems ${f['eval-problems']}${f.ckpt ? ` --ckpt ${f.ckpt}` : ` --preset ${f.preset}`}${f.config ? ` --config ${f.config}` : ''}`;
  process.stdout.write(md + '\n');
  if (f.markdown) {
    const when = new Date().toISOString().slice(0, 10);
    const body = [`## ${f.loop} from ${ckptDir} (${when})`, '', '```sh', cmd, '```', '', `Adapter: ${gpu.adapterName}; held-out set ${results[0].start.set}, ${f['eval-problems']} problems × ${f['eval-n']} samples; ${f.steps} steps per seed (${results.map((r) => r.seconds.toFixed(0) + ' s').join(', ')}).`, '', md, ''];
    await writeFile(f.markdown, body.join('\n'));
  }
}
