// The model card of a base policy: its data recipe, training summary, and measured base
// metrics per role (sampled with the KV-cache decoder, checked by the world's parsers and
// interpreter), so every loop knows what it starts from.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Gpu } from '../gpu/runtime';
import type { GPTConfig } from '../model/config';
import type { TensorTable } from '../model/params';
import { Decoder, type GenerateOpts } from '../model/decoder';
import {
  EOS, ROLE_LIMITS, ROLES, conceptKey, conceptsOf, loadSet, makeRng, parseChallenge, parsePropose, parseTeach, parseVary,
  responseText, sampleExample, type Example, type ExampleOptions, type ParseFailure, type Role,
} from '../world/index';
import type { PretrainConfig, PretrainState } from './run';
import { evaluateSet, type EvalModel } from '../eval/evaluate';

const B = 64;

/** Samples one response per prompt (in batches of B), as text before EOS. */
async function sampleTexts(dec: Decoder, prompts: number[][], opts: GenerateOpts): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < prompts.length; i += dec.B) {
    const chunk = prompts.slice(i, i + dec.B);
    const padded = [...chunk, ...Array.from({ length: dec.B - chunk.length }, () => chunk[0])];
    const g = await dec.generate(padded, { ...opts, seed: opts.seed + i });
    for (let b = 0; b < chunk.length; b++) {
      const start = b * dec.Tmax + g.promptLen[b];
      out.push(responseText(g.tokens.subarray(start, start + g.responseLen[b])).text);
    }
  }
  return out;
}

async function solveMetrics(gpu: Gpu, model: EvalModel, n: number, seed: number): Promise<Record<string, { pass1: number; passN: number; problems: number }>> {
  const res: Record<string, { pass1: number; passN: number; problems: number }> = {};
  for (let ops = 1; ops <= 4; ops++) {
    const problems = loadSet(`eval-ops${ops}`).slice(0, 32).map((p, i) => ({ id: i, text: p.text, answer: p.answer }));
    const r = await evaluateSet(gpu, model, problems, { n, ks: [1, n], seed: seed + ops, batch: B });
    res[`ops${ops}`] = { pass1: r.passAtK[1], passN: r.passAtK[n], problems: problems.length };
  }
  return res;
}

/** Parse rate and the role's true-validity diagnostic on prompts drawn like pretraining's. */
async function roleMetrics(dec: Decoder, role: Exclude<Role, 'solve'>, count: number, seed: number, opts: ExampleOptions = {}): Promise<Record<string, number>> {
  const rng = makeRng(seed);
  const examples = Array.from({ length: count }, (_, i) => sampleExample(rng, role, 1 + (i % 3), opts));
  const prompts = examples.map((e) => e.prompt);
  const texts = await sampleTexts(dec, prompts, { temperature: 1, topK: 0, topP: 1, seed, eosToken: EOS, maxNew: ROLE_LIMITS[role].response });
  return scoreRole(role, examples, texts);
}

/** Propose failures of a well-formed proposal whose reference solution does not check. */
const TRACE_CHECK_FAILURES: ReadonlySet<ParseFailure> = new Set(['step_not_in_problem', 'wrong_step', 'incomplete_trace', 'answer_mismatch']);

/** The role's parse rate and validity diagnostic of `texts`, the responses to `examples`' prompts. */
export function scoreRole(role: Exclude<Role, 'solve'>, examples: readonly Example[], texts: readonly string[]): Record<string, number> {
  if (examples.length !== texts.length) throw new Error(`scoreRole: ${examples.length} examples but ${texts.length} responses`);
  const count = texts.length;
  let parsed = 0, valid = 0;
  const concepts = new Set<string>();
  texts.forEach((t, i) => {
    if (role === 'vary') {
      const r = parseVary(t);
      if (!r.ok) return;
      parsed++;
      // the gold variant has the original problem's value (the prompt carries it only inside its trace)
      const gold = parseVary(responseText(examples[i].response).text);
      if (gold.ok && r.value.problem.oracleValue === gold.value.problem.oracleValue) valid++;
    } else if (role === 'challenge') {
      const r = parseChallenge(t);
      if (!r.ok) return;
      parsed++;
      if (r.value.gold === r.value.question.oracleValue) valid++;
    } else if (role === 'teach') {
      const r = parseTeach(t);
      if (!r.ok) return;
      parsed++;
      valid++;
      concepts.add(conceptKey(conceptsOf(r.value.problem.expr)));
    } else {
      // parsed: a problem and a well-formed trace; valid: the trace also checks step by step
      const r = parsePropose(t);
      if (r.ok || TRACE_CHECK_FAILURES.has(r.reason)) parsed++;
      if (r.ok) valid++;
    }
  });
  const out: Record<string, number> = { samples: count, parseRate: parsed / count };
  if (role === 'vary') out.trueSameAnswerRate = valid / count;
  if (role === 'challenge') out.goldAccuracy = parsed ? valid / parsed : 0;
  if (role === 'teach') {
    out.legalRate = parsed / count;
    out.distinctConcepts = concepts.size;
  }
  if (role === 'propose') out.validRate = valid / count;
  return out;
}

/**
 * Solve pass@1 on the RL training distribution: the held-out per-level rates weighted by how
 * many problems of each operation count the `train` set holds.
 */
export function trainWeighted(solve: Record<string, { pass1: number }>): { pass1: number; weights: Record<string, number> } {
  const counts: Record<string, number> = {};
  for (const p of loadSet('train')) counts[`ops${p.concepts.ops}`] = (counts[`ops${p.concepts.ops}`] ?? 0) + 1;
  const total = Object.values(counts).reduce((a, c) => a + c, 0);
  const weights: Record<string, number> = {};
  let pass1 = 0;
  for (const [k, c] of Object.entries(counts)) {
    if (!solve[k]) throw new Error(`trainWeighted: no solve metrics for ${k}`);
    weights[k] = +(c / total).toFixed(4);
    pass1 += (c / total) * solve[k].pass1;
  }
  return { pass1, weights };
}

function recipeText(pc: PretrainConfig): string {
  const rows = pc.pack === false ? 'one per row' : 'packed whole back to back in each row';
  const w = pc.promptWeight;
  const loss = w > 0 ? `loss on response tokens and, at weight ${w}, on prompt tokens after the role token through the prompt's first <sep> (not a propose prompt's earlier proposals)` : 'loss on response tokens';
  return `gold examples of every role from src/world (sampleExample), ${rows}, ${loss}; vary prompts show the solution alone 2 times in 3 (SvS's format) and the problem before it otherwise (the variantContext ablation); propose prompts show 0-3 earlier problems (TTSP's contextProblems)`;
}

export async function writeCard(
  gpu: Gpu, dir: string, cfg: GPTConfig, table: TensorTable, params: Float32Array, pc: PretrainConfig, state: PretrainState, n: number,
): Promise<{ summary: string }> {
  const paramsBuf = gpu.upload(params, 'card.params');
  const dec = await Decoder.create(gpu, cfg, table, paramsBuf, { B, Tmax: cfg.nPositions });
  const solve = await solveMetrics(gpu, { cfg, table, params: paramsBuf }, n, pc.seed + 17);
  const roles: Record<string, Record<string, number>> = {};
  for (const role of ROLES) {
    if (role === 'vary') {
      // SvS's format (the solution alone) and its ablation's (the problem before it), each measured
      roles.vary = await roleMetrics(dec, role, 128, pc.seed + 31, { varyContext: 'solution' });
      roles.varyWithProblem = await roleMetrics(dec, role, 128, pc.seed + 31, { varyContext: 'problem+solution' });
    } else if (role !== 'solve') roles[role] = await roleMetrics(dec, role, 128, pc.seed + 31);
  }
  const hist = state.history;
  const card = {
    model: { ...cfg, params: table.tensors.reduce((a, t) => a + t.size, 0) },
    data: { recipe: recipeText(pc), mix: pc.mix, curriculum: pc.curriculum, promptWeight: pc.promptWeight },
    training: {
      seed: pc.seed, steps: state.step, maxSteps: pc.steps, batchSize: pc.batchSize, seqLen: pc.seqLen, lr: pc.lr, warmup: pc.warmup,
      weightDecay: pc.weightDecay, responseTokensSeen: state.tokensSeen, adapter: gpu.adapterName,
      loss: { first: hist[0] ?? null, last: hist[hist.length - 1] ?? null, bestHeldOut: state.bestEvalLoss, curve: hist.map((h) => [h.step, +h.trainLoss.toFixed(4), +h.evalLoss.toFixed(4)]) },
    },
    metrics: { sampling: { temperature: 1, samplesPerProblem: n }, solve, solveOnTrainingSet: trainWeighted(solve), ...roles },
  };
  await writeFile(join(dir, 'card.json'), JSON.stringify(card, null, 1) + '\n');
  const mean1 = Object.values(solve).reduce((a, r) => a + r.pass1, 0) / Object.keys(solve).length;
  return {
    summary: `pretrained ${state.step} steps (seed ${pc.seed}) on every role; solve pass@1 ${mean1.toFixed(2)} averaged over 1-4 operations, ${card.metrics.solveOnTrainingSet.pass1.toFixed(2)} on the training set's mix (see card.json)`,
  };
}
