// A small, strict flag parser: `--name value` and boolean `--flag` (or `--flag=true|false`);
// unknown flags are errors. Value checkers shared by the commands follow it.
import { showText } from '../util/show';
export class CliError extends Error {
  override name = 'CliError';
}

export interface FlagSpec {
  [name: string]: { type: 'string' | 'number' | 'boolean'; default?: string | number | boolean; required?: boolean; help?: string };
}

export type Flags<S extends FlagSpec> = { [K in keyof S]: S[K]['type'] extends 'number' ? number : S[K]['type'] extends 'boolean' ? boolean : string };

export function parseArgs<S extends FlagSpec>(argv: string[], spec: S): Flags<S> {
  return readArgs(argv, spec).flags;
}

/** `--help` (or `-h`) on a command: main prints the usage made from `spec` on stdout and exits 0. */
export class HelpRequest extends Error {
  override name = 'HelpRequest';
  constructor(readonly spec: FlagSpec) {
    super('help');
  }
}

/** `--ckpt <string> --out <string> [flags]`: the required flags, then the rest as `[flags]`. */
export function synopsis(spec: FlagSpec): string {
  const required = Object.entries(spec).filter(([, s]) => s.required).map(([name, s]) => `--${name} <${s.type}>`);
  const optional = Object.values(spec).some((s) => !s.required);
  return [...required, ...(optional ? ['[flags]'] : [])].join(' ');
}

/** The flags of a spec, one a line, for `<command> --help`. */
export function flagUsage(spec: FlagSpec): string {
  return Object.entries(spec).map(([name, s]) => {
    const value = s.type === 'boolean' ? '' : ` <${s.type}>`;
    const dflt = s.required ? 'required' : s.default !== undefined && s.default !== '' ? `default ${JSON.stringify(s.default)}` : '';
    return `  --${name}${value}${dflt ? `   (${dflt})` : ''}${s.help ? `   ${s.help}` : ''}`;
  }).join('\n');
}

// decimal only: Number() would also read 0x10 as 16, 0b1 and 1_0 are JavaScript's, Infinity is no count
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * parseArgs, plus the names of the flags the command line gave (not their defaults). The rules:
 * a flag is given at most once; a value is never empty and never starts with `--` (write
 * `--target=--x` for text that does); numbers are decimal; `--help` prints the usage.
 */
export function readArgs<S extends FlagSpec>(argv: string[], spec: S, opts: { positionals?: boolean } = {}): { flags: Flags<S>; given: ReadonlySet<string>; positionals: string[] } {
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequest(spec);
  const out: Record<string, string | number | boolean | undefined> = {};
  const given = new Set<string>();
  const positionals: string[] = [];
  for (const [k, s] of Object.entries(spec)) out[k] = s.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      // a command that takes files (the scripts' run files) keeps them in order; the others refuse them
      if (opts.positionals) {
        positionals.push(arg);
        continue;
      }
      throw new CliError(`unexpected argument ${showText(arg)}`);
    }
    // split at the first '=' only: a value may hold '=' itself
    const eq = arg.indexOf('=');
    const rawName = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (!Object.hasOwn(spec, rawName)) throw new CliError(`unknown flag --${showText(rawName)} (known: ${Object.keys(spec).map((k) => '--' + k).join(', ')})`);
    const s = spec[rawName];
    if (given.has(rawName)) throw new CliError(`--${rawName} is given twice; give it once`);
    given.add(rawName);
    if (s.type === 'boolean') {
      out[rawName] = booleanValue(rawName, inline);
      continue;
    }
    const next = inline === undefined ? argv[++i] : undefined;
    if (next !== undefined && next.startsWith('--')) throw new CliError(`--${rawName} needs a value, but the next argument is the flag ${showText(next)} (for a value that starts with --, write --${rawName}=VALUE)`);
    const value = inline ?? next;
    if (value === undefined) throw new CliError(`--${rawName} needs a value`);
    if (value.trim() === '') throw new CliError(`--${rawName} is empty: give it a value, or leave the flag out`);
    if (s.type === 'number') {
      if (!DECIMAL.test(value.trim()) || !Number.isFinite(Number(value))) throw new CliError(`--${rawName} must be a decimal number, got ${showText(value)}`);
      out[rawName] = Number(value);
    } else out[rawName] = value;
  }
  for (const [k, s] of Object.entries(spec)) if (s.required && out[k] === undefined) throw new CliError(`--${k} is required`);
  return { flags: out as Flags<S>, given, positionals };
}

/** `--flag` is true; `--flag=true` and `--flag=false` say so; anything else is a mistake, not true. */
function booleanValue(name: string, inline: string | undefined): boolean {
  if (inline === undefined || inline === 'true') return true;
  if (inline === 'false') return false;
  throw new CliError(`--${name} is a switch: give it alone or as --${name}=true / --${name}=false, got ${showText(inline)}`);
}

export function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new CliError(`--${name} must be a positive integer, got ${v}`);
  return v;
}

export function nonNegativeInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 0) throw new CliError(`--${name} must be a non-negative integer, got ${v}`);
  return v;
}

/** A count's upper bound, one a 2-core laptop and a GPU can both live with. */
export function atMost(name: string, v: number, max: number): number {
  if (v > max) throw new CliError(`--${name} must be at most ${max}, got ${v}`);
  return v;
}

/** A learning rate: above zero and below 1 (AdamW moves each weight by about lr a step), as the loops' configs require. */
export function learningRate(name: string, v: number): number {
  if (!(Number.isFinite(v) && v > 0 && v < 1)) throw new CliError(`--${name} must be a learning rate above 0 and below 1, got ${v}`);
  return v;
}

/** Seeds feed u32 generators: a larger value would silently wrap to another seed. */
export function seedFlag(v: number): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new CliError(`--seed must be an integer in [0, 2^32), got ${v}`);
  return v;
}
