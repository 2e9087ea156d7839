// A run that starts from saved adapter sets (a TTSP run continued from another's exported
// adapters): the loop's sets (LoopSpec.shape) take the saved values as their starting point, by
// name, and must have the same rank and α.
import type { AdapterSetInit } from './engine';
import { sameShape, specTargets, type LoraSpec } from '../model/lora';

export interface AdapterStart {
  spec: LoraSpec;
  params: Float32Array;
}

export function withStartAdapters(loop: string, sets: readonly AdapterSetInit[] | undefined, starts: readonly AdapterStart[] | undefined): AdapterSetInit[] | undefined {
  if (!starts?.length) return sets ? [...sets] : undefined;
  if (!sets?.length) throw new Error(`${loop} trains no adapter sets, so it cannot start from saved ones (${starts.map((s) => s.spec.name).join(', ')})`);
  for (const s of starts) {
    const set = sets.find((x) => x.spec.name === s.spec.name);
    if (!set) throw new Error(`${loop} has no adapter set named "${s.spec.name}" (its sets: ${sets.map((x) => x.spec.name).join(', ')})`);
    if (!sameShape(set.spec, s.spec)) {
      const what = (x: LoraSpec) => `rank ${x.rank}, α ${x.alpha} and targets ${specTargets(x).join(' ')}`;
      throw new Error(`saved adapter "${s.spec.name}" has ${what(s.spec)}, the run's set ${what(set.spec)}: set the config's rank, α and targets to the saved ones`);
    }
  }
  return sets.map((set) => {
    const s = starts.find((x) => x.spec.name === set.spec.name);
    return s ? { ...set, init: s.params } : set;
  });
}
