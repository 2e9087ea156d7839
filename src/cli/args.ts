// A small, strict flag parser: `--name value` and boolean `--flag`; unknown flags are errors.
export class CliError extends Error {
  override name = 'CliError';
}

export interface FlagSpec {
  [name: string]: { type: 'string' | 'number' | 'boolean'; default?: string | number | boolean; required?: boolean; help?: string };
}

export type Flags<S extends FlagSpec> = { [K in keyof S]: S[K]['type'] extends 'number' ? number : S[K]['type'] extends 'boolean' ? boolean : string };

export function parseArgs<S extends FlagSpec>(argv: string[], spec: S): Flags<S> {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const [k, s] of Object.entries(spec)) out[k] = s.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new CliError(`unexpected argument '${arg}'`);
    const [rawName, inline] = arg.slice(2).split('=', 2);
    const s = spec[rawName];
    if (!s) throw new CliError(`unknown flag --${rawName} (known: ${Object.keys(spec).map((k) => '--' + k).join(', ')})`);
    if (s.type === 'boolean') {
      out[rawName] = inline === undefined ? true : inline !== 'false';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new CliError(`--${rawName} needs a value`);
    if (s.type === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new CliError(`--${rawName} must be a number, got '${value}'`);
      out[rawName] = n;
    } else out[rawName] = value;
  }
  for (const [k, s] of Object.entries(spec)) if (s.required && out[k] === undefined) throw new CliError(`--${k} is required`);
  return out as Flags<S>;
}
