// rlvr-lab ablate (npm run ablate -- --loop svs): runs a loop of the registry from a shipped base
// policy with several seeds and prints, at the start and the end, the held-out policy entropy and
// pass@k for k up to evalN, each with its standard error across problems, pass@1's change paired by
// problem with its standard error, the seeds' mean with
// its standard error across seeds, and chosen step metrics averaged over each run: the tables of
// docs/results.md. Runs can be cut at a generated-token budget (`--token-budget`, or
// `--match-tokens FILE` to give each seed the tokens that seed generated in another ablation's
// `--json` output), so loops that sample different amounts per step are compared at equal cost.
// `--eval-every N` adds held-out evaluations every N steps (pass@k curves); a long ablation is
// resumable: every finished seed is written to --json at once, `--work DIR` keeps the running
// seed's checkpoints, and `--resume` skips the seeds --json holds and continues a cut seed from
// its checkpoint (ablate_resume.ts). SIGINT/SIGTERM stop it after the current step.
import { readCorpusFlag } from './corpus';
import { readTargetFlag } from './target';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, CliError } from './args';
import { createNodeGpu } from '../gpu/node';
import type { Gpu } from '../gpu/runtime';
import { loadCheckpointDir } from '../model/checkpoint_node';
import type { GPTConfig } from '../model/config';
import type { LoopEvent } from '../loops/events';
import { CONTROL_LOOP, LOOP_NAMES, loopNamed } from '../loops/registry';
import { evalEvent, evalOptions, trainSettings } from '../loops/driver';
import type { BaseLoopConfig } from '../loops/base_config';
import { RunManager } from '../lab/worker/runs';
import { createWebGpuEngine } from '../engines/webgpu/engine';
import { haltOf, stopOnHalt } from './halts';
import { passAtK } from '../metrics/passk';
import { loadSet } from '../world/index';
import { ABLATION_FORMAT, ABLATION_VERSION, type SweepSeries } from '../explore/format';
import type { CrossPlayResult } from '../loops/spec';
import { whyModelCannotServe } from '../eval/evaluate';
import { checkOutputFile, readJsonObject } from './paths';
import { showText } from '../util/show';
import { errorText } from '../util/errors';
import { checkSavedAblation, MAX_ABLATION_JSON_BYTES, MAX_SEEDS } from './ablate_json';
import { comparable, forgetSeconds, priorSeconds, priorSeeds, saveSeconds, SeedRecorder, seedRunId, workStore } from './ablate_resume';
import { onStopSignals } from './signals';

type EvalEvent = Extract<LoopEvent, { type: 'eval' }>;

export interface SeedResult {
  seed: number;
  start: EvalEvent;
  end: EvalEvent;
  steps: number;
  generatedTokens: number;
  seconds: number;
  /** each reported metric's mean over the run's steps (NaN where never reported) */
  report: Record<string, number>;
  /** why the run stopped itself before its end (a rejected or non-finite step), if it did */
  halted?: string;
  /** every step's metrics (format version 2; docs/sweep-format.md) */
  series?: SweepSeries;
  /** every evaluation of the run, the start and end ones included */
  evals?: EvalEvent[];
  /** the cross-play matrix of its checkpoints (`--cross-play`, loops that have one) */
  crossPlay?: CrossPlayResult;
}

/** `--checkpoint-every`'s default: steps between a running seed's checkpoints in --work. */
const CHECKPOINT_EVERY = 10;

/** `--cross-play D,A`: documents (one question each) and answers per question of each checkpoint's cross-play. */
function crossPlayFlag(v: string, loop: string, work: string): { documents: number; answers: number } | null {
  if (!v) return null;
  const m = /^(\d{1,4}),(\d{1,3})$/.exec(v.trim());
  const [documents, answers] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || documents < 1 || answers < 1) throw new CliError(`--cross-play: expected DOCUMENTS,ANSWERS (e.g. 32,8: 32 documents, one question each, 8 answers a question), got ${showText(v)}`);
  if (!loopNamed(loop).crossPlay) throw new CliError(`--cross-play: the ${loop} loop has no cross-play (${LOOP_NAMES.filter((n) => loopNamed(n).crossPlay).join(', ')} has)`);
  if (!work) throw new CliError('--cross-play plays the checkpoints a seed keeps in --work: give --work DIR');
  return { documents, answers };
}

/** The table, then each seed's cross-play matrices where it has them, then their changes over the seeds. */
const withCrossPlay = (md: string, results: readonly SeedResult[]) => {
  const played = results.flatMap((r) => (r.crossPlay ? [{ seed: r.seed, c: r.crossPlay }] : []));
  return [md, ...played.map((p) => crossPlayTables(p.seed, p.c)), ...(played.length > 1 ? [crossPlaySeeds(played)] : [])].join('\n\n');
};

const gradingName = (key: string) => (key === 'gold' ? 'the challenger\'s gold' : key === 'value' ? 'the true value (oracle)' : key);
const f3 = (x: number | null) => (x === null || !Number.isFinite(x) ? '–' : x.toFixed(3));
const signed = (x: number | null) => (x === null || !Number.isFinite(x) ? '–' : `${x > 0 ? '+' : ''}${x.toFixed(3)}`);

/**
 * What a column says read down (the same challenger's questions as the reasoner trains): its last
 * row − first row, for the base challenger's column (0), the final challenger's (the last) and the
 * mean over the columns with both cells (null: none).
 */
export function crossPlayChange(m: readonly (readonly (number | null)[])[]): { first: number | null; last: number | null; mean: number | null; columns: number } {
  const top = m[0] ?? [], bottom = m[m.length - 1] ?? [];
  const d = top.map((x, j) => (x === null || bottom[j] === null || m.length < 2 ? null : (bottom[j] as number) - x));
  const both = d.filter((x): x is number => x !== null);
  return { first: d[0] ?? null, last: d[d.length - 1] ?? null, mean: both.length ? mean(both) : null, columns: both.length };
}

/** A seed's cross-play matrices as markdown tables, one per grading: rows the reasoner's step, columns the challenger's. */
export function crossPlayTables(seed: number, c: CrossPlayResult): string {
  const out = [`Seed ${seed} cross-play (${c.documents} ${c.withDocuments ? 'documents' : 'prompts without a document'}, one question each, ${c.answers} answers a question; valid questions by challenger step: ${c.steps.map((st, j) => `${st}: ${c.valid[j]}`).join(', ')})`];
  for (const [key, m] of Object.entries(c.passRate)) {
    out.push('', `graded by ${gradingName(key)}: reasoner step ↓, challenger step →`, '', `| reasoner \\ challenger | ${c.steps.join(' | ')} |`, `| --- | ${c.steps.map(() => '---').join(' | ')} |`);
    m.forEach((row, i) => out.push(`| ${c.steps[i]} | ${row.map(f3).join(' | ')} |`));
    const ch = crossPlayChange(m);
    out.push('', `read down a column (reasoner step ${c.steps[c.steps.length - 1]} − step ${c.steps[0]}): the base challenger's questions (column ${c.steps[0]}) ${f3(m[0]?.[0] ?? null)} → ${f3(m[m.length - 1]?.[0] ?? null)} (${signed(ch.first)}); the final challenger's (column ${c.steps[c.steps.length - 1]}) ${f3(m[0]?.[m[0].length - 1] ?? null)} → ${f3(m[m.length - 1]?.[m[0].length - 1] ?? null)} (${signed(ch.last)}); mean over the ${ch.columns} column${ch.columns === 1 ? "" : "s"} with both cells ${signed(ch.mean)}`);
  }
  return out.join('\n');
}

/** The column changes of every seed's cross-play, mean ± standard error over the seeds, one line per grading. */
export function crossPlaySeeds(played: readonly { seed: number; c: CrossPlayResult }[]): string {
  const keys = [...new Set(played.flatMap((p) => Object.keys(p.c.passRate)))];
  const out = [`Cross-play over the ${played.length} seeds (${played.map((p) => p.seed).join(', ')}), last reasoner row − first, mean ± s.e. (each seed's sign):`];
  for (const key of keys) {
    const ch = played.map((p) => (p.c.passRate[key] ? crossPlayChange(p.c.passRate[key]) : null));
    const said = (pick: (x: ReturnType<typeof crossPlayChange>) => number | null) => {
      const xs = ch.map((x) => (x ? pick(x) : null));
      const got = xs.filter((x): x is number => x !== null);
      if (!got.length) return '–';
      return `${signed(mean(got))} ± ${f3(standardError(got))} (${xs.map((x) => (x === null ? '·' : x > 0 ? '+' : x < 0 ? '−' : '0')).join('')})`;
    };
    out.push(`- graded by ${gradingName(key)}: base challenger's column ${said((x) => x.first)}; final challenger's column ${said((x) => x.last)}; mean over columns ${said((x) => x.mean)}`);
  }
  return out.join('\n');
}

const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
/** Standard error of a mean: sample std / √n (0 for one value). */
export function standardError(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
}

/** pass@k of an evaluation with its standard error across problems (needs per-problem counts). */
export function passWithError(e: EvalEvent, k: number): { mean: number; se: number } {
  if (!e.correct || e.n === undefined) return { mean: e.passAtK[String(k)], se: NaN };
  const per = e.correct.map((c) => passAtK(e.n as number, c, k));
  return { mean: mean(per), se: standardError(per) };
}

/**
 * The change of pass@1 from the start to the end evaluation, paired by problem (both evaluate the
 * same problems, so the spread between problems cancels): the mean of the per-problem differences
 * and its standard error. NaN when either lacks per-problem counts or they differ in problems.
 */
export function pairedChange(start: EvalEvent, end: EvalEvent): { mean: number; se: number } {
  const a = start.correct, b = end.correct;
  if (!a || !b || a.length !== b.length || a.length === 0 || start.n === undefined || end.n === undefined) return { mean: NaN, se: NaN };
  const d = b.map((c, i) => c / (end.n as number) - a[i] / (start.n as number));
  return { mean: mean(d), se: standardError(d) };
}

const pm = (m: number, se: number) => (Number.isFinite(se) ? `${f3(m)} ± ${f3(se)}` : f3(m));

/** A `--report` entry's column head. */
function reportHead(r: string): string {
  const [k, at] = r.split('@');
  if (at === undefined) return `${k} (run mean)`;
  if (at === 'last') return `${k} (last step)`;
  return at.startsWith('-') ? `${k} (mean, last ${at.slice(1)} steps)` : `${k} (mean, steps ≤ ${at})`;
}

export function table(results: readonly SeedResult[], ks: readonly number[], report: readonly string[]): string {
  const head = ['seed', 'steps', 'generated tokens', 'entropy start', 'entropy end', ...ks.flatMap((k) => [`pass@${k} start`, `pass@${k} end`]), 'pass@1 change (paired by problem)', ...report.map(reportHead)];
  const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const lines = [row(head), row(head.map(() => '---'))];
  for (const r of results) {
    const pk = ks.flatMap((k) => [passWithError(r.start, k), passWithError(r.end, k)].map((p) => pm(p.mean, p.se)));
    const change = pairedChange(r.start, r.end);
    lines.push(row([r.halted ? `${r.seed} (halted at step ${r.steps})` : r.seed, r.steps, r.generatedTokens, f3(r.start.meanEntropy), f3(r.end.meanEntropy), ...pk, pm(change.mean, change.se), ...report.map((k) => f3(r.report[k]))]));
  }
  const across = (g: (r: SeedResult) => number) => pm(mean(results.map(g)), standardError(results.map(g)));
  lines.push(row([
    `mean ± s.e. over ${results.length} seeds`, across((r) => r.steps), across((r) => r.generatedTokens), across((r) => r.start.meanEntropy), across((r) => r.end.meanEntropy),
    ...ks.flatMap((k) => [across((r) => passWithError(r.start, k).mean), across((r) => passWithError(r.end, k).mean)]),
    across((r) => pairedChange(r.start, r.end).mean),
    ...report.map((k) => across((r) => r.report[k])),
  ]));
  return lines.join('\n');
}

/** `key@N`: only steps 1..N count (null: every step). */
function upToOf(r: string): number | null {
  const at = r.split('@')[1];
  return at !== undefined && /^[1-9]\d*$/.test(at) ? Number(at) : null;
}

/** A `--report` entry's figure from its metric's values in step order: the mean, of the last N (`@-N`), or the last (`@last`); NaN when none. */
export function summarise(r: string, values: readonly number[]): number {
  const at = r.split('@')[1];
  const vs = at === 'last' ? values.slice(-1) : at?.startsWith('-') ? values.slice(Number(at)) : values;
  return vs.length ? vs.reduce((a, x) => a + x, 0) / vs.length : NaN;
}

/** `--token-budget 50000` (every seed) or `1:51000,2:49000`; `--match-tokens FILE` (another ablation's --json). */
async function budgets(f: { 'token-budget': string; 'match-tokens': string }, seeds: readonly number[]): Promise<Map<number, number> | null> {
  if (f['token-budget'] && f['match-tokens']) throw new CliError('--token-budget and --match-tokens: give one of them');
  if (f['match-tokens']) {
    // one file or several (an ablation continued in a second invocation)
    const runs = (await savedResults(f['match-tokens'], '--match-tokens')).results;
    const out = new Map<number, number>();
    for (const s of seeds) {
      const r = runs.find((x) => x.seed === s);
      if (!r) throw new CliError(`--match-tokens: ${f['match-tokens']} has no run of seed ${s} (it has ${runs.map((x) => x.seed).join(', ')})`);
      out.set(s, r.generatedTokens);
    }
    return out;
  }
  if (!f['token-budget']) return null;
  const t = f['token-budget'];
  const n = Number(t);
  if (Number.isInteger(n) && n > 0) return new Map(seeds.map((s) => [s, n]));
  const out = new Map<number, number>();
  for (const part of t.split(',')) {
    const [s, v] = part.split(':').map(Number);
    if (!Number.isInteger(s) || !Number.isInteger(v) || v <= 0) throw new CliError(`--token-budget: ${showText(String(part))} is not seed:tokens (positive integers)`);
    out.set(s, v);
  }
  for (const s of seeds) if (!out.has(s)) throw new CliError(`--token-budget gives no budget for seed ${s}`);
  return out;
}

/** An evaluation in one line of the progress log: pass@1, pass@k at the largest k, entropy. */
function evalLine(e: EvalEvent): string {
  const kMax = Math.max(...Object.keys(e.passAtK).map(Number).filter(Number.isInteger));
  return `pass@1 ${e.passAtK['1']?.toFixed(3)}${kMax > 1 ? `, pass@${kMax} ${e.passAtK[String(kMax)]?.toFixed(3)}` : ''}, entropy ${e.meanEntropy.toFixed(3)}`;
}

/** The held-out evaluation of parameters a run stopped with (at a token budget, the driver's end evaluation does not run). */
async function evaluateAt(gpu: Gpu, cfg: GPTConfig, params: Float32Array, c: BaseLoopConfig, step: number): Promise<EvalEvent> {
  const engine = await createWebGpuEngine(gpu, { cfg, params, reference: params, trainRows: 1, decodeBatch: 64 }, trainSettings(c, cfg.nPositions));
  try {
    const problems = loadSet(c.evalSet).slice(0, c.evalProblems).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
    return evalEvent(c, step, await engine.evaluate(problems, evalOptions(c))) as EvalEvent;
  } finally {
    engine.destroy();
  }
}

/** Earlier ablations' files as read: their checked seed results, sorted by seed, and each file's document as written. */
interface SavedAblations {
  loop: string;
  base: string;
  results: SeedResult[];
  docs: { file: string; doc: Record<string, unknown> }[];
}

/** Seed results saved by earlier ablations (--json), in the order given; a seed twice is refused. */
async function savedResults(files: string, flag = '--from-json'): Promise<SavedAblations> {
  const out: SeedResult[] = [];
  const docs: SavedAblations['docs'] = [];
  let loop = '', base = '';
  for (const file of files.split(',').map((f) => f.trim()).filter(Boolean)) {
    const raw = await readJsonObject(flag, file, MAX_ABLATION_JSON_BYTES);
    const doc = checkSavedAblation(raw, `${flag}: ${showText(file)}`);
    docs.push({ file, doc: raw });
    if (loop && doc.loop !== loop) throw new CliError(`${flag}: ${file} holds ${doc.loop} runs, the files before it ${loop} runs`);
    loop = doc.loop;
    base = doc.base;
    for (const r of doc.results) {
      if (out.some((x) => x.seed === r.seed)) throw new CliError(`${flag}: seed ${r.seed} appears twice`);
      out.push(r);
    }
  }
  if (out.length === 0) throw new CliError(`${flag}: no results in the files given`);
  return { loop, base, results: out.sort((a, b) => a.seed - b.seed), docs };
}

export async function ablateCommand(argv: string[]): Promise<void> {
  if (argv.some((a) => a === '--from-json' || a.startsWith('--from-json='))) return fromJson(argv);
  const f = parseArgs(argv, {
    loop: { type: 'string', default: CONTROL_LOOP },
    preset: { type: 'string', default: 'small' },
    ckpt: { type: 'string', default: '' },
    seeds: { type: 'string', default: '1,2,3' },
    steps: { type: 'number', default: 40 },
    'eval-n': { type: 'number', default: 64 },
    'eval-problems': { type: 'number', default: 50 },
    config: { type: 'string', default: '' },
    corpus: { type: 'string', default: '' },
    target: { type: 'string', default: '' },
    'token-budget': { type: 'string', default: '' },
    'match-tokens': { type: 'string', default: '' },
    report: { type: 'string', default: '' },
    markdown: { type: 'string', default: '' },
    json: { type: 'string', default: '' },
    'eval-every': { type: 'number', default: 0, help: 'evaluate the held-out set every N steps as well (0: at the start and the end only)' },
    work: { type: 'string', default: '', help: 'folder for each running seed\'s checkpoints (with --json; --resume continues from it)' },
    'checkpoint-every': { type: 'number', default: CHECKPOINT_EVERY, help: 'steps between a running seed\'s checkpoints in --work' },
    resume: { type: 'boolean', default: false, help: 'skip the seeds --json already holds and continue a stopped seed from --work' },
    // read before this spec (fromJson); declared so that --help lists it
    'from-json': { type: 'string', default: '', help: 'table earlier --json outputs (a.json,b.json) instead of running; with --json OUT, write them as one ablation (seeds of one set-up run apart)' },
    'cross-play': { type: 'string', default: '', help: 'D,A: after each seed, the cross-play matrix of the checkpoints it kept in --work (SPICE): D documents, one question each, A answers a question; kept in --json and printed' },
  });
  if (!Number.isSafeInteger(f['eval-every']) || f['eval-every'] < 0) throw new CliError(`--eval-every must be a whole number of steps ≥ 0 (0: only at the start and the end), got ${f['eval-every']}`);
  if (!Number.isSafeInteger(f['checkpoint-every']) || f['checkpoint-every'] < 1) throw new CliError(`--checkpoint-every must be a whole number of steps ≥ 1, got ${f['checkpoint-every']}`);
  if (f.resume && !f.json) throw new CliError('--resume continues the ablation its --json file holds: give --json');
  // checked before any run: a seed's result is written when it finishes, hours in
  if (f.json) checkOutputFile('--json', f.json);
  if (f.markdown) checkOutputFile('--markdown', f.markdown);
  if (!LOOP_NAMES.includes(f.loop)) throw new CliError(`unknown --loop ${showText(String(f.loop))} (available: ${LOOP_NAMES.join(', ')})`);
  const cross = crossPlayFlag(f['cross-play'], f.loop, f.work);
  const def = loopNamed(f.loop);
  const seeds = f.seeds.split(',').map((s) => s.trim());
  // decimal digits only: Number('') is 0, and a seed must fit its u32 generator
  if (seeds.some((s) => !/^\d{1,10}$/.test(s) || Number(s) > 0xffffffff) || seeds.length > MAX_SEEDS) throw new CliError(`--seeds must be 1 to ${MAX_SEEDS} comma-separated integers in [0, 2^32), got ${showText(f.seeds)}`);
  const seedList = seeds.map(Number);
  const report = f.report ? f.report.split(',').map((s) => s.trim()).filter(Boolean) : [];
  for (const r of report) if (!/^[\w/.-]+(@-?[1-9]\d*|@last)?$/.test(r)) throw new CliError(`--report: ${showText(String(r))} is not a metric name, name@N (its mean over steps 1..N), name@-N (over the last N steps) or name@last (its value at the last step)`);
  const budget = await budgets(f, seedList);
  const ckptDir = f.ckpt || join('public', 'models', f.preset);
  const base = await loadCheckpointDir(ckptDir);
  // as run refuses it: a policy of another world's vocabulary or a short context fails after the GPU starts
  const unfit = whyModelCannotServe(base.cfg);
  if (unfit) throw new CliError(`${ckptDir}: ${unfit}; the loops need a policy of this world`);
  let extra: unknown = {};
  if (f.config) extra = await readJsonObject('--config', f.config);
  if (f.corpus) extra = { ...(extra as object), corpus: await readCorpusFlag(f.corpus, def) };
  if (f.target) extra = { ...(extra as object), ...(await readTargetFlag(f.target, def, ckptDir)) };
  if (budget && def.spec.shape(def.spec.validate({ ...(extra as object) }, f.config || 'ablate')).adapters?.length) {
    throw new CliError(`--token-budget / --match-tokens: ${f.loop} trains adapter sets, and a run cut at a budget is evaluated from its parameters alone; give --steps instead`);
  }
  // with a budget the run stops at it: `--steps` is then only a cap
  // checkpoints only with --work: without it the config (and the --json) is as it always was
  const configOf = (seed: number) => def.spec.validate({ ...(extra as object), seed, steps: f.steps, evalEvery: f['eval-every'], evalN: f['eval-n'], evalProblems: f['eval-problems'], samplesPerStep: 0, checkpointEvery: f.work ? f['checkpoint-every'] : 0 }, f.config || 'ablate');
  // every seed's config is checked before any GPU work
  for (const s of seedList) configOf(s);
  const results: SeedResult[] = f.resume ? await priorSeeds(f.json, { loop: f.loop, base: ckptDir, config: configOf(seedList[0]) }) : [];
  const extraSeeds = results.filter((r) => !seedList.includes(r.seed)).map((r) => r.seed);
  if (extraSeeds.length) throw new CliError(`--resume: ${f.json} holds seed ${extraSeeds.join(', ')}, which --seeds ${f.seeds} does not name`);
  if (results.length) process.stderr.write(`--resume: ${f.json} holds seed ${results.map((r) => r.seed).join(', ')}; running the others\n`);
  const store = f.work ? workStore(f.work) : undefined;
  const gpu = await createNodeGpu();
  const runs = new RunManager({ createEngine: createWebGpuEngine, loadPolicy: async () => base, ...(store ? { checkpoints: store } : {}) });
  const cmd = commandOf(f, report);
  const save = (partial: boolean) => writeFile(f.json, JSON.stringify({ format: ABLATION_FORMAT, version: ABLATION_VERSION, command: cmd, loop: f.loop, base: ckptDir, config: configOf(seedList[0]), partial, results: [...results].sort((a, b) => seedList.indexOf(a.seed) - seedList.indexOf(b.seed)) }, null, 1));
  // a signal stops the running seed after its step; its checkpoint (with --work) is saved
  const stop: { signal: string | null } = { signal: null };
  let current: string | null = null;
  const unhandle = onStopSignals((signal) => {
    stop.signal = signal;
    process.stderr.write(`\n${signal}: stopping after this step${store ? '; the checkpoint will be saved' : ''}\n`);
    if (current) runs.stopRun(current);
  }, 'the checkpoint is being saved');
  try {
    for (const seed of seedList) {
      if (stop.signal) break;
      if (results.some((r) => r.seed === seed)) continue;
      const config = configOf(seed);
      const runId = seedRunId(seed);
      const rec = new SeedRecorder(report, upToOf);
      // a seed cut short before continues from its checkpoint in --work (only when --resume is given)
      const from = f.resume && store ? await store.load(runId) : null;
      if (from) {
        const was = def.spec.validate(from.config, `${f.work}: the checkpoint of seed ${seed}`);
        if (JSON.stringify({ ...was, checkpointEvery: 0 }) !== JSON.stringify({ ...config, checkpointEvery: 0 })) throw new CliError(`--resume: the checkpoint of seed ${seed} in ${f.work} was run with another config; give the flags it was run with, or remove ${f.work}`);
        rec.replay(from.history, from.step);
        process.stderr.write(`seed ${seed}: resuming after step ${from.step} from ${f.work}\n`);
      } else if (store) await store.remove(runId);
      let done: Extract<LoopEvent, { type: 'done' }> | null = null;
      const before = f.work && from ? await priorSeconds(f.work, seed) : 0;
      const t0 = Date.now();
      const elapsed = () => before + (Date.now() - t0) / 1000;
      current = runId;
      const status = await runs.start(gpu, { runId, loop: f.loop, policy: ckptDir, config, ...(from ? { resume: true } : {}) }, stopOnHalt(runs, runId), (e) => {
        if (e.type === 'eval') {
          rec.evals.push(e);
          process.stderr.write(`seed ${seed} held-out at step ${e.step}: ${evalLine(e)}\n`);
        }
        if (e.type === 'done') done = e;
        if (e.type === 'checkpoint' && f.work) void saveSeconds(f.work, seed, elapsed());
        if (e.type !== 'step') return;
        rec.step(e);
        process.stderr.write(`seed ${seed} step ${e.step} reward ${e.metrics.reward?.toFixed(3)} entropy ${e.metrics['entropy/solve']?.toFixed(3)} tokens ${rec.tokens}${budget ? `/${budget.get(seed)}` : ''} (${e.seconds.toFixed(1)} s)\n`);
        if (budget && rec.tokens >= (budget.get(seed) as number)) runs.stopRun(runId);
      });
      current = null;
      if (status.state === 'failed') throw new Error(`seed ${seed}: the run failed at step ${status.step}: ${status.error}`);
      if (stop.signal) {
        const where = store && (await store.load(runId)) ? `its checkpoint (step ${rec.steps}) is in ${f.work}` : 'it saved no checkpoint (give --work DIR to keep them)';
        process.stderr.write(`seed ${seed} stopped at step ${rec.steps}; ${where}\n`);
        break;
      }
      const { evals, steps, tokens } = rec;
      const last = done as Extract<LoopEvent, { type: 'done' }> | null;
      // a run cut at its budget ends without the driver's evaluation at its last step: evaluate where it stopped
      const lastEval = evals.length > 1 && evals[evals.length - 1].step === steps ? evals[evals.length - 1] : null;
      if (!lastEval && last && evals.length) process.stderr.write(`seed ${seed}: stopped at its token budget; evaluating the held-out set at step ${steps}\n`);
      const end = lastEval ?? (last && evals.length ? await evaluateAt(gpu, base.cfg, last.params, config, steps) : null);
      if (end && end !== lastEval) process.stderr.write(`seed ${seed} held-out at step ${end.step}: ${evalLine(end)}\n`);
      if (!end || evals.length === 0) throw new Error(`seed ${seed}: the run ended (${status.state} at step ${status.step}) without its evaluations`);
      if (budget && tokens < (budget.get(seed) as number)) process.stderr.write(`seed ${seed}: --steps ${f.steps} ran out at ${tokens} of ${budget.get(seed)} tokens; raise --steps\n`);
      const halted = haltOf(status) ?? undefined;
      if (halted) process.stderr.write(`seed ${seed}: ${halted}; its row says so\n`);
      let crossPlay: CrossPlayResult | undefined;
      if (cross) {
        process.stderr.write(`seed ${seed}: cross-play of its checkpoints (${cross.documents} documents × ${cross.answers} answers; a stop signal waits for it)\n`);
        // a failed matrix costs the seed its matrix, not its trained result
        crossPlay = await runs.crossPlay(gpu, runId, { ...cross, seed }, (d, t) => process.stderr.write(`seed ${seed} cross-play ${d}/${t}\n`)).catch((e: unknown) => {
          process.stderr.write(`seed ${seed}: no cross-play matrix (${errorText(e)}); the seed's result is kept without it\n`);
          return undefined;
        });
      }
      results.push({ seed, start: evals[0], end, steps, generatedTokens: tokens, seconds: elapsed(), report: Object.fromEntries(report.map((k) => [k, summarise(k, rec.seen[k] ?? [])])), ...(halted ? { halted } : {}), series: rec.series.toJSON(), evals: end === lastEval ? evals : [...evals, end], ...(crossPlay ? { crossPlay } : {}) });
      // each seed's result is kept as soon as it is done: a long ablation cut short keeps its finished seeds
      if (f.json) await save(results.length < seedList.length);
      if (store) await Promise.all([store.remove(runId), forgetSeconds(f.work, seed)]);
    }
  } finally {
    unhandle();
    gpu.destroy();
  }
  if (stop.signal) {
    const missing = seedList.filter((s) => !results.some((r) => r.seed === s));
    process.stderr.write(`${stop.signal}: stopped with ${results.length} of ${seedList.length} seeds done${f.json ? ` (in ${f.json})` : ''}; seed ${missing.join(', ')} to run. Continue with:\n${cmd}${f.json ? ` --json ${f.json}` : ''}${f.work ? ` --work ${f.work}` : ''} --resume\n`);
    return;
  }
  const ks = Object.keys(results[0].start.passAtK).map(Number).sort((a, b) => a - b);
  const md = withCrossPlay(table(results, ks, report), results);
  process.stdout.write(md + '\n');
  if (f.json) await save(false);
  if (f.markdown) {
    const when = new Date().toISOString().slice(0, 10);
    const body = [`## ${f.loop} from ${ckptDir} (${when})`, '', '```sh', cmd, '```', '', `Adapter: ${gpu.adapterName}; held-out set ${results[0].start.set}, ${f['eval-problems']} problems × ${f['eval-n']} samples; ${results.map((r) => `seed ${r.seed}: ${r.steps} steps, ${r.seconds.toFixed(0)} s`).join('; ')}.`, '', md, ''];
    await writeFile(f.markdown, body.join('\n'));
  }
}

/** The command that reproduces an ablation (its --json's `command`; the tables' heading). */
function commandOf(f: { loop: string; seeds: string; steps: number; 'eval-n': number; 'eval-problems': number; 'eval-every': number; ckpt: string; preset: string; config: string; target: string; 'match-tokens': string; 'token-budget': string; work: string; 'checkpoint-every': number; 'cross-play': string }, report: readonly string[]): string {
  const budgetText = f['match-tokens'] ? ` --match-tokens ${f['match-tokens']}` : f['token-budget'] ? ` --token-budget ${f['token-budget']}` : '';
  // what a continued seed must repeat to end as the uninterrupted one (--work itself is added where it is needed)
  const workText = `${f.work && f['checkpoint-every'] !== CHECKPOINT_EVERY ? ` --checkpoint-every ${f['checkpoint-every']}` : ''}${f['cross-play'] ? ` --cross-play ${f['cross-play']}` : ''}`;
  return `npm run ablate -- --loop ${f.loop} --seeds ${f.seeds} --steps ${f.steps} --eval-n ${f['eval-n']} --eval-problems ${f['eval-problems']}${f['eval-every'] ? ` --eval-every ${f['eval-every']}` : ''}${f.ckpt ? ` --ckpt ${f.ckpt}` : ` --preset ${f.preset}`}${f.config ? ` --config ${f.config}` : ''}${f.target ? ` --target ${f.target}` : ''}${budgetText}${report.length ? ` --report ${report.join(',')}` : ''}${workText}`;
}

/**
 * The seeds of one set-up run apart (`--seeds 1` and `--seeds 2` at once, on two cores or two
 * machines) as one ablation file, as if one `ablate --seeds 1,2` had written them: refused where
 * the files differ in loop, base or config (they would be two arms, not one), so `--resume` and the
 * tables read the result as any other. Its command names the seeds it holds.
 */
function mergedAblation({ results, docs }: SavedAblations): Record<string, unknown> {
  const first = docs[0];
  for (const { file, doc } of docs.slice(1)) {
    if (doc.base !== first.doc.base) throw new CliError(`--from-json … --json: ${file} was run from ${showText(String(doc.base))}, ${first.file} from ${showText(String(first.doc.base))}: not one set-up`);
    if (comparable(doc.config) !== comparable(first.doc.config)) throw new CliError(`--from-json … --json: ${file} was run with another config than ${first.file} (steps, evaluation size or --config differ): two arms, not one`);
  }
  const seeds = results.map((r) => r.seed);
  const raw = docs.flatMap(({ doc }) => doc.results as { seed: number }[]).sort((a, b) => seeds.indexOf(a.seed) - seeds.indexOf(b.seed));
  const command = typeof first.doc.command === 'string' ? first.doc.command.replace(/--seeds \S+/, `--seeds ${seeds.join(',')}`) : undefined;
  return { format: ABLATION_FORMAT, version: ABLATION_VERSION, ...(command === undefined ? {} : { command }), loop: first.doc.loop, base: first.doc.base, config: first.doc.config, partial: docs.some(({ doc }) => doc.partial === true), results: raw };
}

/** `ablate --from-json a.json,b.json [--report …] [--json merged.json]`: the table of seeds run by earlier ablations, no new runs. */
async function fromJson(argv: string[]): Promise<void> {
  const f = parseArgs(argv, { 'from-json': { type: 'string', required: true }, report: { type: 'string', default: '' }, markdown: { type: 'string', default: '' }, json: { type: 'string', default: '' } });
  if (f.json) checkOutputFile('--json', f.json);
  if (f.markdown) checkOutputFile('--markdown', f.markdown);
  const saved = await savedResults(f['from-json']);
  const { loop, base, results } = saved;
  // every input is read whole before anything is written: the merged file may be one of them
  if (f.json) await writeFile(f.json, JSON.stringify(mergedAblation(saved), null, 1));
  const report = f.report ? f.report.split(',').map((s) => s.trim()).filter(Boolean) : Object.keys(results[0].report);
  const ks = Object.keys(results[0].start.passAtK).map(Number).sort((a, b) => a - b);
  const md = withCrossPlay(table(results, ks, report), results);
  process.stdout.write(md + '\n');
  if (f.markdown) await writeFile(f.markdown, [`## ${loop} from ${base}`, '', '```sh', `npm run ablate -- --from-json ${f['from-json']}`, '```', '', md, ''].join('\n'));
}
