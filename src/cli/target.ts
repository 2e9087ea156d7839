// --target on run and ablate: a loop with a target (TTSP) takes a shipped target's id
// (midhard:N, veryhard:N, from <base>/ttsp_targets.json) or a problem's text.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './args';
import type { BaseLoopConfig } from '../loops/base_config';
import type { LoopDefinition } from '../loops/spec';
import { parseTargetList, resolveTarget } from '../loops/ttsp/targets';

/** --target: a shipped target's id (midhard:N, veryhard:N) or a problem's text, for a loop with a target (TTSP). */
export async function readTargetFlag(arg: string, def: LoopDefinition<BaseLoopConfig>, ckptDir: string): Promise<Record<string, unknown>> {
  if (!('target' in def.spec.fields)) throw new CliError(`--target: loop ${def.spec.name} has no target (TTSP has)`);
  const file = join(ckptDir, 'ttsp_targets.json');
  const list = existsSync(file) ? parseTargetList(JSON.parse(await readFile(file, 'utf8')), file) : null;
  try {
    return resolveTarget(arg, list);
  } catch (e) {
    throw new CliError(`--target: ${(e as Error).message}`);
  }
}

