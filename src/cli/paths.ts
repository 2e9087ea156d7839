// The file system's answers checked before a command works: an output's folder exists and the
// output is not a folder; an input is a regular file (a FIFO would block its read forever, a
// folder fails with EISDIR) no larger than its cap, read whole only then (a 1 GiB config.json
// would take a gigabyte of memory to fail); a folder to create is made one level at a time
// (Node's recursive mkdir loops forever under /proc).
import { mkdirSync, statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CliError } from './args';
import { showText } from '../util/show';

const statOf = (p: string): Stats | null => {
  try {
    return statSync(p);
  } catch {
    return null;
  }
};

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e6 ? 3 : 0)} MB`;

/** An output file: not a folder, in a folder that exists. */
export function checkOutputFile(flag: string, path: string): void {
  const st = statOf(path);
  if (st?.isDirectory()) throw new CliError(`${flag} ${showText(path)} is a directory; give a file`);
  if (st && !st.isFile()) throw new CliError(`${flag} ${showText(path)} is not a regular file`);
  const folder = dirname(resolve(path));
  if (!statOf(folder)?.isDirectory()) throw new CliError(`${flag} ${showText(path)}: the folder ${showText(folder)} does not exist`);
}

/** A regular file's whole text, refused past `maxBytes` before it is read. */
export async function readInputText(flag: string, path: string, maxBytes: number): Promise<string> {
  const st = statOf(path);
  if (!st) throw new CliError(`${flag}: cannot read ${showText(path)} (ENOENT)`);
  if (st.isDirectory()) throw new CliError(`${flag} ${showText(path)} is a directory; give a file`);
  if (!st.isFile()) throw new CliError(`${flag} ${showText(path)} is not a regular file (a pipe or a device would be read without end)`);
  if (st.size > maxBytes) throw new CliError(`${flag} ${showText(path)} is ${mb(st.size)}; the limit is ${mb(maxBytes)}`);
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`${flag}: cannot read ${showText(path)} (${(e as NodeJS.ErrnoException).code})`);
  }
}

/**
 * Makes `dir` and its missing parents one level at a time; the first existing ancestor must be a
 * folder. Node's `mkdir -p` retries a parent that claims not to exist (under /proc) forever.
 */
export function makeDirectory(flag: string, dir: string): void {
  for (const d of missingDirectories(flag, dir)) {
    try {
      mkdirSync(d);
    } catch (e) {
      throw new CliError(`${flag}: cannot create ${showText(d)} (${(e as NodeJS.ErrnoException).code})`);
    }
  }
}

/** The folders makeDirectory would create, outermost first; throws when an existing one on the way is a file. */
export function missingDirectories(flag: string, dir: string): string[] {
  if (dir.trim() === '') throw new CliError(`${flag} is empty: give a folder`);
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const st = statOf(at);
    if (st) {
      if (!st.isDirectory()) throw new CliError(`${flag} ${showText(dir)}: ${showText(at)} is not a directory`);
      break;
    }
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  return missing;
}

/** A config file is small: 1 MB holds any config (a corpus goes in --corpus). */
export const MAX_CONFIG_BYTES = 1_000_000;

/** A JSON file that must hold an object (a config): refused as a whole when it is anything else. */
export async function readJsonObject(flag: string, path: string, maxBytes = MAX_CONFIG_BYTES): Promise<Record<string, unknown>> {
  const text = await readInputText(flag, path, maxBytes);
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw new CliError(`${flag}: ${showText(path)} is not JSON (${(e as Error).message.slice(0, 120)})`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new CliError(`${flag}: ${showText(path)} holds ${obj === null ? 'null' : Array.isArray(obj) ? 'a list' : `a ${typeof obj}`}, not a JSON object of settings`);
  }
  return obj as Record<string, unknown>;
}
