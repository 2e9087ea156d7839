// rlvr-lab ttsp-targets: sorts the held-out TTSP candidates into MidHard and VeryHard targets by
// the base policy's per-problem pass rate, mean@n with n = 512 (LOOPS.md §6: MidHard in
// (0.1, 0.7), VeryHard in (0, 0.1]). Writes a JSON document the TTSP loop reads its targets from.
import { atMost, parseArgs, CliError } from './args';
import { checkOutputFile } from './paths';
import { writeFileAtomic } from '../model/checkpoint_node';
import { showText } from '../util/show';
import { createNodeGpu } from '../gpu/node';
import { loadSet, splitTargets } from '../world';
import { evaluateSet, whyModelCannotSolve, type EvalResult } from '../eval/evaluate';
import { loadModel, MAX_SAMPLES, positiveInt, progressBar, samplingOptions, SAMPLING_FLAGS } from './eval';

export const TTSP_CANDIDATE_SET = 'ttsp-candidates';

export interface TargetProblem {
  id: number;
  text: string;
  answer: number;
  c: number;
  n: number;
  /** mean@n: c / n */
  passRate: number;
}

export interface TtspTargets {
  set: string;
  ckpt: string;
  n: number;
  seed: number;
  temperature: number;
  topP: number;
  /** every candidate measured, in set order */
  problems: TargetProblem[];
  midHard: TargetProblem[];
  veryHard: TargetProblem[];
  /** candidates the base never solved (no target: TTSP needs some signal to start from) and always solved */
  unsolved: number;
  solved: number;
}

/** The targets document from measured counts; `problems[i]` and `result.problems[i]` are the same problem. */
export function targetsDocument(
  problems: readonly { id: number; text: string; answer: number }[],
  result: Pick<EvalResult, 'problems'>,
  meta: { ckpt: string; n: number; seed: number; temperature: number; topP: number },
): TtspTargets {
  if (problems.length !== result.problems.length) throw new Error(`ttsp-targets: ${problems.length} problems but ${result.problems.length} results`);
  const measured = problems.map((p, i) => {
    const r = result.problems[i];
    if (r.id !== p.id) throw new Error(`ttsp-targets: result ${i} is for problem ${String(r.id)}, expected ${p.id}`);
    return { ...p, c: r.c, n: r.n, passRate: r.c / r.n };
  });
  const { midHard, veryHard } = splitTargets(measured, measured.map((p) => p.passRate));
  return {
    set: TTSP_CANDIDATE_SET, ...meta, problems: measured, midHard, veryHard,
    unsolved: measured.filter((p) => p.c === 0).length,
    solved: measured.filter((p) => p.c === p.n).length,
  };
}

export async function ttspTargetsCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, { ...SAMPLING_FLAGS, n: { type: 'number', default: 512 }, out: { type: 'string', default: '' } });
  // the output path first: an evaluation of hours must not be lost to a typo in it
  if (f.out) checkOutputFile('--out', f.out);
  const n = atMost('n', positiveInt('n', f.n), MAX_SAMPLES);
  const sampling = samplingOptions(f);
  const all = loadSet(TTSP_CANDIDATE_SET);
  const limit = f.limit === undefined ? all.length : positiveInt('limit', f.limit as number);
  const problems = all.slice(0, limit).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
  const ckpt = await loadModel(f.ckpt);
  const unfit = whyModelCannotSolve(ckpt.cfg, problems);
  if (unfit) throw new CliError(`--ckpt ${f.ckpt}: ${unfit}`);
  const gpu = await createNodeGpu();
  let doc: TtspTargets;
  try {
    const params = gpu.upload(ckpt.params, 'ttsp.params');
    const bar = progressBar(TTSP_CANDIDATE_SET);
    const opts = { n, ks: [1], ...sampling };
    const result = await evaluateSet(gpu, { cfg: ckpt.cfg, table: ckpt.table, params }, problems, opts, bar.update);
    bar.end();
    doc = targetsDocument(problems, result, { ckpt: f.ckpt, n, seed: sampling.seed, temperature: sampling.temperature, topP: sampling.topP });
  } finally {
    gpu.destroy();
  }
  const json = JSON.stringify(doc, null, 1) + '\n';
  if (f.out) {
    try {
      await writeFileAtomic(f.out, json);
    } catch (e) {
      // the document is not lost: it goes to stdout instead
      process.stdout.write(json);
      throw new CliError(`--out: cannot write ${showText(f.out)} (${(e as NodeJS.ErrnoException).code}); the targets went to stdout instead`);
    }
  }
  else process.stdout.write(json);
  process.stderr.write(
    `${problems.length} candidates, mean@${n}: ${doc.midHard.length} MidHard (0.1, 0.7), ${doc.veryHard.length} VeryHard (0, 0.1], ${doc.unsolved} never solved, ${doc.solved} always solved${f.out ? ` → ${f.out}` : ''}\n`,
  );
}
