// rlvr-lab pretrain (npm run pretrain): trains a base policy on the world's role mixture and
// writes public/models/<preset>/ (model.safetensors, config.json, card.json). Resumable: the
// run keeps a resume/ folder (parameters, AdamW moments, trainer state), replaced atomically
// at every evaluation, and `--resume` continues exactly where it stopped.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { atMost, CliError, learningRate, nonNegativeInt, positiveInt, readArgs, seedFlag, type Flags } from './args';
import { GPT_PRESETS, type GPTConfig, type GPTPresetName } from '../model/config';
import { buildTensorTable } from '../model/params';
import { initParams } from '../model/init';
import { loadCheckpointDir, saveCheckpointDir } from '../model/checkpoint_node';
import { createNodeGpu } from '../gpu/node';
import { createPretrainModel, DEFAULT_PRETRAIN, freshState, pretrain, type PretrainConfig, type PretrainState } from '../pretrain/run';
import { writeCard } from '../pretrain/card';
import { onStopSignals } from './signals';
import { showText } from '../util/show';
import { makeDirectory, missingDirectories } from './paths';
import { MAX_PRETRAIN_BATCH, MAX_PRETRAIN_STEPS } from './pretrain_recipe';
import { recoverResumeDir, readSavedRun, saveResume, TRAINER_STATE, type ResumePoint } from './pretrain_resume';

const FLAGS = {
  preset: { type: 'string', default: 'small' },
  seed: { type: 'number', default: 1 },
  steps: { type: 'number', default: DEFAULT_PRETRAIN.steps },
  batch: { type: 'number', default: DEFAULT_PRETRAIN.batchSize },
  lr: { type: 'number', default: DEFAULT_PRETRAIN.lr },
  'eval-every': { type: 'number', default: DEFAULT_PRETRAIN.evalEvery },
  patience: { type: 'number', default: DEFAULT_PRETRAIN.patience },
  out: { type: 'string', default: '' },
  resume: { type: 'boolean', default: false },
  'card-samples': { type: 'number', default: 8 },
  'no-pack': { type: 'boolean', default: false },
  'prompt-weight': { type: 'number', default: DEFAULT_PRETRAIN.promptWeight },
  'card-only': { type: 'boolean', default: false },
} as const;

/** The flags that set the recipe. A resumed run keeps its saved recipe, and so does --card-only. */
const RECIPE_FLAGS = ['seed', 'steps', 'batch', 'lr', 'eval-every', 'patience', 'no-pack', 'prompt-weight'] as const;

/** The recipe the flags ask for, each value checked (a negative step count once trained nothing and exited 0). */
function recipeFromFlags(f: Flags<typeof FLAGS>, cfg: GPTConfig): PretrainConfig {
  const promptWeight = f['prompt-weight'];
  if (!(promptWeight >= 0 && promptWeight <= 1)) throw new CliError(`--prompt-weight must lie in [0, 1], got ${promptWeight}`);
  return {
    ...DEFAULT_PRETRAIN,
    seed: seedFlag(f.seed),
    steps: atMost('steps', positiveInt('steps', f.steps), MAX_PRETRAIN_STEPS),
    batchSize: atMost('batch', positiveInt('batch', f.batch), MAX_PRETRAIN_BATCH),
    lr: learningRate('lr', f.lr),
    evalEvery: positiveInt('eval-every', f['eval-every']),
    patience: nonNegativeInt('patience', f.patience),
    seqLen: Math.min(DEFAULT_PRETRAIN.seqLen, cfg.nPositions),
    pack: !f['no-pack'],
    promptWeight,
  };
}

/** Recipe flags beside a mode that would silently ignore them are refused. */
function refuseRecipeFlags(given: ReadonlySet<string>, mode: string, why: string): void {
  const clash = RECIPE_FLAGS.filter((k) => given.has(k)).map((k) => `--${k}`);
  if (clash.length > 0) throw new CliError(`${mode} ${why}, so ${clash.join(', ')} would be ignored: drop ${clash.length > 1 ? 'them' : 'it'}`);
}

export async function pretrainCommand(argv: string[]): Promise<void> {
  const { flags: f, given } = readArgs(argv, FLAGS);
  if (!Object.hasOwn(GPT_PRESETS, f.preset)) throw new CliError(`unknown preset ${showText(f.preset)} for --preset (one of ${Object.keys(GPT_PRESETS).join(', ')})`);
  const cfg = GPT_PRESETS[f.preset as GPTPresetName];
  const out = f.out || join('public', 'models', f.preset);
  // a file where the folder goes fails only after the GPU started and trained: checked now
  missingDirectories('--out', out);
  const cardSamples = positiveInt('card-samples', f['card-samples']);
  if (f['card-only']) {
    refuseRecipeFlags(given, '--card-only', 'measures the saved run again');
    return rebuildCard(out, f.preset, cardSamples, !f.out);
  }
  let pc = recipeFromFlags(f, cfg);
  let resumed: ResumePoint | null = null;
  if (f.resume) {
    refuseRecipeFlags(given, '--resume', 'continues the saved run with its saved recipe (its learning-rate schedule spans its step count)');
    resumed = await recoverResumeDir(out, f.preset, cfg);
    if (!resumed) throw new CliError(`--resume: no ${join(out, 'resume')} to resume from`);
    pc = resumed.pretrain;
  }
  // every check above runs before the GPU starts
  const gpu = await createNodeGpu();
  const table = buildTensorTable(cfg);
  const model = await createPretrainModel(gpu, cfg, resumed?.params ?? initParams(cfg, table, pc.seed), pc);
  if (resumed) {
    model.loadOptimiserState(resumed.optimizer);
    process.stderr.write(`resuming ${f.preset} from step ${resumed.state.step}\n`);
  }
  makeDirectory('--out', out);
  const t0 = Date.now();
  const state = await train(model, pc, resumed?.state ?? freshState(), out, f.preset);
  if (!state) return;
  const params = await model.readParams();
  await saveCheckpointDir(out, cfg, params, table, { preset: f.preset, seed: String(pc.seed), steps: String(state.step) });
  process.stderr.write(`trained ${state.step} steps in ${((Date.now() - t0) / 60000).toFixed(1)} min; measuring the base metrics for card.json\n`);
  const card = await writeCard(gpu, out, cfg, table, params, pc, state, cardSamples);
  gpu.destroy();
  if (!f.out) await listInCatalog(f.preset, table.tensors.reduce((a, t) => a + t.size, 0), card.summary);
}

/** Trains to the end, saving the resume point at every evaluation; null when interrupted (SIGINT, SIGTERM, SIGHUP). */
async function train(model: Awaited<ReturnType<typeof createPretrainModel>>, pc: PretrainConfig, from: PretrainState, out: string, preset: string): Promise<PretrainState | null> {
  const ac = new AbortController();
  const unhandle = onStopSignals((signal) => {
    process.stderr.write(`\n${signal}: saving the resume point\n`);
    ac.abort();
  }, 'the resume point is being saved');
  try {
    const state = await pretrain(model, pc, from, {
      signal: ac.signal,
      onEval: (e) => process.stderr.write(`step ${e.step}/${pc.steps} train ${e.trainLoss.toFixed(4)} held-out ${e.evalLoss.toFixed(4)} lr ${e.lr.toExponential(2)} ${e.tokensPerS.toFixed(0)} tok/s\n`),
      save: (m, s) => saveResume(out, m, pc, s, preset),
    });
    await saveResume(out, model, pc, state, preset);
    return ac.signal.aborted ? null : state;
  } finally {
    unhandle();
  }
}

/**
 * Measures the base metrics of a finished pretraining again and rewrites card.json (after a fix
 * to a metric): the parameters from model.safetensors, the recipe and loss curve from resume/.
 */
async function rebuildCard(out: string, preset: string, samples: number, catalog: boolean): Promise<void> {
  const resumeDir = join(out, 'resume');
  if (!existsSync(join(resumeDir, TRAINER_STATE))) throw new CliError(`--card-only: no ${join(resumeDir, TRAINER_STATE)} (the card needs the run's saved state)`);
  const saved = await readSavedRun(resumeDir);
  const ckpt = await loadCheckpointDir(out);
  const gpu = await createNodeGpu();
  try {
    const card = await writeCard(gpu, out, ckpt.cfg, ckpt.table, ckpt.params, saved.pretrain, saved.state, samples);
    if (catalog) await listInCatalog(preset, ckpt.table.tensors.reduce((a, t) => a + t.size, 0), card.summary);
  } finally {
    gpu.destroy();
  }
}

/** Adds (or replaces) the policy in public/models/index.json, the launcher's list, and makes it the default. */
async function listInCatalog(name: string, params: number, summary: string): Promise<void> {
  const path = join('public', 'models', 'index.json');
  // the catalog this command writes (the page checks it on load: src/state/catalog.ts)
  const catalog = (existsSync(path) ? JSON.parse(await readFile(path, 'utf8')) : { default: name, policies: [] }) as { default: string; policies: { name: string }[] };
  const entry = { name, description: summary, params };
  catalog.policies = [...catalog.policies.filter((p: { name: string }) => p.name !== name), entry];
  catalog.default = name;
  await writeFile(path, JSON.stringify(catalog, null, 2) + '\n');
}
