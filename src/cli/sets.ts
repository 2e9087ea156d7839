// rlvr-lab sets: the named data sets of the world, for `eval --set NAME`.
import { parseArgs } from './args';
import { listSets } from '../world';
import { DEFAULT_EVAL_SET } from './eval';

export async function setsCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, { json: { type: 'boolean', default: false } });
  const sets = listSets();
  if (f.json) {
    process.stdout.write(JSON.stringify(sets.map((s) => ({ ...s, evalDefault: s.name === DEFAULT_EVAL_SET }))) + '\n');
    return;
  }
  const width = Math.max(...sets.map((s) => s.name.length));
  const lines = sets.map((s) => {
    const mark = s.name === DEFAULT_EVAL_SET ? '  (eval default)' : '';
    return `${s.name.padEnd(width)}  ${String(s.size).padStart(5)}  ${s.heldOut ? 'held-out' : 'train   '}  ${s.description}${mark}`;
  });
  process.stdout.write([`${'name'.padEnd(width)}   size  split     description`, ...lines].join('\n') + '\n');
}
