// A small YAML writer for the recipes' configs: block mappings, every scalar written as its JSON
// literal (strings double-quoted, which YAML reads the same), lists in flow style. Floats always
// carry a '.' and a signed exponent ("1.0e-07"): YAML 1.1 readers (PyYAML, which transformers'
// HfArgumentParser uses) read "1e-7" as a string.
export type YamlValue = string | number | boolean | null | readonly YamlValue[] | { readonly [k: string]: YamlValue };

/** A comment line above a key: `{ '#': 'text' }` entries are written as comments, in place. */
export const COMMENT = '#';

export function yamlNumber(v: number): string {
  if (!Number.isFinite(v)) throw new Error(`yaml: ${v} has no YAML form here`);
  const s = String(v);
  if (!/e/i.test(s)) return s;
  const [mant, exp] = s.split(/e/i);
  return `${mant.includes('.') ? mant : `${mant}.0`}e${exp.startsWith('-') || exp.startsWith('+') ? exp : `+${exp}`}`;
}

function scalar(v: YamlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return yamlNumber(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(scalar).join(', ')}]`;
  throw new Error('yaml: a mapping inside a flow list is not written here');
}

const isMap = (v: YamlValue): v is { readonly [k: string]: YamlValue } => typeof v === 'object' && v !== null && !Array.isArray(v);

function lines(obj: { readonly [k: string]: YamlValue }, indent: string, out: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    if (k.startsWith(COMMENT)) {
      out.push(`${indent}# ${String(v)}`);
      continue;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(k)) throw new Error(`yaml: key ${JSON.stringify(k)} is not a plain key`);
    if (isMap(v)) {
      out.push(`${indent}${k}:`);
      lines(v, indent + '  ', out);
    } else out.push(`${indent}${k}: ${scalar(v)}`);
  }
}

export function toYaml(obj: { readonly [k: string]: YamlValue }, header: readonly string[] = []): string {
  const out = header.map((h) => `# ${h}`);
  lines(obj, '', out);
  return out.join('\n') + '\n';
}
