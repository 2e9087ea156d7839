// rlvr-lab: the Node command line over the same engine the page runs in its worker.
import { RunHaltedError } from './halts';
import { CliError, flagUsage, HelpRequest, synopsis } from './args';
import { CheckpointError } from '../model/safetensors';
import { showText } from '../util/show';
import { ConfigError } from '../util/errors';
import { GpuUnavailableError } from '../gpu/runtime';

/** Errors that are the user's to fix (flags, files, the machine): one line, exit code 2. */
const USER_ERRORS = [CliError, CheckpointError, ConfigError, GpuUnavailableError];

type Command = (argv: string[]) => Promise<void>;

// What each command does; its flags come from its own flag spec (`<command> --help`), so no
// list of flags is kept here to drift from the parser.
const COMMANDS: Record<string, { help: string; load: () => Promise<Command> }> = {
  init: { help: 'write a randomly initialised policy', load: async () => (await import('./init')).initCommand },
  inspect: { help: 'logits, loss and per-tensor gradient norms of a checkpoint on given tokens', load: async () => (await import('./inspect')).inspectCommand },
  pretrain: { help: 'train a base policy into public/models/<preset>/', load: async () => (await import('./pretrain')).pretrainCommand },
  run: { help: 'run a loop headless, its events as JSON lines', load: async () => (await import('./run')).runCommand },
  ablate: { help: 'start/end entropy and pass@k over seeds (or table earlier --json outputs)', load: async () => (await import('./ablate')).ablateCommand },
  bench: { help: 'kernel, training and sampling benchmarks vs TF.js', load: async () => (await import('./bench')).benchCommand },
  eval: { help: 'pass@k, avg@k, maj@k of a checkpoint by sampling', load: async () => (await import('./eval')).evalCommand },
  'ttsp-targets': { help: 'MidHard / VeryHard TTSP targets by the base mean@n', load: async () => (await import('./ttsp_targets')).ttspTargetsCommand },
  sets: { help: 'list the data sets (eval --set NAME)', load: async () => (await import('./sets')).setsCommand },
  'export-onnx': { help: 'the policy as ONNX (opset 17, int32 input_ids; --with-past: the KV-cache decoder, Hugging Face names)', load: async () => (await import('./export_onnx')).exportOnnxCommand },
  'export-hf': { help: 'a Hugging Face model folder: config, safetensors, tokenizer, ONNX with past key values, README', load: async () => (await import('./export_hf')).exportHfCommand },
  'export-recipe': { help: 'a folder that runs the set-up in TRL or veRL', load: async () => (await import('./export_recipe')).exportRecipeCommand },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return ['usage: rlvr-lab <command> [flags]', '', ...Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}   ${c.help}`), '', 'rlvr-lab <command> --help lists the command\'s flags.'].join('\n');
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
      process.stdout.write(`usage: rlvr-lab ${name} ${synopsis(e.spec)}\n\n${cmd.help}\n\nflags:\n${flagUsage(e.spec)}\n`);
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

