// rlvr-lab: the Node command line over the same engine the page runs in its worker.
import { RunHaltedError } from './halts';
import { CliError, HelpRequest } from './args';
import { CheckpointError } from '../model/safetensors';
import { showText } from '../util/show';
import { ConfigError } from '../model/config';
import { GpuUnavailableError } from '../gpu/runtime';

/** Errors that are the user's to fix (flags, files, the machine): one line, exit code 2. */
const USER_ERRORS = [CliError, CheckpointError, ConfigError, GpuUnavailableError];

type Command = (argv: string[]) => Promise<void>;

const COMMANDS: Record<string, { help: string; load: () => Promise<Command> }> = {
  init: { help: 'init --preset tiny|small|base --seed S --out DIR   write a randomly initialised policy', load: async () => (await import('./init')).initCommand },
  inspect: { help: 'inspect --ckpt DIR --tokens 3,1,4 [--json]      logits, loss and per-tensor gradient norms', load: async () => (await import('./inspect')).inspectCommand },
  pretrain: { help: 'pretrain --preset small --seed S [--steps N] [--resume] [--card-only]   train a base policy into public/models/<preset>/', load: async () => (await import('./pretrain')).pretrainCommand },
  run: { help: 'run --loop grpo --preset small --steps N --seed S --out run.jsonl [--config f.json] [--corpus docs.txt] [--target midhard:1|TEXT] [--adapters DIR] [--ckpt DIR]', load: async () => (await import('./run')).runCommand },
  ablate: { help: 'ablate --loop grpo [--seeds 1,2,3] [--steps N] [--eval-every N] [--json FILE [--work DIR] [--resume]] [--markdown FILE]   start/end entropy and pass@k over seeds', load: async () => (await import('./ablate')).ablateCommand },
  bench: { help: 'bench [--quick]                                   kernel, training and sampling benchmarks vs TF.js', load: async () => (await import('./bench')).benchCommand },
  eval: { help: 'eval --ckpt DIR [--set NAME] [--n 64] [--k 1,2,4,...] [--seed S] [--limit M] [--json]   pass@k, avg@k, maj@k by sampling', load: async () => (await import('./eval')).evalCommand },
  'ttsp-targets': { help: 'ttsp-targets --ckpt DIR [--n 512] [--limit M] [--seed S] [--out FILE]   MidHard / VeryHard TTSP targets by the base mean@n', load: async () => (await import('./ttsp_targets')).ttspTargetsCommand },
  sets: { help: 'sets [--json]                                     list the data sets (eval --set NAME)', load: async () => (await import('./sets')).setsCommand },
  'export-onnx': { help: 'export-onnx --ckpt DIR --out model.onnx [--with-past]   the policy as ONNX (opset 17, int32 input_ids; --with-past: the KV-cache decoder, Hugging Face names)', load: async () => (await import('./export_onnx')).exportOnnxCommand },
  'export-hf': { help: 'export-hf --ckpt DIR --out DIR [--temperature T] [--top-p P]   a Hugging Face model folder: config, safetensors, tokenizer, ONNX with past key values, README', load: async () => (await import('./export_hf')).exportHfCommand },
  'export-recipe': { help: 'export-recipe --to trl|verl --out DIR (--run run.jsonl | --loop L [--setup S] [--preset P] [--config C]) [--ckpt DIR]   a folder that runs the set-up in TRL or veRL', load: async () => (await import('./export_recipe')).exportRecipeCommand },
};

function usage(): string {
  return ['usage: rlvr-lab <command> [options]', '', ...Object.values(COMMANDS).map((c) => `  ${c.help}`)].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) {
    process.stderr.write(`rlvr-lab: unknown command ${showText(name)}\n${usage()}\n`);
    return 2;
  }
  try {
    await (await cmd.load())(rest);
    return 0;
  } catch (e) {
    // `<command> --help`: its summary, then its flags as its spec declares them
    if (e instanceof HelpRequest) {
      process.stdout.write(`usage: rlvr-lab ${cmd.help}\n\nflags:\n${e.usage}\n`);
      return 0;
    }
    // a run that stopped itself is no mistake of the user's: its own code, one line
    if (e instanceof RunHaltedError) {
      process.stderr.write(`rlvr-lab ${name}: ${e.message}\n`);
      return 3;
    }
    if (USER_ERRORS.some((kind) => e instanceof kind)) {
      process.stderr.write(`rlvr-lab ${name}: ${(e as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`rlvr-lab ${name}: ${(e as Error).stack ?? e}\n`);
    return 1;
  }
}

