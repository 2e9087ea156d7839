// Which input a launcher field gets, from what its declaration says it holds, never from its
// name: a new loop's field named `target` or `corpus` is a plain string unless it declares
// `holds: 'target'` (TTSP's target picker) or `holds: 'corpus'` (the corpus upload).
import type { Field } from '../config/fields';
import { listSets } from '../world/index';

export type Widget =
  | { kind: 'corpus' }
  | { kind: 'target' }
  | { kind: 'checkbox' }
  | { kind: 'select'; choices: readonly string[] }
  | { kind: 'text' };

export function widgetOf(field: Field): Widget {
  if (field.kind === 'boolean') return { kind: 'checkbox' };
  if (field.kind === 'enum') return { kind: 'select', choices: field.choices };
  if (field.kind !== 'string') return { kind: 'text' };
  switch (field.holds) {
    case 'corpus':
      return { kind: 'corpus' };
    case 'target':
      return { kind: 'target' };
    case 'train-set':
    case 'eval-set': {
      const heldOut = field.holds === 'eval-set';
      return { kind: 'select', choices: listSets().filter((s) => s.heldOut === heldOut).map((s) => s.name) };
    }
    default:
      return { kind: 'text' };
  }
}
