// `--corpus FILE`: a corpus file for a loop that reads documents (one per line). The loop's own
// validator judges it, so a bad file is refused before any GPU work with its bad lines named.
import { readInputText } from './paths';
import { corpusRefusal, corpusTextProblem, MAX_CORPUS_BYTES } from '../config/corpusFile';
import { showText } from '../util/show';
import { CliError } from './args';
import { ConfigError } from '../util/errors';
import type { BaseLoopConfig } from '../loops/base_config';
import type { LoopDefinition } from '../loops/spec';

/** The file's text as the loop's `corpus` field, or a CliError saying what is wrong and where. */
export async function readCorpusFlag(path: string, def: LoopDefinition<BaseLoopConfig>): Promise<string> {
  if (!Object.hasOwn(def.spec.fields, 'corpus')) throw new CliError(`--corpus: the ${def.spec.name} loop reads no corpus`);
  const text = await readInputText('--corpus', path, MAX_CORPUS_BYTES);
  const notCorpus = corpusTextProblem(`--corpus ${showText(path)}`, text);
  if (notCorpus) throw new CliError(notCorpus);
  try {
    def.spec.validate({ corpus: text }, 'corpus');
  } catch (e) {
    // the bad lines are the user's bytes: escaped, and the whole line kept short
    if (e instanceof ConfigError) throw new CliError(`--corpus ${corpusRefusal(path, e.message)}`);
    throw e;
  }
  return text;
}
