// rlvr-lab run: a loop of the registry headless from a base policy, through the lab's run
// manager (the API the page's worker serves), without a worker. One JSON line per event (the
// resolved config first), progress on stderr. Every checkpointEvery steps the run's state is
// saved atomically under <out>.state/ (the lab's checkpoint store on disk), so a run killed in any
// way loses at most the steps since; `--resume` continues it from there, appending to its log so
// the log reads as the uninterrupted run's. The final policy goes to <out>.ckpt/ (Hugging Face
// names). Ctrl-C, SIGTERM or SIGHUP stops after the current step and still saves. Every output path is
// checked before the first step.
import { showText, showValue } from '../util/show';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, CliError } from './args';
import { createNodeGpu } from '../gpu/node';
import { loadAdapterDir, loadCheckpointDir, saveAdapterDir, saveCheckpointDir } from '../model/checkpoint_node';
import type { TensorTable } from '../model/params';
import { buildLoraTable } from '../model/lora';
import { policyOf } from '../lab/worker/checkpointExport';
import type { GPTConfig } from '../model/config';
import { withStartAdapters, type AdapterStart } from '../loops/adapter_start';
import type { LoopDefinition } from '../loops/spec';
import type { AdapterState } from '../loops/engine';
import { readTargetFlag } from './target';
import type { LoopEvent } from '../loops/events';
import { CONTROL_LOOP, LOOP_NAMES, loopNamed } from '../loops/registry';
import { RunManager } from '../lab/worker/runs';
import { createWebGpuEngine } from '../engines/webgpu/engine';
import { fileCheckpointStore, type CheckpointStore, type RunCheckpoint } from '../lab/worker/checkpoints';
import { nodeCheckpointFs } from '../lab/worker/storage/nodeFs';
import { whyModelCannotServe } from '../eval/evaluate';
import { ROLE_LIMITS } from '../world/index';
import type { BaseLoopConfig } from '../loops/base_config';
import { haltOf, RunHaltedError, stopOnHalt } from './halts';
import { readCorpusFlag } from './corpus';
import { takeLock } from './lock';
import { readJsonObject } from './paths';
import { onStopSignals } from './signals';

/** The step's headline numbers, those the loop reports of reward, entropy and length. */
function progress(e: LoopEvent, steps: number): string | null {
  const num = (v: number | undefined, d = 3) => (v === undefined ? '–' : v.toFixed(d));
  if (e.type === 'step') return `step ${e.step}/${steps} reward ${num(e.metrics.reward)} entropy ${num(e.metrics['entropy/solve'])} len ${num(e.metrics['completions/mean_length'], 1)} (${e.seconds.toFixed(1)} s)`;
  if (e.type === 'eval') return `eval @${e.step} on ${e.set}: pass@1 ${e.passAtK['1'].toFixed(3)} entropy ${e.meanEntropy.toFixed(3)}`;
  return null;
}

/** The run's run id in its checkpoint store (one run per store). */
const RUN_ID = 'cli';

interface Outputs {
  log: string;
  /** the checkpoint store's folder */
  state: string;
  /** the final policy's folder */
  ckpt: string;
}

function outputsOf(out: string): Outputs {
  const stem = out.replace(/\.jsonl$/, '');
  return { log: out, state: `${stem}.state`, ckpt: `${stem}.ckpt` };
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/** Every output path, checked before any work: a mistake here must not discard a trained run. */
function checkOutputs(o: Outputs, mode: { resume: boolean; force: boolean }): void {
  if (o.log === '') throw new CliError('--out is empty: give the log file, e.g. --out run.jsonl');
  if (isDir(o.log)) throw new CliError(`--out ${o.log} is a directory; give a file, e.g. ${join(o.log, 'run.jsonl')}`);
  const folder = dirname(resolve(o.log));
  if (!isDir(folder)) throw new CliError(`--out ${o.log}: the folder ${folder} does not exist`);
  for (const [what, p] of [['checkpoint folder', o.state], ['final policy folder', o.ckpt]] as const) {
    if (existsSync(p) && !isDir(p)) throw new CliError(`the ${what} ${p} (beside --out) is a file; move it or choose another --out`);
  }
  if (mode.resume) {
    if (!existsSync(o.log)) throw new CliError(`--resume: ${o.log} does not exist; start the run without --resume`);
    return;
  }
  if (existsSync(o.log) && !mode.force) throw new CliError(`--out ${o.log} exists: continue that run with --resume, or overwrite it with --force`);
}

/**
 * The log as the resumed run continues it: its config line, then its lines up to the checkpoint's
 * step. A head lost to a kill (a 0-byte log, a cut config line) is rebuilt from the checkpoint,
 * and the steps, evaluations and records the checkpoint's history holds but the log lost (its
 * last line cut short) are put back, so the log reads as the uninterrupted run's.
 */
async function rebuildLog(log: string, c: RunCheckpoint, config: BaseLoopConfig): Promise<void> {
  const lines = (await readFile(log, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const parsed: { line: string; e: { type?: unknown; step?: unknown } }[] = [];
  for (const [i, line] of lines.entries()) {
    try {
      parsed.push({ line, e: JSON.parse(line) as { type?: unknown; step?: unknown } });
    } catch {
      // the last line of a killed run may be cut short
      if (i === lines.length - 1) break;
      throw new CliError(`--resume: ${log} line ${i + 1} is not JSON; it is not a log this command wrote`);
    }
  }
  if (parsed.length > 0 && parsed[0].e.type !== 'config') throw new CliError(`--resume: ${log} does not start with its config line; it is not a log this command wrote`);
  const head = parsed[0]?.line ?? JSON.stringify({ type: 'config', loop: c.loop, base: c.policy, rebuilt: 'from the checkpoint on --resume', config });
  const key = (e: { type?: unknown; step?: unknown; set?: unknown }) => `${String(e.type)}@${String(e.step)}@${String(e.set ?? '')}`;
  const body = parsed.slice(1).filter(({ e }) => e.type !== 'done' && typeof e.step === 'number' && e.step <= c.step);
  const have = new Set(body.map(({ e }) => key(e)));
  const lost = [...c.history.steps, ...c.history.evals, ...(c.history.records ?? [])].filter((e) => e.step <= c.step && !have.has(key(e)));
  // stable by step: a lost event goes after the lines of its step that survived
  const all = [...body, ...lost.map((e) => ({ line: JSON.stringify(e), e }))].map((x, i) => ({ ...x, i }));
  all.sort((a, b) => (a.e.step as number) - (b.e.step as number) || a.i - b.i);
  const tmp = `${log}.tmp-${process.pid}`;
  await writeFile(tmp, [head, ...all.map((x) => x.line)].map((l) => l + '\n').join(''));
  await rename(tmp, log);
}

/** Says once when the context cuts responses shorter than maxNewTokens. */
function warnClamp(c: BaseLoopConfig & { maxNewTokens?: number }, nPositions: number): void {
  const room = nPositions - ROLE_LIMITS.solve.prompt;
  if (c.maxNewTokens !== undefined && c.maxNewTokens > room) {
    process.stderr.write(`note: maxNewTokens = ${c.maxNewTokens}, but the context (${nPositions} tokens) leaves the longest solve prompt room for ${room}; longer responses are cut there\n`);
  }
}

export async function runCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    loop: { type: 'string', default: CONTROL_LOOP },
    preset: { type: 'string', default: 'small' },
    ckpt: { type: 'string', default: '' },
    steps: { type: 'number' },
    seed: { type: 'number' },
    out: { type: 'string', required: true },
    config: { type: 'string', default: '' },
    corpus: { type: 'string', default: '' },
    target: { type: 'string', default: '' },
    adapters: { type: 'string', default: '' },
    resume: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
  });
  const o = outputsOf(f.out);
  if (f.resume && f.force) throw new CliError('--resume and --force: give one (--resume continues the run in --out, --force starts it again)');
  if (f.resume && (f.config || f.corpus || f.target || f.adapters || f.steps !== undefined || f.seed !== undefined || f.ckpt || argv.some((a) => a.startsWith('--loop') || a.startsWith('--preset')))) {
    throw new CliError('--resume continues the run as it was set up (its checkpoint holds the loop, base and config); drop --loop, --preset, --ckpt, --config, --corpus, --target, --adapters, --steps and --seed');
  }
  checkOutputs(o, f);
  // before anything is written (--force's removals among it): one run per --out
  const release = takeLock(`${o.log}.lock`, `--out ${o.log}`);
  try {
    const store = fileCheckpointStore(nodeCheckpointFs(o.state));
    await (f.resume ? resumeRun(o, store) : startRun(f, o, store));
  } finally {
    release();
  }
}

async function startRun(f: { loop: string; preset: string; ckpt: string; steps?: number; seed?: number; config: string; corpus: string; target: string; adapters: string; force: boolean }, o: Outputs, store: CheckpointStore): Promise<void> {
  if (!LOOP_NAMES.includes(f.loop)) throw new CliError(`unknown --loop ${showText(String(f.loop))} (available: ${LOOP_NAMES.join(', ')})`);
  const def = loopNamed(f.loop);
  const fileCfg = f.config ? await readJsonObject('--config', f.config) : {};
  const overrides: Record<string, unknown> = { ...fileCfg };
  if (f.steps !== undefined) overrides.steps = f.steps;
  if (f.seed !== undefined) overrides.seed = f.seed;
  if (f.corpus) overrides.corpus = await readCorpusFlag(f.corpus, def);
  const ckptDir = f.ckpt || join('public', 'models', f.preset);
  if (f.target) Object.assign(overrides, await readTargetFlag(f.target, def, ckptDir));
  const config = def.spec.validate(overrides, f.config ? `${f.config}` : 'config');
  const base = await loadBase(ckptDir, f.ckpt ? null : f.preset);
  const adapters = f.adapters ? await readAdaptersFlag(f.adapters, def, config, base.cfg) : undefined;
  if (f.force) await Promise.all([rm(o.state, { recursive: true, force: true }), rm(o.ckpt, { recursive: true, force: true })]);
  await drive({ o, store, loop: f.loop, ckptDir, base, config, resume: false, openLog: () => createWriteStream(o.log), adapters });
}

async function resumeRun(o: Outputs, store: CheckpointStore): Promise<void> {
  const c = await store.load(RUN_ID);
  if (!c) throw new CliError(`--resume: ${o.state} holds no checkpoint (none was saved before the run ended; start it again with --force)`);
  if (!LOOP_NAMES.includes(c.loop)) throw new CliError(`damaged checkpoint: ${o.state}: state.json loop = ${showValue(c.loop)} is no loop of this lab (${LOOP_NAMES.join(', ')})`);
  const def = loopNamed(c.loop);
  let config: BaseLoopConfig;
  try {
    config = def.spec.validate(c.config, 'config');
  } catch (e) {
    throw new CliError(`damaged checkpoint: ${o.state}: state.json ${(e as Error).message}`);
  }
  if (c.step > config.steps) throw new CliError(`damaged checkpoint: ${o.state}: its step ${c.step} is past config.steps = ${config.steps}`);
  const base = await loadBase(c.policy, null);
  const size = (g: GPTConfig) => `${g.nLayer} layers of ${g.nEmbd}, ${g.nHead} heads, ${g.vocabSize} tokens, context ${g.nPositions}`;
  if (size(base.cfg) !== size(c.cfg)) throw new CliError(`damaged checkpoint: ${o.state}: its policy ${c.policy} has ${size(base.cfg)}, the checkpoint's model ${size(c.cfg)}`);
  await rebuildLog(o.log, c, config);
  process.stderr.write(`resuming ${c.loop} after step ${c.step} of ${config.steps} from ${o.state}\n`);
  await drive({ o, store, loop: c.loop, ckptDir: c.policy, base, config, resume: true, openLog: () => createWriteStream(o.log, { flags: 'a' }) });
}

/** --adapters DIR: adapter_<name>.safetensors / .json of each of the loop's adapter sets (a finished run's .ckpt/adapters folder). */
async function readAdaptersFlag(dir: string, def: LoopDefinition<BaseLoopConfig>, config: BaseLoopConfig, cfg: GPTConfig): Promise<AdapterStart[]> {
  const sets = def.spec.shape(config).adapters ?? [];
  if (sets.length === 0) throw new CliError(`--adapters: loop ${def.spec.name} trains no adapter sets (TTSP does)`);
  const starts = await Promise.all(sets.map(async (s) => {
    const a = await loadAdapterDir(dir, s.spec.name, cfg).catch((e) => {
      throw new CliError(`--adapters ${dir}: ${(e as Error).message}`);
    });
    return { spec: a.spec, params: a.params };
  }));
  try {
    withStartAdapters(def.spec.name, sets, starts);
  } catch (e) {
    throw new CliError(`--adapters ${dir}: ${(e as Error).message}`);
  }
  return starts;
}

async function loadBase(dir: string, preset: string | null) {
  const base = await loadCheckpointDir(dir).catch((e) => {
    throw new CliError(`${(e as Error).message}${preset ? ` (the ${preset} base policy; npm run pretrain -- --preset ${preset} writes it)` : ''}`);
  });
  const unfit = whyModelCannotServe(base.cfg);
  if (unfit) throw new CliError(`${dir}: ${unfit}; the loops need a policy of this world`);
  return base;
}

interface DriveArgs {
  o: Outputs;
  store: CheckpointStore;
  loop: string;
  ckptDir: string;
  base: Awaited<ReturnType<typeof loadBase>>;
  config: BaseLoopConfig;
  resume: boolean;
  /** opens the log, once the GPU is there (a run that cannot start leaves no file behind) */
  openLog: () => ReturnType<typeof createWriteStream>;
  /** starting values of the loop's adapter sets (--adapters) */
  adapters?: AdapterStart[];
}

async function drive(a: DriveArgs): Promise<void> {
  const { base, config } = a;
  warnClamp(config, base.cfg.nPositions);
  const gpu = await createNodeGpu();
  const log = a.openLog();
  const write = (obj: unknown) => log.write(JSON.stringify(obj) + '\n');
  if (!a.resume) write({ type: 'config', loop: a.loop, base: a.ckptDir, adapter: gpu.adapterName, config });
  // the base policy is the run's start and, resumed, still its KL reference
  const runs = new RunManager({ createEngine: createWebGpuEngine, loadPolicy: async () => base, checkpoints: a.store });
  const unhandle = onStopSignals((signal) => {
    process.stderr.write(`\n${signal}: stopping after this step; the checkpoint will be saved\n`);
    runs.stopRun(RUN_ID);
  }, 'the checkpoint is being saved');
  try {
    await runAndSave(a, gpu, runs, write, log);
  } finally {
    unhandle();
  }
}

async function runAndSave(a: DriveArgs, gpu: Awaited<ReturnType<typeof createNodeGpu>>, runs: RunManager<Awaited<ReturnType<typeof createNodeGpu>>>, write: (obj: unknown) => void, log: ReturnType<typeof createWriteStream>): Promise<void> {
  const { o, base, config } = a;
  let done: Extract<LoopEvent, { type: 'done' }> | null = null;
  const status = await runs.start(gpu, { runId: RUN_ID, loop: a.loop, policy: a.ckptDir, config, resume: a.resume, ...(a.adapters ? { adapters: a.adapters } : {}) }, stopOnHalt(runs, RUN_ID), (e) => {
    // checkpoints go to the store (the run manager saves them); boundaries are the manager's
    if (e.type === 'checkpoint' || e.type === 'boundary' || e.type === 'phase') return;
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
    let saveError: CliError | null = null;
    try {
      await saveFinalPolicy(o, a.loop, a.ckptDir, base, last);
    } catch (e) {
      saveError = e instanceof CliError ? e : new CliError(String(e));
    }
    if (saveError) {
      await new Promise<void>((resolve) => log.end(resolve));
      gpu.destroy();
      throw saveError;
    }
    write({ type: 'done', step: last.step, aborted: last.aborted, checkpoint: o.ckpt });
    const resumable = last.aborted && (await hasCheckpoint(a.store));
    process.stderr.write(`saved ${o.ckpt} at step ${last.step}${last.aborted ? (resumable ? ` (stopped; --resume continues it from ${o.state})` : ' (stopped before its first checkpoint: nothing to resume; start it again with --force)') : ''}\n`);
  }
  await new Promise<void>((resolve) => log.end(resolve));
  gpu.destroy();
  if (status.state === 'failed') throw new Error(`the run failed at step ${status.step}: ${status.error}`);
  const halted = haltOf(status);
  if (halted) throw new RunHaltedError(`${halted} (${(await hasCheckpoint(a.store)) ? `its checkpoint is in ${o.state}; --resume continues it` : 'it saved no checkpoint to resume from'})`);
}

const hasCheckpoint = async (store: CheckpointStore): Promise<boolean> => (await store.list().catch(() => [])).some((i) => i.runId === RUN_ID);

/**
 * The final policy to <out>.ckpt/ (each file written whole under a temporary name, then renamed),
 * and a loop's adapter sets to its adapters/. A failed write (a full disk) is one line naming the
 * folder; the run's checkpoint in <out>.state/ is untouched by it.
 */
export async function saveFinalPolicy(
  o: Pick<Outputs, 'ckpt' | 'state'>, loop: string, baseDir: string, base: { cfg: GPTConfig; table: TensorTable },
  last: { step: number; params: Float32Array; adapters?: AdapterState[] },
): Promise<void> {
  // a loop that trains adapter sets over the frozen base (TTSP): the final policy is the base with
  // its export set merged in (the adapted solver), and the sets themselves go to <ckpt>/adapters/
  // as PEFT files on the base (--adapters reloads them)
  const meta = { loop, step: String(last.step), base: baseDir };
  const policy = policyOf({ runId: RUN_ID, loop, cfg: base.cfg, params: last.params, adapters: last.adapters }, base.table);
  try {
    await saveCheckpointDir(o.ckpt, base.cfg, policy.params, base.table, { ...meta, ...policy.meta });
    for (const ad of last.adapters ?? []) await saveAdapterDir(join(o.ckpt, 'adapters'), ad.spec, ad.params, buildLoraTable(base.cfg, ad.spec), meta);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === undefined) throw e;
    throw new CliError(`cannot write the final policy to ${o.ckpt} (${code}); the run's checkpoint in ${o.state} is kept`, { cause: e });
  }
}
