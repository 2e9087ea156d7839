// rlvr-lab pretrain (npm run pretrain): trains a base policy on the world's role mixture and
// writes public/models/<preset>/ (model.safetensors, config.json, card.json). Resumable: the
// run keeps a resume/ folder (parameters, AdamW moments, trainer state), replaced atomically
// at every evaluation, and `--resume` continues exactly where it stopped.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, CliError } from './args';
import { GPT_PRESETS, type GPTPresetName } from '../model/config';
import { buildTensorTable } from '../model/params';
import { initParams } from '../model/init';
import { loadCheckpointDir, saveCheckpointDir } from '../model/checkpoint_node';
import { decodeSafetensors, encodeSafetensors } from '../model/safetensors';
import { createNodeGpu } from '../gpu/node';
import type { GPT } from '../model/gpt';
import { createPretrainModel, DEFAULT_PRETRAIN, freshState, pretrain, type PretrainConfig, type PretrainState } from '../pretrain/run';
import { writeCard } from '../pretrain/card';

async function saveResume(dir: string, model: GPT, pc: PretrainConfig, state: PretrainState, preset: string): Promise<void> {
  const tmp = join(dir, 'resume.tmp');
  await rm(tmp, { recursive: true, force: true });
  const opt = await model.readOptimiserState();
  await saveCheckpointDir(tmp, model.cfg, await model.readParams(), model.table, { preset, step: String(state.step) });
  await writeFile(join(tmp, 'optimizer.safetensors'), encodeSafetensors([
    { name: 'adam.m', shape: [opt.m.length], data: opt.m },
    { name: 'adam.v', shape: [opt.v.length], data: opt.v },
  ]));
  await writeFile(join(tmp, 'trainer_state.json'), JSON.stringify({ pretrain: pc, state, adamStep: opt.step, preset }, null, 1));
  await rm(join(dir, 'resume'), { recursive: true, force: true });
  await rename(tmp, join(dir, 'resume'));
}

export async function pretrainCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
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
  });
  if (!(f.preset in GPT_PRESETS)) throw new CliError(`unknown --preset '${f.preset}' (one of ${Object.keys(GPT_PRESETS).join(', ')})`);
  const cfg = GPT_PRESETS[f.preset as GPTPresetName];
  const out = f.out || join('public', 'models', f.preset);
  let pc: PretrainConfig = {
    ...DEFAULT_PRETRAIN, seed: f.seed, steps: f.steps, batchSize: f.batch, lr: f.lr, evalEvery: f['eval-every'], patience: f.patience,
    seqLen: Math.min(DEFAULT_PRETRAIN.seqLen, cfg.nPositions), pack: !f['no-pack'], promptWeight: f['prompt-weight'],
  };
  const table = buildTensorTable(cfg);
  if (f['card-only']) return rebuildCard(out, f.preset, f['card-samples'], !f.out);
  const gpu = await createNodeGpu();
  let state = freshState();
  let init = initParams(cfg, table, f.seed);
  const resumeDir = join(out, 'resume');
  let optState: { m: Float32Array; v: Float32Array; step: number } | null = null;
  if (f.resume) {
    if (!existsSync(resumeDir)) throw new CliError(`--resume: no ${resumeDir} to resume from`);
    const saved = await readSavedRun(resumeDir);
    pc = saved.pretrain;
    state = saved.state;
    state.bestEvalLoss = state.bestEvalLoss ?? Infinity;
    init = (await loadCheckpointDir(resumeDir)).params;
    const opt = decodeSafetensors(new Uint8Array(await readFile(join(resumeDir, 'optimizer.safetensors'))), 'optimizer.safetensors');
    optState = { m: opt.tensors.get('adam.m')!.data!, v: opt.tensors.get('adam.v')!.data!, step: saved.adamStep };
    process.stderr.write(`resuming ${f.preset} from step ${state.step}\n`);
  }
  const model = await createPretrainModel(gpu, cfg, init, pc);
  if (optState) model.loadOptimiserState(optState);
  await mkdir(out, { recursive: true });
  const ac = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('\ninterrupted: saving the resume point\n');
    ac.abort();
  });
  const t0 = Date.now();
  state = await pretrain(model, pc, state, {
    signal: ac.signal,
    onEval: (e) => process.stderr.write(`step ${e.step}/${pc.steps} train ${e.trainLoss.toFixed(4)} held-out ${e.evalLoss.toFixed(4)} lr ${e.lr.toExponential(2)} ${e.tokensPerS.toFixed(0)} tok/s\n`),
    save: (m, s) => saveResume(out, m, pc, s, f.preset),
  });
  await saveResume(out, model, pc, state, f.preset);
  if (ac.signal.aborted) return;
  const params = await model.readParams();
  await saveCheckpointDir(out, cfg, params, table, { preset: f.preset, seed: String(f.seed), steps: String(state.step) });
  process.stderr.write(`trained ${state.step} steps in ${((Date.now() - t0) / 60000).toFixed(1)} min; measuring the base metrics for card.json\n`);
  const card = await writeCard(gpu, out, cfg, table, params, pc, state, f['card-samples']);
  gpu.destroy();
  if (!f.out) await listInCatalog(f.preset, table.tensors.reduce((a, t) => a + t.size, 0), card.summary);
}

/** The pretraining config and state saved in a resume folder (by saveResume). */
async function readSavedRun(resumeDir: string): Promise<{ pretrain: PretrainConfig; state: PretrainState; adamStep: number }> {
  const saved = JSON.parse(await readFile(join(resumeDir, 'trainer_state.json'), 'utf8'));
  // runs saved before the prompt loss existed had none
  return { ...saved, pretrain: { ...saved.pretrain, promptWeight: saved.pretrain.promptWeight ?? 0 } };
}

/**
 * Measures the base metrics of a finished pretraining again and rewrites card.json (after a fix
 * to a metric): the parameters from model.safetensors, the recipe and loss curve from resume/.
 */
async function rebuildCard(out: string, preset: string, samples: number, catalog: boolean): Promise<void> {
  const resumeDir = join(out, 'resume');
  if (!existsSync(join(resumeDir, 'trainer_state.json'))) throw new CliError(`--card-only: no ${join(resumeDir, 'trainer_state.json')} (the card needs the run's saved state)`);
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
  const catalog = existsSync(path) ? JSON.parse(await readFile(path, 'utf8')) : { default: name, policies: [] };
  const entry = { name, description: summary, params };
  catalog.policies = [...catalog.policies.filter((p: { name: string }) => p.name !== name), entry];
  catalog.default = name;
  await writeFile(path, JSON.stringify(catalog, null, 2) + '\n');
}
