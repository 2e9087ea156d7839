// --target on run and ablate: a loop with a target (TTSP) takes a shipped target's id
// (midhard:N, veryhard:N, from <base>/ttsp_targets.json) or a problem's text. The target list is
// read as a regular file under a cap and any damage to it is one line naming the file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './args';
import type { BaseLoopConfig } from '../loops/base_config';
import type { LoopDefinition } from '../loops/spec';
import { LOOPS, parseTargetList, resolveTarget, TARGET_LIST_FILE } from '../loops/registry';
import type { FieldSpec } from '../config/fields';
import { ConfigError } from '../util/errors';
import { readInputText } from './paths';
import { showText } from '../util/show';

/** A shipped list is a few hundred KB (512 candidates with their counts). */
const MAX_TARGETS_BYTES = 16_000_000;
/** A problem's text fits the solve prompt: a few hundred characters. */
export const MAX_TARGET_TEXT = 1000;

/** Whether a loop declares a field that holds a target problem (by the field's declared kind, not its name). */
const hasTarget = (def: LoopDefinition<BaseLoopConfig>) => Object.values(def.spec.fields as Readonly<Record<string, FieldSpec<unknown>>>).some((f) => f.type.kind === 'string' && f.type.holds === 'target');

/** --target: a shipped target's id (midhard:N, veryhard:N) or a problem's text, for a loop with a target (TTSP). */
export async function readTargetFlag(arg: string, def: LoopDefinition<BaseLoopConfig>, ckptDir: string): Promise<Record<string, unknown>> {
  if (!hasTarget(def)) throw new CliError(`--target: loop ${def.spec.name} has no target (loops with one: ${LOOPS.filter(hasTarget).map((l) => l.spec.name).join(', ')})`);
  if (arg.length > MAX_TARGET_TEXT) throw new CliError(`--target ${showText(arg)}: a problem's text is at most ${MAX_TARGET_TEXT} characters`);
  const file = join(ckptDir, TARGET_LIST_FILE);
  let list = null;
  if (existsSync(file)) {
    const text = await readInputText(`--target: the target list`, file, MAX_TARGETS_BYTES);
    try {
      list = parseTargetList(JSON.parse(text), file);
    } catch (e) {
      // a ConfigError's message names the file and the field path already
      const why = e instanceof SyntaxError ? `the target list ${showText(file)} is not JSON (${e.message.slice(0, 120)})` : e instanceof ConfigError ? `damaged target list ${e.message}` : null;
      if (why === null) throw e;
      throw new CliError(`--target: ${why}; restore it (rlvr-lab ttsp-targets writes it) or give the target's text`);
    }
  }
  try {
    return resolveTarget(arg, list);
  } catch (e) {
    throw new CliError(`--target: ${(e as Error).message}`);
  }
}
