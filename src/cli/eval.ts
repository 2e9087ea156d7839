// rlvr-lab eval: n sampled answers per problem of a data set, then per-problem {n, c} counts
// and pass@k / avg@k / maj@k. The progress bar goes to stderr; with --json stdout carries
// nothing but the JSON document.
import { showText } from '../util/show';
import { existsSync, statSync } from 'node:fs';
import { atMost, parseArgs, CliError, positiveInt, seedFlag } from './args';
import { loadCheckpointDir } from '../model/checkpoint_node';
import { createNodeGpu } from '../gpu/node';
import { listSets, loadSet } from '../world';
import { evaluateSet, whyModelCannotSolve, EVAL_DEFAULTS, type EvalProgress, type EvalResult } from '../eval/evaluate';

/** The held-out set of mixed difficulty. */
export const DEFAULT_EVAL_SET = 'eval-mixed';

/** The document `eval --json` prints. */
export interface EvalJson {
  set: string;
  problems: { id: number; n: number; c: number }[];
  passAtK: Record<string, number>;
  avgAtK: Record<string, number>;
  majAtK: Record<string, number>;
}

/** "1,2,4" → [1, 2, 4]; every k a positive integer no larger than n. Default: powers of two up to n. */
export function parseKs(text: string | undefined, n: number): number[] {
  if (text === undefined) {
    const ks: number[] = [];
    for (let k = 1; k <= n; k *= 2) ks.push(k);
    return ks;
  }
  const ks = text.split(',').map((s, i) => {
    const k = Number(s.trim());
    if (s.trim() === '' || !Number.isInteger(k) || k < 1) throw new CliError(`--k: entry ${i + 1} (${showText(String(s))}) is not a positive integer`);
    if (k > n) throw new CliError(`--k: k = ${k} is larger than --n ${n} (pass@k needs at least k samples per problem)`);
    return k;
  });
  return [...new Set(ks)];
}

export { positiveInt };

/** Samples per problem: pass@k past 4,096 is no estimate anyone reads, and --n 1e12 never ends. */
export const MAX_SAMPLES = 4096;
/** Rows decoded together: past 1,024 the KV cache outgrows a laptop GPU. */
export const MAX_DECODE_BATCH = 1024;
/** New tokens per answer: no context of this lab is longer. */
export const MAX_NEW_TOKENS = 4096;

/** The checkpoint at --ckpt; loadCheckpointDir's errors name the directory already. */
export async function loadModel(dir: string) {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`--ckpt ${dir}: no such directory`);
  return loadCheckpointDir(dir);
}

/** The sampling flags every sampling command takes (eval, ttsp-targets). */
export const SAMPLING_FLAGS = {
  ckpt: { type: 'string', required: true },
  seed: { type: 'number', default: 0 },
  limit: { type: 'number' },
  temperature: { type: 'number', default: EVAL_DEFAULTS.temperature },
  'top-p': { type: 'number', default: EVAL_DEFAULTS.topP },
  'max-new': { type: 'number', default: EVAL_DEFAULTS.maxNew },
  batch: { type: 'number', default: EVAL_DEFAULTS.batch },
} as const;

/** Checks the sampling flags; returns evaluateSet's options (without n and ks). */
export function samplingOptions(f: { seed: number; temperature: number; 'top-p': number; 'max-new': number; batch: number }) {
  seedFlag(f.seed);
  if (!(f.temperature > 0 && f.temperature <= 100)) throw new CliError(`--temperature must be positive and at most 100, got ${f.temperature}`);
  if (!(f['top-p'] > 0 && f['top-p'] <= 1)) throw new CliError(`--top-p must lie in (0, 1], got ${f['top-p']}`);
  return { seed: f.seed, temperature: f.temperature, topP: f['top-p'], maxNew: atMost('max-new', positiveInt('max-new', f['max-new']), MAX_NEW_TOKENS), batch: atMost('batch', positiveInt('batch', f.batch), MAX_DECODE_BATCH) };
}

export async function evalCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    ...SAMPLING_FLAGS,
    set: { type: 'string', default: DEFAULT_EVAL_SET },
    n: { type: 'number', default: 64 },
    k: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const n = atMost('n', positiveInt('n', f.n), MAX_SAMPLES);
  const ks = parseKs(f.k as string | undefined, n);
  const sampling = samplingOptions(f);
  const known = listSets().map((s) => s.name);
  if (!known.includes(f.set)) throw new CliError(`unknown --set ${showText(String(f.set))}; known sets: ${known.join(', ')} (see rlvr-lab sets)`);
  const all = loadSet(f.set);
  const limit = f.limit === undefined ? all.length : positiveInt('limit', f.limit as number);
  const problems = all.slice(0, limit).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
  const opts = { n, ks, ...sampling };
  const ckpt = await loadModel(f.ckpt);
  const unfit = whyModelCannotSolve(ckpt.cfg, problems);
  if (unfit) throw new CliError(`--ckpt ${f.ckpt}: ${unfit}`);
  const gpu = await createNodeGpu();
  try {
    const params = gpu.upload(ckpt.params, 'eval.params');
    const bar = progressBar(f.set);
    const result = await evaluateSet(gpu, { cfg: ckpt.cfg, table: ckpt.table, params }, problems, opts, bar.update);
    bar.end();
    if (f.json) process.stdout.write(JSON.stringify(toJson(f.set, result)) + '\n');
    else process.stdout.write(humanReport(f.set, problems, result));
  } finally {
    gpu.destroy();
  }
}

export function toJson(set: string, r: EvalResult): EvalJson {
  return {
    set,
    problems: r.problems.map((p) => ({ id: p.id as number, n: p.n, c: p.c })),
    passAtK: r.passAtK,
    avgAtK: r.avgAtK,
    majAtK: r.majAtK,
  };
}

/** A one-line bar redrawn in place on a terminal; on a pipe, a line every tenth of the way. */
export function progressBar(label: string): { update: (p: EvalProgress) => void; end: () => void } {
  const t0 = Date.now();
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  return {
    update(p) {
      const frac = p.samplesDone / p.samplesTotal;
      const width = 30;
      const filled = Math.round(frac * width);
      const line = `eval ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.problemsDone}/${p.problemsTotal} problems, ${p.samplesDone}/${p.samplesTotal} samples, ${((Date.now() - t0) / 1000).toFixed(1)} s`;
      if (tty) process.stderr.write(`\r${line}`);
      else if (Math.floor(frac * 10) > lastTenth) {
        lastTenth = Math.floor(frac * 10);
        process.stderr.write(`${line}\n`);
      }
    },
    end() {
      if (tty) process.stderr.write('\n');
    },
  };
}

function humanReport(set: string, problems: readonly { id: number; text: string }[], r: EvalResult): string {
  const pct = (x: number) => (100 * x).toFixed(1).padStart(6);
  const lines = [
    `set ${set}: ${r.problems.length} problems, ${r.problems[0].n} samples each`,
    `mean response length ${r.responseLength.mean.toFixed(1)} tokens, truncated ${pct(r.responseLength.clipRatio).trim()} %, mean entropy ${r.meanEntropy.toFixed(3)} nats`,
    '',
    '     k   pass@k    avg@k    maj@k  (%)',
    ...Object.keys(r.passAtK).map((k) => `${k.padStart(6)}   ${pct(r.passAtK[k])}   ${pct(r.avgAtK[k])}   ${pct(r.majAtK[k])}`),
    '',
    `per-problem accuracy: ${r.histogram.zero} never solved, ${r.histogram.full} always solved`,
    ...r.histogram.counts.map((c, i) => `  [${r.histogram.edges[i].toFixed(1)}, ${r.histogram.edges[i + 1].toFixed(1)}${i + 1 === r.histogram.counts.length ? ']' : ')'} ${String(c).padStart(5)}`),
    '',
    '    id      c/n  problem',
    ...r.problems.map((p, i) => `${String(p.id).padStart(6)}  ${`${p.c}/${p.n}`.padStart(7)}  ${problems[i].text}`),
  ];
  return lines.join('\n') + '\n';
}
