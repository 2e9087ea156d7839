// rlvr-lab init: a randomly initialised policy (GPT-2 init, seeded) as a checkpoint folder.
import { parseArgs, CliError, seedFlag } from './args';
import { GPT_PRESETS, type GPTPresetName } from '../model/config';
import { buildTensorTable } from '../model/params';
import { initParams } from '../model/init';
import { saveCheckpointDir } from '../model/checkpoint_node';
import { makeDirectory } from './paths';
import { showText } from '../util/show';

export async function initCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, {
    preset: { type: 'string', default: 'tiny' },
    seed: { type: 'number', default: 0 },
    out: { type: 'string', required: true },
  });
  if (!Object.hasOwn(GPT_PRESETS, f.preset)) throw new CliError(`unknown preset ${showText(f.preset)} for --preset (one of ${Object.keys(GPT_PRESETS).join(', ')})`);
  seedFlag(f.seed);
  // one level at a time, the first existing ancestor a folder (a recursive mkdir loops under /proc)
  makeDirectory('--out', f.out);
  const cfg = GPT_PRESETS[f.preset as GPTPresetName];
  const table = buildTensorTable(cfg);
  const params = initParams(cfg, table, f.seed);
  try {
    await saveCheckpointDir(f.out, cfg, params, table, { preset: f.preset, seed: String(f.seed), origin: 'rlvr-lab init' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    throw new CliError(`--out: cannot write the checkpoint to ${showText(f.out)} (${code})`, { cause: err });
  }
  process.stderr.write(`wrote ${f.out}/model.safetensors and config.json (${f.preset}, seed ${f.seed})\n`);
}
