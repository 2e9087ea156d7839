// rlvr-lab export-recipe: a run (--run run.jsonl, the log `rlvr-lab run` writes) or a set-up
// (--loop, --setup, --preset, --config, as the launcher layers them) as a folder that runs the
// same algorithm in TRL or veRL. The files come from src/export/recipe.ts (shared with the
// page); this reads the inputs and writes them.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, CliError } from './args';
import { servingCheckpoint, writeFolder } from './export_hf';
import { loopNamed, LOOP_NAMES } from '../loops/registry';
import type { BaseLoopConfig } from '../loops/base_config';
import { DEFAULT_RL_CORE, RL_CORE_PRESETS, type RlCorePresetName } from '../rl/config';
import { buildRecipe } from '../export/recipe';
import { FRAMEWORKS, solveCore, type Framework } from '../export/recipe_map';

interface SetUp {
  loop: string;
  config: BaseLoopConfig;
  /** the policy to export when --ckpt is not given */
  model: string;
  origin: string;
}

async function readJsonObject(path: string, flag: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`${flag}: cannot read ${path} (${(e as NodeJS.ErrnoException).code})`);
  }
  try {
    const obj: unknown = JSON.parse(text);
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error('not an object');
    return obj as Record<string, unknown>;
  } catch (e) {
    throw new CliError(`${flag}: ${path} is not a JSON object (${(e as Error).message})`);
  }
}

/** The run log's config line (its first) and done line (its last, when the run finished). */
async function fromRun(path: string): Promise<SetUp> {
  let lines: string[];
  try {
    lines = (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  } catch (e) {
    throw new CliError(`--run: cannot read ${path} (${(e as NodeJS.ErrnoException).code})`);
  }
  const parse = (l: string | undefined) => {
    try {
      return l === undefined ? null : (JSON.parse(l) as Record<string, unknown>);
    } catch {
      return null;
    }
  };
  const head = parse(lines[0]);
  if (!head || head.type !== 'config' || typeof head.loop !== 'string' || !LOOP_NAMES.includes(head.loop)) {
    throw new CliError(`--run: ${path} does not start with a config line naming a loop; it is not a log \`rlvr-lab run\` wrote`);
  }
  const config = loopNamed(head.loop).spec.validate(head.config, `${path} config`);
  const done = parse(lines[lines.length - 1]);
  const ckpt = done?.type === 'done' && typeof done.checkpoint === 'string' && existsSync(done.checkpoint) ? done.checkpoint : null;
  const base = typeof head.base === 'string' ? head.base : join('public', 'models', 'small');
  return { loop: head.loop, config, model: ckpt ?? base, origin: `run ${path}${ckpt ? `, its final policy ${ckpt} (step ${String(done?.step)})` : `, its base ${base}`}` };
}

async function fromSetUp(f: { loop: string; setup: string; preset: string; config: string }): Promise<SetUp> {
  if (!LOOP_NAMES.includes(f.loop)) throw new CliError(`unknown --loop '${f.loop}' (available: ${LOOP_NAMES.join(', ')})`);
  const spec = loopNamed(f.loop).spec;
  const setup = spec.presets[f.setup];
  if (!setup) throw new CliError(`--setup: the ${f.loop} loop has no set-up '${f.setup}' (set-ups: ${Object.keys(spec.presets).join(', ')})`);
  const preset = (f.preset || spec.rlPresets[0]) as RlCorePresetName;
  if (!spec.rlPresets.includes(preset)) throw new CliError(`--preset: the ${f.loop} loop does not take the RL preset '${preset}' (its presets: ${spec.rlPresets.join(', ')})`);
  const file = f.config ? await readJsonObject(f.config, '--config') : {};
  const fileRl = typeof file.rl === 'object' && file.rl !== null ? file.rl : {};
  // the launcher's layers: the set-up, the file's fields, the RL preset's whole layer, the file's rl
  const partial = { ...setup.config, ...file, rl: { ...DEFAULT_RL_CORE, ...RL_CORE_PRESETS[preset], ...fileRl } };
  const config = spec.validate(partial, f.config || 'config');
  return { loop: f.loop, config, model: join('public', 'models', 'small'), origin: `set-up ${f.loop} / ${f.setup} / ${preset}${f.config ? ` with ${f.config}` : ''}` };
}

export async function exportRecipeCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    to: { type: 'string', required: true, help: 'trl or verl' },
    out: { type: 'string', required: true, help: 'the folder to write' },
    run: { type: 'string', default: '', help: 'a run log (rlvr-lab run --out run.jsonl)' },
    loop: { type: 'string', default: '', help: 'a set-up: the loop' },
    setup: { type: 'string', default: 'paper', help: 'a set-up: the loop\'s named set-up (paper, lab, ...)' },
    preset: { type: 'string', default: '', help: 'a set-up: the RL preset (grpo, grpo_original, dr_grpo, dapo, gspo, ...; default the loop\'s first)' },
    config: { type: 'string', default: '', help: 'a set-up: a JSON file of overrides (as rlvr-lab run --config)' },
    ckpt: { type: 'string', default: '', help: 'the policy to start from (default: the run\'s final policy, else its base; a set-up: public/models/small)' },
  });
  if (!(FRAMEWORKS as readonly string[]).includes(f.to)) throw new CliError(`--to must be one of ${FRAMEWORKS.join(', ')}, got '${f.to}'`);
  if (f.out === '') throw new CliError('--out is empty: give the folder to write');
  if (Boolean(f.run) === Boolean(f.loop)) throw new CliError('give either --run run.jsonl or a set-up (--loop L [--setup S] [--preset P] [--config C])');
  if (f.run && (f.preset || f.config)) throw new CliError('--run carries its own set-up; drop --preset and --config');
  const s = f.run ? await fromRun(f.run) : await fromSetUp(f);
  const ckpt = await servingCheckpoint(f.ckpt || s.model);
  const core = solveCore(s.loop, s.config as BaseLoopConfig & Record<string, unknown>);
  const model = { cfg: ckpt.cfg, table: ckpt.table, params: ckpt.params, meta: ckpt.meta, sampling: { temperature: s.config.rl.temperature, topP: core.topP, maxNewTokens: core.maxNewTokens } };
  const files = buildRecipe({ loop: s.loop, config: s.config, model, origin: s.origin }, f.to as Framework);
  await writeFolder(f.out, files);
  process.stderr.write(`wrote ${f.out}/ for ${f.to} from ${s.origin}: ${[...files.keys()].filter((p) => !p.startsWith('model/')).join(', ')}, model/\n`);
}
