// An ablation's --json output read back (--from-json, --match-tokens): the file may be any JSON,
// so it is checked whole by the explorer's schema of the same format (src/explore/format.ts), and
// the first problem is one line naming the file and the field (a result without its end
// evaluation once gave a TypeError).
import * as v from 'valibot';
import { CliError } from './args';
import { AblationSchema, type SweepEval } from '../explore/format';
import { issueLine } from '../util/valibot';
import { showValue } from '../util/show';
import type { SeedResult } from './ablate';

export { MAX_SEEDS } from '../explore/format';
export const MAX_ABLATION_JSON_BYTES = 64 * 1024 * 1024;

const HINT = "(is it an ablation's --json output?)";

// JSON writes a NaN metric (a run that never reported it) as null: it reads back as NaN
const figures = (o: Readonly<Record<string, number | null>>): Record<string, number> => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, x ?? NaN]));

function evalEvent(e: SweepEval): SeedResult['start'] {
  return {
    ...e,
    passAtK: figures(e.passAtK), avgAtK: figures(e.avgAtK ?? {}), majAtK: figures(e.majAtK ?? {}),
    meanEntropy: e.meanEntropy ?? NaN, meanLength: e.meanLength ?? NaN, histogram: e.histogram ?? [],
  };
}

/** The document's loop, base and seed results, each checked; `where` names the file in errors. */
export function checkSavedAblation(doc: Record<string, unknown>, where: string): { loop: string; base: string; results: SeedResult[] } {
  const r = v.safeParse(AblationSchema, doc);
  if (!r.success) throw new CliError(`${where}: ${issueLine(r.issues)} ${HINT}`);
  const { loop, base, results } = r.output;
  results.forEach((x, i) => (['start', 'end'] as const).forEach((at) => {
    // the tables compare pass@1 of every seed
    if (!Object.hasOwn(x[at].passAtK, '1')) throw new CliError(`${where}: results[${i}].${at}.passAtK: expected pass@k with k = 1 among them, got ${showValue(x[at].passAtK)} ${HINT}`);
  }));
  return {
    loop, base,
    results: results.map((x): SeedResult => ({
      seed: x.seed, start: evalEvent(x.start), end: evalEvent(x.end), steps: x.steps, generatedTokens: x.generatedTokens, seconds: x.seconds,
      report: figures(x.report), ...(x.halted === undefined ? {} : { halted: x.halted }),
      ...(x.series === undefined ? {} : { series: x.series }), ...(x.evals === undefined ? {} : { evals: x.evals.map(evalEvent) }),
      ...(x.crossPlay === undefined ? {} : { crossPlay: x.crossPlay }),
    })),
  };
}
