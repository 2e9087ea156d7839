// The scripts' flags: src/cli's strict parser (unknown flags, missing values and bad numbers are
// errors) with their run files or gallery ids as positionals, and `--help` printing the usage.
import { flagUsage, HelpRequest, readArgs, type FlagSpec } from '../src/cli/args';

export function scriptArgs<S extends FlagSpec>(spec: S, usage: string, argv = process.argv.slice(2)): ReturnType<typeof readArgs<S>> {
  try {
    return readArgs(argv, spec, { positionals: true });
  } catch (e) {
    if (!(e instanceof HelpRequest)) throw e;
    process.stdout.write(`${usage}\n${flagUsage(spec)}\n`);
    process.exit(0);
  }
}
