// SvS's scripted policy, shared by its CPU tests. Originals: 2 of 8 answers right (p = 1/4,
// challenging). Variants of each correct solution, by sample g: g ≡ 0 mod 4 hands the answer over
// (`a+0`, always solved), g ≡ 1 is a fair variant (`(a-1)+1`, solved 3 times in 8), g ≡ 2 has
// another value (`a+1`, answered by its own value, so wrong against the original), g ≡ 3 does not
// parse.
import type { SvsConfig } from '../../src/loops/svs/config';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { LoopEvent } from '../../src/loops/events';
import { evaluate, parseExpr } from '../../src/world/index';
import { scriptedEngine, type Script, type ScriptedEngine } from './scriptedEngine';

export const problemOf = (prompt: string) => prompt.replace(/^<bos><solve>/, '').replace(/=$/, '');

export const valueOf = (text: string) => {
  const p = parseExpr(text);
  const v = p.ok ? evaluate(p.expr) : null;
  return v?.ok ? v.value : NaN;
};

export const script: Script = (prompt, role, g, dataType) => {
  if (role === 'vary') {
    const a = Number(/#(-?\d+)<sep>$/.exec(prompt)?.[1]);
    return [`${a}+0`, `${a - 1}+1`, `${a + 1}`, '(('][g % 4];
  }
  const text = problemOf(prompt);
  const v = valueOf(text);
  if (dataType === 'oqa') return g < 2 ? `#${v}` : `#${v + 7}`;
  if (/^\d+\+0$/.test(text)) return `#${v}`; // leaking: always solved
  if (/^\d+\+1$/.test(text)) return g < 3 ? `#${v}` : `#${v + 7}`; // fair: 3 of 8
  return `#${v}`; // another value: its own, wrong against the original
};

/** The run's config: the defaults of these tests, then `config`. */
export function svsConfig(config: Partial<SvsConfig> & Record<string, unknown>): SvsConfig {
  return loopNamed('svs').spec.validate({ steps: 1, problemsPerStep: 2, evalProblems: 1, evalN: 1, trainProblems: 64, samplesPerStep: 2, ...config }) as SvsConfig;
}

/** Runs SvS on the scripted policy (or on `engine`); the events without boundaries, the first step, its records, and every step. */
export async function runScripted(config: Partial<SvsConfig> & Record<string, unknown>, s: Script = script, engine: ScriptedEngine = scriptedEngine(s)) {
  const events: LoopEvent[] = [];
  for await (const e of driveLoop(loopNamed('svs'), engine, svsConfig(config))) if (e.type !== 'boundary' && e.type !== 'phase') events.push(e);
  const steps = events.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
  const records = (events.find((e) => e.type === 'records') as Extract<LoopEvent, { type: 'records' }> | undefined)?.records ?? [];
  return { engine, step: steps[0], steps, records, events };
}
