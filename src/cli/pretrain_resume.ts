// The resume point of `rlvr-lab pretrain`: OUT/resume/ holds the parameters (model.safetensors +
// config.json), the AdamW moments (optimizer.safetensors) and the trainer state
// (trainer_state.json: recipe, progress, Adam step, preset). Written atomically (a temporary
// folder renamed over the old one); read back with every part checked before any GPU work, so a
// damaged or foreign save is refused with a message naming the folder.
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './args';
import type { GPTConfig } from '../model/config';
import { loadCheckpointDir, saveCheckpointDir } from '../model/checkpoint_node';
import { CheckpointError, decodeSafetensors, encodeSafetensors } from '../model/safetensors';
import type { GPT } from '../model/gpt';
import type { PretrainConfig, PretrainState } from '../pretrain/run';
import { MAX_PRETRAIN_STEPS, recipeProblem } from './pretrain_recipe';
import * as v from 'valibot';
import { parseOr } from '../util/valibot';

export const TRAINER_STATE = 'trainer_state.json';
export const OPTIMIZER_FILE = 'optimizer.safetensors';

/** What trainer_state.json holds. */
export interface SavedRun {
  pretrain: PretrainConfig;
  state: PretrainState;
  adamStep: number;
  preset: string;
}

export interface ResumePoint extends SavedRun {
  params: Float32Array;
  optimizer: { m: Float32Array; v: Float32Array; step: number };
}

export async function saveResume(dir: string, model: GPT, pc: PretrainConfig, state: PretrainState, preset: string): Promise<void> {
  const tmp = join(dir, 'resume.tmp');
  await rm(tmp, { recursive: true, force: true });
  const opt = await model.readOptimiserState();
  await saveCheckpointDir(tmp, model.cfg, await model.readParams(), model.table, { preset, step: String(state.step) });
  await writeFile(join(tmp, OPTIMIZER_FILE), encodeSafetensors([
    { name: 'adam.m', shape: [opt.m.length], data: opt.m },
    { name: 'adam.v', shape: [opt.v.length], data: opt.v },
  ]));
  const saved: SavedRun = { pretrain: pc, state, adamStep: opt.step, preset };
  await writeFile(join(tmp, TRAINER_STATE), JSON.stringify(saved, null, 1));
  // the old save stays until the new one is in place: a kill between any two of these leaves
  // resume/, or a complete resume.tmp/ (and the previous save as resume.old/), which --resume reads
  const [current, old] = [join(dir, 'resume'), join(dir, 'resume.old')];
  await rm(old, { recursive: true, force: true });
  if (existsSync(current)) await rename(current, old);
  await rename(tmp, current);
  await rm(old, { recursive: true, force: true });
}

/**
 * OUT/resume, or, when a kill came between a save's renames (resume/ moved aside, the new save
 * not yet in its place), the complete save beside it, newest first: resume.tmp/ then resume.old/.
 * The one found is moved to resume/ so the run saves on from there; null when there is none.
 */
export async function recoverResumeDir(out: string, preset: string, cfg: GPTConfig): Promise<ResumePoint | null> {
  const current = join(out, 'resume');
  if (existsSync(current)) return readResumePoint(current, preset, cfg);
  for (const name of ['resume.tmp', 'resume.old']) {
    const dir = join(out, name);
    if (!existsSync(dir)) continue;
    let point: ResumePoint;
    try {
      point = await readResumePoint(dir, preset, cfg);
    } catch (e) {
      // a save cut short while it was written: the next candidate may be whole
      if (e instanceof CheckpointError) continue;
      throw e;
    }
    await rename(dir, current);
    process.stderr.write(`--resume: ${current} was missing (a save was interrupted); resuming from the complete save ${dir}, now ${current}\n`);
    return point;
  }
  return null;
}

async function readPart(resumeDir: string, file: string): Promise<Buffer> {
  try {
    return await readFile(join(resumeDir, file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new CheckpointError(`resume point ${resumeDir}: cannot read ${file} (${code}); the save is incomplete: restore it, or start again without --resume`, { cause: err });
  }
}

const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(MAX_PRETRAIN_STEPS));
const nonNegative = v.pipe(v.number(), v.finite(), v.minValue(0));
/** a logged figure: JSON writes a non-finite one as null */
const figure = v.nullable(v.number());

/**
 * trainer_state.json as saveResume writes it. Objects are loose, as in the checkpoints' schema
 * (a field a later version adds does not make this one call the save damaged); the recipe's own
 * bounds are recipeProblem's, shared with the flags, checked after.
 */
const SavedRunSchema = v.looseObject({
  pretrain: v.looseObject({}),
  state: v.looseObject({
    step: count,
    // JSON writes Infinity (no evaluation yet) as null
    bestEvalLoss: v.nullable(nonNegative),
    evalsSinceBest: count,
    tokensSeen: nonNegative,
    history: v.pipe(v.array(v.looseObject({ step: figure, trainLoss: figure, evalLoss: figure, lr: figure, tokensPerS: figure })), v.maxLength(MAX_PRETRAIN_STEPS)),
  }),
  adamStep: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  preset: v.string(),
});

/** trainer_state.json, checked whole (a one-line refusal naming the folder and the field path) before a resumed run reads it. */
export async function readSavedRun(resumeDir: string, nPositions = Number.MAX_SAFE_INTEGER): Promise<SavedRun> {
  const text = (await readPart(resumeDir, TRAINER_STATE)).toString('utf8');
  const damaged = (why: string) => new CheckpointError(`resume point ${resumeDir}: ${TRAINER_STATE} ${why}; the save is damaged: restore it, or start again without --resume`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw damaged(`is not JSON (${(err as Error).message})`);
  }
  const saved = parseOr(SavedRunSchema, json, (line) => {
    throw damaged(`holds ${line}`);
  });
  // runs saved before the prompt loss existed had none
  const pretrain = { ...saved.pretrain, promptWeight: saved.pretrain.promptWeight ?? 0 };
  // the context bounds seqLen; the preset's architecture is checked against the saved model after
  const bad = recipeProblem(pretrain, nPositions);
  if (bad) throw damaged(`holds ${bad}`);
  const recipe = pretrain as unknown as PretrainConfig;
  if (saved.state.step > recipe.steps) throw damaged(`holds state.step = ${saved.state.step}, past the recipe's ${recipe.steps} steps`);
  const state: PretrainState = { ...saved.state, bestEvalLoss: saved.state.bestEvalLoss ?? Infinity, history: saved.state.history as PretrainState['history'] };
  return { pretrain: recipe, state, adamStep: saved.adamStep, preset: saved.preset };
}

const sameArchitecture = (a: GPTConfig, b: GPTConfig) =>
  a.vocabSize === b.vocabSize && a.nPositions === b.nPositions && a.nEmbd === b.nEmbd && a.nLayer === b.nLayer && a.nHead === b.nHead;

/** Every part of OUT/resume for a run of `preset` (architecture `cfg`), or why it cannot resume. */
export async function readResumePoint(resumeDir: string, preset: string, cfg: GPTConfig): Promise<ResumePoint> {
  if (!existsSync(resumeDir)) throw new CliError(`--resume: no ${resumeDir} to resume from`);
  const saved = await readSavedRun(resumeDir, cfg.nPositions);
  if (saved.preset !== preset) {
    throw new CliError(`--resume: ${resumeDir} was saved by a ${saved.preset} run, not ${preset}; resume it with --preset ${saved.preset}, or give another --out`);
  }
  const ckpt = await loadCheckpointDir(resumeDir);
  if (!sameArchitecture(ckpt.cfg, cfg)) throw new CliError(`--resume: the model in ${resumeDir} is not the ${preset} architecture`);
  const opt = decodeSafetensors(new Uint8Array(await readPart(resumeDir, OPTIMIZER_FILE)), `${resumeDir}/${OPTIMIZER_FILE}`);
  const moment = (name: string): Float32Array => {
    const data = opt.tensors.get(name)?.data;
    if (!data || data.length !== ckpt.table.totalFloats) {
      throw new CheckpointError(`resume point ${resumeDir}: ${OPTIMIZER_FILE} has no ${name} of ${ckpt.table.totalFloats} floats; the save is damaged: restore it, or start again without --resume`);
    }
    return data;
  };
  return { ...saved, params: ckpt.params, optimizer: { m: moment('adam.m'), v: moment('adam.v'), step: saved.adamStep } };
}
