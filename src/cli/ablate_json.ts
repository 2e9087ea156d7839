// An ablation's --json output read back (--from-json, --match-tokens): the file may be any JSON,
// so every field the tables read is checked, and the first problem is one line naming the file
// and the field (a result without its end evaluation once gave a TypeError).
import { CliError } from './args';
import { showValue } from '../util/show';
import type { SeedResult } from './ablate';

/** A thousand seeds of a hundred evaluations is far past any ablation here. */
export const MAX_SEEDS = 1000;
export const MAX_ABLATION_JSON_BYTES = 64 * 1024 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(where: string, path: string, v: unknown, want: string): never {
  throw new CliError(`${where}: ${path} = ${showValue(v)}: must be ${want} (is it an ablation's --json output?)`);
}

// JSON writes a NaN metric (a run that never reported it) as null: it reads back as NaN
const figure = (v: unknown, where: string, path: string): number => (v === null ? NaN : typeof v === 'number' ? v : fail(where, path, v, 'a number'));
const count = (v: unknown, where: string, path: string): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fail(where, path, v, 'a non-negative integer'));

function figures(v: unknown, where: string, path: string): Record<string, number> {
  if (!isObject(v)) fail(where, path, v, 'an object of numbers');
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, figure(x, where, `${path}.${k}`)]));
}

function evalEvent(v: unknown, where: string, path: string): SeedResult['start'] {
  if (!isObject(v)) fail(where, path, v, 'an evaluation');
  const passAtK = figures(v.passAtK, where, `${path}.passAtK`);
  if (!Object.hasOwn(passAtK, '1')) fail(where, `${path}.passAtK`, v.passAtK, 'pass@k with k = 1 among them');
  if (typeof v.set !== 'string') fail(where, `${path}.set`, v.set, 'the name of a set');
  const correct = v.correct;
  if (correct !== undefined && !(Array.isArray(correct) && correct.every((c) => typeof c === 'number'))) fail(where, `${path}.correct`, correct, 'a list of counts');
  if (v.n !== undefined) count(v.n, where, `${path}.n`);
  return {
    ...(v as object),
    type: 'eval', step: count(v.step, where, `${path}.step`), set: v.set, passAtK,
    avgAtK: v.avgAtK === undefined ? {} : figures(v.avgAtK, where, `${path}.avgAtK`), majAtK: v.majAtK === undefined ? {} : figures(v.majAtK, where, `${path}.majAtK`),
    meanEntropy: figure(v.meanEntropy, where, `${path}.meanEntropy`), meanLength: v.meanLength === undefined ? NaN : figure(v.meanLength, where, `${path}.meanLength`),
  } as SeedResult['start'];
}

/** The document's loop, base and seed results, each checked; `where` names the file in errors. */
export function checkSavedAblation(doc: Record<string, unknown>, where: string): { loop: string; base: string; results: SeedResult[] } {
  if (typeof doc.loop !== 'string') fail(where, 'loop', doc.loop, "the loop's name");
  if (typeof doc.base !== 'string') fail(where, 'base', doc.base, "the base policy's folder");
  if (!Array.isArray(doc.results)) fail(where, 'results', doc.results, 'a list of seed results');
  if (doc.results.length > MAX_SEEDS) fail(where, 'results.length', doc.results.length, `at most ${MAX_SEEDS}`);
  const results = doc.results.map((r, i): SeedResult => {
    const at = `results[${i}]`;
    if (!isObject(r)) fail(where, at, r, 'a seed result');
    if (r.halted !== undefined && typeof r.halted !== 'string') fail(where, `${at}.halted`, r.halted, 'why the run halted');
    return {
      seed: count(r.seed, where, `${at}.seed`), start: evalEvent(r.start, where, `${at}.start`), end: evalEvent(r.end, where, `${at}.end`),
      steps: count(r.steps, where, `${at}.steps`), generatedTokens: count(r.generatedTokens, where, `${at}.generatedTokens`), seconds: figure(r.seconds, where, `${at}.seconds`),
      report: r.report === undefined ? {} : figures(r.report, where, `${at}.report`), ...(typeof r.halted === 'string' ? { halted: r.halted } : {}),
    };
  });
  return { loop: doc.loop, base: doc.base, results };
}
