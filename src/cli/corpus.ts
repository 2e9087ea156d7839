// `--corpus FILE`: a corpus file for a loop that reads documents (one per line). The loop's own
// validator judges it, so a bad file is refused before any GPU work with its bad lines named.
import { readFile } from 'node:fs/promises';
import { CliError } from './args';
import { ConfigError } from '../model/config';
import type { BaseLoopConfig } from '../loops/base_config';
import type { LoopDefinition } from '../loops/spec';

/** The file's text as the loop's `corpus` field, or a CliError saying what is wrong and where. */
export async function readCorpusFlag(path: string, def: LoopDefinition<BaseLoopConfig>): Promise<string> {
  if (!Object.hasOwn(def.spec.fields, 'corpus')) throw new CliError(`--corpus: the ${def.spec.name} loop reads no corpus`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`--corpus: cannot read ${path} (${(e as NodeJS.ErrnoException).code})`);
  }
  if (text.trim() === '') throw new CliError(`--corpus ${path} is empty: a corpus file holds one document a line, e.g. a=7;b=a+5;c=b*3`);
  try {
    def.spec.validate({ corpus: text }, 'corpus');
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(`--corpus ${path}: ${e.message.replace(/^corpus\.corpus(?: = .*?)?: /s, '')}`);
    throw e;
  }
  return text;
}
