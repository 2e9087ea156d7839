// OpenSIR (LOOPS.md §4) by hand: the solvability triangle (0.25 at the edges for 8 answers, 1 at
// the midpoint, 0 outside), top-k and nearest diversity on hand-made vectors, majority vote and its
// tie rule, the concept mask; then the whole loop on a scripted policy whose every output the test
// chooses: the pseudo-label and solve rate, the reward parts, the two selection rules, concept tags
// out of the loss, the pool growing by every legal problem, the ablations and a resumed run.
import { describe, expect, it } from 'vitest';
import { conceptMask, conceptsRight, diagnoseTeach, diversity, majority, selectionScore, selectStudentProblem, selectTeacherGroup, solvability } from '../../src/loops/opensir/logic';
import { cosine } from '../../src/metrics/diversity';
import { validateOpensirConfig, type OpensirConfig } from '../../src/loops/opensir/config';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { LoopEvent } from '../../src/loops/events';
import { BOS, decode, encode, EOS, loadSet, solvePrompt, TAG_TOKEN } from '../../src/world/index';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { collect, runOnCpu } from '../helpers/loops';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';

describe('OpenSIR rules by hand', () => {
  it('solvability: a triangle on [0.5, 0.9], 1 at 0.7, 0.25 at the edges for 8 answers, 0 outside', () => {
    const sol = (s: number) => solvability(s, 0.5, 0.9, 8);
    expect([0, 0.375, 1].map(sol)).toEqual([0, 0, 0]);
    expect(sol(0.5)).toBeCloseTo(0.25, 12);
    expect(sol(0.9)).toBeCloseTo(0.25, 12);
    expect(sol(0.7)).toBeCloseTo(1, 12);
    // linear between: 5/8 and 6/8 of the way up the sides
    expect(sol(0.625)).toBeCloseTo(0.25 + 0.75 * 0.625, 12);
    expect(sol(0.75)).toBeCloseTo(0.25 + 0.75 * 0.75, 12);
    expect(sol(0.875)).toBeCloseTo(0.25 + 0.75 * 0.125, 12);
    // the edge value counts the reachable rates in the window: 4 answers reach 0.5 and 0.75 in [0.5, 0.9]
    expect(solvability(0.5, 0.5, 0.9, 4)).toBeCloseTo(0.5, 12);
    // s_min 0.1 widens the window: 1/8 now pays
    expect(solvability(0.125, 0.1, 0.9, 8)).toBeGreaterThan(0);
  });

  it('diversity: (1 − mean of the top-k cosines)/2, or (1 − the nearest)/2; 1/2 with nothing to compare', () => {
    const v = [1, 0, 0];
    const others = [[1, 0, 0], [0, 1, 0], [-1, 0, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1]];
    const sims = others.map((o) => cosine(v, o)).sort((a, b) => b - a);
    expect(sims.map((x) => Math.round(x * 1e6) / 1e6)).toEqual([1, 0.707107, 0.707107, 0, 0, -1]);
    expect(diversity(v, others, 'top5', 5)).toBeCloseTo((1 - (1 + 2 * Math.SQRT1_2) / 5) / 2, 12);
    expect(diversity(v, others, 'top5', 2)).toBeCloseTo((1 - (1 + Math.SQRT1_2) / 2) / 2, 12);
    expect(diversity(v, others, 'min', 5)).toBeCloseTo(0, 12);
    expect(diversity(v, [[-1, 0, 0]], 'min', 5)).toBeCloseTo(1, 12);
    expect(diversity(v, [], 'top5', 5)).toBe(0.5);
    // fewer than k others: the mean of all of them
    expect(diversity(v, [[0, 1, 0], [1, 0, 0]], 'top5', 5)).toBeCloseTo(0.25, 12);
  });

  it('majority vote over parsable answers, ties to the answer given first', () => {
    expect(majority([3, 4, 3, null, 4, 5])).toEqual({ label: 3, count: 2, parsable: 5 });
    expect(majority([4, 3, 3, 4])).toEqual({ label: 4, count: 2, parsable: 4 });
    expect(majority([null, 7, 7, 2])).toEqual({ label: 7, count: 2, parsable: 3 });
    expect(majority([null, null])).toEqual({ label: null, count: 0, parsable: 0 });
  });

  it('selection: the group of highest variance, the problem of highest novelty; the first on a tie', () => {
    expect(selectTeacherGroup([[1, 1, 1], [0, 1, 0], [1, 0, 1]])).toBe(1);
    expect(selectTeacherGroup([[0, 0], [0, 0]])).toBe(0);
    expect(selectStudentProblem([0.2, null, 0.9, 0.9])).toBe(2);
    expect(selectStudentProblem([null, null])).toBe(-1);
  });

  it('the selection score is the reward\'s weighted components α·sol + γ·div; with γ = 0 div plays no part', () => {
    expect(selectionScore(0.5, 0.25, { solWeight: 1, divWeight: 1 })).toBe(0.75);
    expect(selectionScore(0.5, 0.25, { solWeight: 2, divWeight: 0.5 })).toBe(1.125);
    expect(selectionScore(0.5, 0.25, { solWeight: 1, divWeight: 0 })).toBe(0.5);
    expect(selectionScore(0.5, 0.9, { solWeight: 1, divWeight: 0 })).toBe(0.5);
  });

  it('concept tags are masked out of the loss; the oracle reads the concepts off the tree', () => {
    const response = [...encode('2*3'), TAG_TOKEN.mul, TAG_TOKEN.add, EOS];
    expect(Array.from(conceptMask(response))).toEqual([1, 1, 1, 0, 0, 1]);
    expect(diagnoseTeach('max(2,3)*4<c:mul>', true)).toEqual({ legal: true, problem: 'max(2,3)*4', claimed: ['mul'], actual: ['max', 'mul'], value: 12, topic: 'max', key: 'ops2 * max d2 n0 small', tagSet: 'max mul' });
    expect(diagnoseTeach('2*<c:mul>', true).legal).toBe(false);
    // a claim is right when every tag is true and it names all of them, at most three
    expect(conceptsRight(['mul'], ['max', 'mul'], 3)).toBe(false);
    expect(conceptsRight(['mul', 'max'], ['max', 'mul'], 3)).toBe(true);
    expect(conceptsRight(['nest', 'mul', 'add'], ['max', 'nest', 'mul', 'add'], 3)).toBe(true);
    expect(conceptsRight(['sub'], ['add'], 3)).toBe(false);
    expect(diagnoseTeach('2*3<c:mul><c:mul>', true).legal).toBe(false);
    expect(diagnoseTeach('2*3<c:mul>', false).legal).toBe(false);
  });

  it('config: the paper\'s values by default; what cannot work is refused by field', () => {
    const d = validateOpensirConfig({});
    expect(d).toMatchObject({ teacherGroups: 4, teacherSamples: 8, studentSamples: 8, sMin: 0.5, sMax: 0.9, solWeight: 1, divWeight: 1, fmtWeight: 0.1, lenWeight: 1, diversity: 'top5', diversityTopK: 5, embedder: 'policy', seedProblem: '1+1' });
    expect(d.rl).toMatchObject({ advantage: 'group_std', advEps: 1e-4, clipLow: 0.2, clipHigh: 0.2, beta: 1e-4, klType: 'k3' });
    expect(() => validateOpensirConfig({ sMin: 0.95 })).toThrow(/opensir\.sMin = 0\.95: must be ≤ sMax \(0\.9\)/);
    expect(() => validateOpensirConfig({ seedProblem: '1+' })).toThrow(/opensir\.seedProblem = "1\+": not a problem of the world/);
    expect(() => validateOpensirConfig({ studentSamples: 1 })).toThrow(/opensir\.studentSamples = 1: must be ≥ 2/);
    expect(() => validateOpensirConfig({ diversity: 'max' })).toThrow(/opensir\.diversity = "max": must be one of top5, min/);
    expect(() => validateOpensirConfig({ rl: { maxGenBatches: 2 } })).toThrow(/the loop does not use this setting/);
  });
});

// ---- the scripted policy: every teacher group writes (g mod 4)
//   2+3<c:add>   the students all answer 5: s = 1, outside the window (sol 0)
//   4*5<c:mul>   5 of 8 answer 20, 3 answer 21: s = 5/8 inside (sol 0.71875)
//   ((           illegal
//   9-2<c:sub>   4 answer 7 then 4 answer 8: a tie, the label is 7 (given first), s = 1/2 (sol 0.25)
const teacher = ['2+3<c:add>', '4*5<c:mul>', '((', '9-2<c:sub>'];
const script: Script = (prompt, role, g) => {
  if (role === 'teach') return teacher[g % 4];
  const q = prompt.replace(/^<bos><solve>/, '').replace(/=$/, '');
  if (q === '2+3') return '#5';
  if (q === '4*5') return g < 5 ? '#20' : '#21';
  if (q === '9-2') return g < 4 ? '#7' : '#8';
  return '#0';
};

async function runScripted(config: Partial<OpensirConfig> & Record<string, unknown>, s: Script = script, engine = scriptedEngine(s)) {
  const def = loopNamed('opensir');
  // no coverage probe unless a test asks for one: its teacher outputs would mix with the step's
  const cfg = def.spec.validate({ steps: 1, teacherGroups: 2, teacherSamples: 4, studentSamples: 8, evalProblems: 1, evalN: 1, samplesPerStep: 2, probeEvery: 0, ...config });
  const events = await collect(driveLoop(def, engine, cfg));
  const steps = events.filter((e): e is Extract<LoopEvent, { type: 'step' }> => e.type === 'step');
  const records = events.flatMap((e) => (e.type === 'records' ? e.records : []));
  return { engine, step: steps[0], steps, records, events };
}

const sol = (s: number) => solvability(s, 0.5, 0.9, 8);

describe('OpenSIR on a scripted policy', () => {
  it('pseudo-labels by majority, solve rate as agreement, reward parts, and the oracle beside them', async () => {
    const { records, step } = await runScripted({});
    expect(records.map((r) => r.problem)).toEqual(['2+3', '4*5', '9-2', '2+3', '4*5', '9-2']);
    expect(records.slice(0, 3).map((r) => [r.label, r.solveRate])).toEqual([[5, 1], [20, 5 / 8], [7, 0.5]]);
    expect(records.slice(0, 3).map((r) => r.sol)).toEqual([sol(1), sol(5 / 8), sol(0.5)]);
    expect(records[2]).toMatchObject({ value: 7, agree: true, claimed: 'sub', actual: 'sub', topic: 'sub' });
    for (const r of records) {
      // R_T = sol + div + 0.1 + len, len = min(mean answer tokens, 48)/48 (answers like `#20` and the end token)
      const len = (String(r.label).length + 2) / 48;
      expect(r.len).toBeCloseTo(len, 12);
      expect(r.reward).toBeCloseTo((r.sol as number) + (r.div as number) + 0.1 + len, 12);
    }
    expect(step.metrics['teacher/legal']).toBe(6 / 8);
    expect(step.metrics['teacher/reward']).toBeCloseTo(records.reduce((a, r) => a + (r.reward as number), 0) / 8, 12);
    expect(step.metrics['student/solve_rate']).toBeCloseTo((1 + 5 / 8 + 0.5) / 3, 12);
    expect(step.metrics['oracle/label_agreement']).toBe(1);
    expect(step.metrics['pool/size']).toBe(7);
    expect(step.metrics['topic/add'] + step.metrics['topic/mul'] + step.metrics['topic/sub']).toBeCloseTo(1, 12);
  });

  it('trains the teacher group of highest variance and the student group of the most novel problem, concept tags masked', async () => {
    const { engine, records } = await runScripted({});
    const batch = engine.updates[0];
    const teach = batch.filter((t) => t.role === 'teach');
    const solve = batch.filter((t) => t.role === 'solve');
    // both groups wrote the same problems: equal variances, the first group (the selection by variance: see the next describe)
    expect(teach).toHaveLength(4);
    expect(new Set(teach.map((t) => t.groupId))).toEqual(new Set([0]));
    for (const t of teach) {
      const tags = Array.from(t.responseTokens).map((x) => Object.values(TAG_TOKEN).includes(x));
      expect(Array.from(t.lossMask)).toEqual(tags.map((isTag) => (isTag ? 0 : 1)));
    }
    // the student trains on the one legal problem of highest sol + div: one group of 8
    const novelty = records.map((r) => (r.sol as number) + (r.div as number));
    const best = records[novelty.indexOf(Math.max(...novelty))];
    expect(solve).toHaveLength(8);
    expect(new Set(solve.map((t) => Array.from(t.promptTokens).join(',')))).toEqual(new Set([solvePrompt(best.problem as string).join(',')]));
    expect(records.filter((r) => r.studentTrained)).toEqual([best]);
    // the student's reward: 𝟙[a = a*] + 0.1 for an answer in the #answer form
    const label = best.label as number;
    for (const t of solve) expect(t.reward).toBeCloseTo(((t as unknown as { text: string }).text === `#${label}` ? 1 : 0) + 0.1, 12);
  });

  it('the ablations: no diversity pays no div; student only trains no teacher; s_min 0.1 pays a solve rate of 1/2 more', async () => {
    const noDiv = await runScripted({ divWeight: 0 });
    for (const r of noDiv.records) expect(r.reward).toBeCloseTo((r.sol as number) + 0.1 + (r.len as number), 12);
    const frozen = await runScripted({ frozenTeacher: true });
    expect(frozen.engine.updates[0].every((t) => t.role === 'solve')).toBe(true);
    const wide = await runScripted({ sMin: 0.1 });
    expect(wide.records[2].sol).toBeCloseTo(solvability(0.5, 0.1, 0.9, 8), 12);
    expect(wide.records[2].sol as number).toBeGreaterThan(sol(0.5));
  });

  it('the pool grows by every legal problem and feeds the next step\'s teacher prompts; a resumed run continues it exactly', async () => {
    const prompts: string[] = [];
    const whole = await runScripted({ steps: 3 }, (p, role, g, d) => (role === 'teach' && g === 0 && prompts.push(p), script(p, role, g, d)));
    expect(whole.steps.map((s) => s.metrics['pool/size'])).toEqual([7, 13, 19]);
    // step 1 draws from the seed problem alone; later steps from the grown pool
    expect(prompts.slice(0, 2)).toEqual(['<bos><teach>1+1<sep>', '<bos><teach>1+1<sep>']);
    expect(prompts.slice(2).some((p) => p !== '<bos><teach>1+1<sep>')).toBe(true);
    const ckpt = whole.events.find((e) => e.type === 'checkpoint' && e.step === 3) as Extract<LoopEvent, { type: 'checkpoint' }>;
    expect((ckpt.state as { pool: unknown[] }).pool).toHaveLength(19);
    const def = loopNamed('opensir');
    const cfg = def.spec.validate({ steps: 3, teacherGroups: 2, teacherSamples: 4, studentSamples: 8, evalProblems: 1, evalN: 1, samplesPerStep: 2, probeEvery: 0 });
    const at1 = (await runScripted({ steps: 1 })).events.find((e) => e.type === 'checkpoint') as Extract<LoopEvent, { type: 'checkpoint' }>;
    const resumed = await collect(driveLoop(def, scriptedEngine(script), cfg, { resume: { step: 1, optimiser: at1.optimiser, state: at1.state } }));
    const rec = (evs: LoopEvent[]) => evs.filter((e) => e.type === 'records');
    expect(rec(resumed)).toEqual(rec(whole.events).slice(1));
    await expect(collect(driveLoop(def, scriptedEngine(script), cfg, { resume: { step: 1, optimiser: at1.optimiser, state: null } }))).rejects.toThrow(/opensir: the checkpoint of step 1 holds no pool/);
  });
});

describe('OpenSIR selection and scoring on outputs that differ by group', () => {
  // teacher outputs in call order: group 0 then group 1 (4 each)
  //   group 0: 4*5 (the most novel) and three illegal outputs: one scored problem, variance 0
  //            over scored ones (counting the illegal ones as 0 would make it the most varied)
  //   group 1: 2+3, 9-2, 2+3 and 8*8, which no student answer parses (legal, never scored)
  const outputs = ['4*5<c:mul>', '((', '((', '((', '2+3<c:add>', '9-2<c:sub>', '2+3<c:add>', '8*8<c:mul>'];
  const make = (): Script => {
    let n = 0;
    return (prompt, role, g, d) => (role === 'teach' ? outputs[n++ % outputs.length] : prompt.includes('8*8') ? '7+7' : script(prompt, role, g, d));
  };

  it('the teacher group is chosen by the variance of its scored problems only; an unanswered problem is neither scored nor paid for length', async () => {
    const { engine, records } = await runScripted({}, make());
    const teach = engine.updates[0].filter((t) => t.role === 'teach');
    expect(new Set(teach.map((t) => t.groupId))).toEqual(new Set([1]));
    const unanswered = records.find((r) => r.problem === '8*8') as Record<string, unknown>;
    expect(unanswered).toMatchObject({ solveRate: 0, label: null, sol: 0, len: 0, studentTrained: false });
    expect(unanswered.reward).toBeCloseTo((unanswered.div as number) + 0.1, 12);
    // the student trains on the most novel scored problem
    const scored = records.filter((r) => r.label !== null);
    const novelty = scored.map((r) => (r.sol as number) + (r.div as number));
    expect(records.filter((r) => r.studentTrained)).toEqual([scored[novelty.indexOf(Math.max(...novelty))]]);
  });

  it('div is computed against this step\'s other legal problems and the pool before the step (top-5), or the pool alone (min)', async () => {
    // the scripted engine's embedder: counts of each token id of [BOS, …problem]
    const embed = (text: string) => {
      const v = new Float32Array(64);
      for (const t of [BOS, ...encode(text)]) v[t % 64] += 1;
      return v;
    };
    const { records } = await runScripted({}, make());
    const legal = records.map((r) => r.problem as string);
    records.forEach((r, j) => {
      const others = [...legal.filter((_, i) => i !== j), '1+1'].map(embed);
      expect(r.div).toBeCloseTo(diversity(embed(legal[j]), others, 'top5', 5), 6);
    });
    const min = await runScripted({ diversity: 'min' }, make());
    for (const r of min.records) expect(r.div).toBeCloseTo(diversity(embed(r.problem as string), [embed('1+1')], 'min', 5), 6);
  });
});

describe('OpenSIR selects by the reward\'s weighted components', () => {
  // two teacher groups of two: group 0 writes 2+3 and 6+1 (the students all agree: sol 0, 0),
  // group 1 writes 4*5 and 9-2 (sol 0.71875 and 0.25). Diversity against the pool (min), whose one
  // problem 1+1 embeds as (1, 0); each problem embeds at the angle that gives it the div chosen
  const outputs = ['2+3<c:add>', '6+1<c:add>', '4*5<c:mul>', '9-2<c:sub>'];
  const run = (divs: Record<string, number>, divWeight: number) => {
    let n = 0;
    const engine = scriptedEngine((prompt, role, g, d) => (role === 'teach' ? outputs[n++ % outputs.length] : script(prompt, role, g, d)));
    engine.embed = async (seqs) => seqs.map((seq) => {
      const text = decode(seq.slice(1));
      const d = text === '1+1' ? 0 : divs[text];
      return Float32Array.from([1 - 2 * d, 2 * Math.sqrt(d * (1 - d))]);
    });
    return runScripted({ teacherGroups: 2, teacherSamples: 2, diversity: 'min', divWeight }, undefined, engine);
  };
  const chosen = async (r: Awaited<ReturnType<typeof run>>) => ({
    group: [...new Set(r.engine.updates[0].filter((t) => t.role === 'teach').map((t) => t.groupId))],
    student: r.records.filter((x) => x.studentTrained).map((x) => x.problem),
  });
  // the same four div values, permuted among the problems
  const A = { '2+3': 1, '6+1': 0, '4*5': 0, '9-2': 0.5 };
  const B = { '2+3': 0, '6+1': 0, '4*5': 1, '9-2': 0.5 };

  it('γ = 1: permuting div changes the highest-variance group and the student\'s problem', async () => {
    const a = await run(A, 1);
    expect(a.records.map((r) => +(r.div as number).toFixed(6))).toEqual([1, 0, 0, 0.5]);
    // A: group 0 scores 1 and 0 (variance 0.25), group 1 0.72 and 0.75; B: group 0 0 and 0, group 1 1.72 and 0.75
    expect(await chosen(a)).toEqual({ group: [0], student: ['2+3'] });
    expect(await chosen(await run(B, 1))).toEqual({ group: [1], student: ['4*5'] });
  });

  it('γ = 0 (the no-diversity ablation): permuting div changes nothing; sol alone picks group 1 and 4*5', async () => {
    for (const divs of [A, B]) expect(await chosen(await run(divs, 0))).toEqual({ group: [1], student: ['4*5'] });
  });
});

describe('OpenSIR: what a step measures', () => {
  it('entropy/solve over the students\' tokens, entropy/all over every token, the teacher\'s beside them; no bare entropy', async () => {
    const engine = scriptedEngine(script);
    const rollout = engine.rollout.bind(engine);
    engine.rollout = (async (prompts, opts, reward) => (await rollout(prompts, opts, reward)).map((t) => ({ ...t, entropy: Array.from(t.responseTokens, () => (opts.role === 'teach' ? 1 : 0.25)) }))) as typeof engine.rollout;
    const { step } = await runScripted({}, script, engine);
    expect('entropy' in step.metrics).toBe(false);
    expect(step.metrics['entropy/solve']).toBe(0.25);
    expect(step.metrics['entropy/teach']).toBe(1);
    expect(step.metrics['entropy/all']).toBeGreaterThan(0.25);
    expect(step.metrics['entropy/all']).toBeLessThan(1);
  });

  it('frac_reward_zero_std: every student group of the step whose rewards are all equal, before the selection keeps one', async () => {
    const { step } = await runScripted({});
    // six legal problems: the two 2+3 groups all agree (no signal), 4*5 and 9-2 are mixed
    expect(step.metrics.frac_reward_zero_std).toBeCloseTo(2 / 6, 12);
    // each teacher group's four outputs score differently
    expect(step.metrics['frac_reward_zero_std/teach']).toBe(0);
  });
});

describe('OpenSIR: the coverage probe', () => {
  // probe rollouts are the teacher rollouts of group size 3 (the step's teacher groups are of 4);
  // the k-th probe writes, for the seed problem's prompt and for the others:
  //   probe 1: 2+3, 4*5, ((        and 2+3, 2+3, 9-2   → 8/9 legal, 3 problems, 3 signatures, 3 tag sets
  //   later:   2+3, 2+3, 2+3       and the same         → all legal, 1 problem, 1 signature, 1 tag set
  const FIRST: Record<string, string[]> = { seed: ['2+3<c:add>', '4*5<c:mul>', '(('], other: ['2+3<c:add>', '2+3<c:add>', '9-2<c:sub>'] };
  async function probed(config: Record<string, unknown>) {
    const log: string[] = [];
    const probes: { prompts: string[]; seed: number; temperature: number }[] = [];
    let inProbe = false;
    const engine = scriptedEngine((prompt, role, g, d) => {
      if (!inProbe) return script(prompt, role, g, d);
      return probes.length === 1 ? FIRST[prompt === '<bos><teach>1+1<sep>' ? 'seed' : 'other'][g] : '2+3<c:add>';
    });
    const rollout = engine.rollout.bind(engine);
    engine.rollout = (async (prompts, opts, reward) => {
      inProbe = opts.role === 'teach' && opts.groupSize === 3;
      if (inProbe) probes.push({ prompts: prompts.map((p) => decode(p.prompt)), seed: opts.seed, temperature: opts.temperature });
      log.push(inProbe ? 'probe' : opts.role);
      try {
        return await rollout(prompts, opts, reward);
      } finally {
        inProbe = false;
      }
    }) as typeof engine.rollout;
    const train = engine.train.bind(engine);
    engine.train = async (trajs) => (log.push('train'), train(trajs));
    const r = await runScripted({ probeSamples: 3, probePrompts: 3, ...config }, script, engine);
    return { ...r, log, probes };
  }

  it('probes the base at step 1 before its update, then after every probeEvery-th update, always the same prompts and seed', async () => {
    const { steps, log, probes } = await probed({ steps: 4, probeEvery: 2 });
    expect(log.filter((x) => x !== 'solve')).toEqual(['probe', 'teach', 'train', 'teach', 'train', 'probe', 'teach', 'train', 'teach', 'train', 'probe']);
    expect(steps.map((s) => 'probe/concepts' in s.metrics)).toEqual([true, true, false, true]);
    // the seed problem, then the evaluation set's first problems; one seed for every probe
    const evalSet = loadSet('eval-mixed').slice(0, 2).map((p) => `<bos><teach>${p.text}<sep>`);
    for (const p of probes) expect(p.prompts).toEqual(['<bos><teach>1+1<sep>', ...evalSet]);
    expect(new Set(probes.map((p) => p.seed)).size).toBe(1);
    expect(probes).toHaveLength(3);
  });

  it('probes after the last step too, and keeps the run\'s first temperature through a live change and a resume', async () => {
    const { steps, log } = await probed({ steps: 3, probeEvery: 2 });
    expect(log.filter((x) => x === 'probe')).toHaveLength(3);
    expect(steps.map((s) => 'probe/concepts' in s.metrics)).toEqual([true, true, true]);
    // the body alone: step 1 at T = 1, then the knob turned to 0.5; the probe stays at 1, and so does a resumed run's
    const { engine, probes } = await probed({ steps: 1, probeEvery: 1 });
    const def = loopNamed('opensir');
    const c = def.spec.validate({ steps: 3, teacherGroups: 2, teacherSamples: 4, studentSamples: 8, evalProblems: 1, evalN: 1, probeEvery: 1, probePrompts: 3, probeSamples: 3 }) as OpensirConfig;
    const hot = { ...c, rl: { ...c.rl, temperature: 0.5 } };
    engine.configure({ rl: c.rl, lr: c.lr, weightDecay: c.weightDecay, maxNewTokens: c.maxNewTokens });
    const run = def.body(engine, c, null);
    probes.length = 0;
    await run.step(1, c);
    await run.step(2, hot);
    const resumed = def.body(engine, hot, { step: 2, state: run.state() });
    await resumed.step(3, hot);
    expect(probes.map((p) => p.temperature)).toEqual([1, 1, 1]);
    expect((run.state() as { probeTemperature: number }).probeTemperature).toBe(1);
  });

  it('counts each probe\'s own outputs; none of them is pooled, trained on or counted as generated tokens', async () => {
    const probedRun = await probed({ steps: 2, probeEvery: 2 });
    const [s1, s2] = probedRun.steps;
    expect(s1.metrics).toMatchObject({ 'probe/legal': 8 / 9, 'probe/problems': 3, 'probe/concepts': 3, 'probe/tag_sets': 3 });
    expect(s2.metrics).toMatchObject({ 'probe/legal': 1, 'probe/problems': 1, 'probe/concepts': 1, 'probe/tag_sets': 1 });
    const plain = await runScripted({ steps: 2 });
    for (const k of ['pool/size', 'pool/concepts', 'tokens/generated', 'teacher/reward']) expect(probedRun.steps.map((s) => s.metrics[k])).toEqual(plain.steps.map((s) => s.metrics[k]));
    expect(probedRun.engine.updates).toEqual(plain.engine.updates);
    expect(probedRun.records).toEqual(plain.records);
    // off: no probe metric at all
    expect(plain.steps.some((s) => Object.keys(s.metrics).some((k) => k.startsWith('probe/')))).toBe(false);
  });
});

describe('OpenSIR on CPU mode\'s engine', () => {
  it('runs a step on the tiny policy, as the page\'s CPU mode would', async () => {
    const tiny = await loadCheckpointDir('public/models/tiny');
    const evs = await collect(runOnCpu('opensir', tiny.cfg, tiny.params, { steps: 1, teacherGroups: 1, teacherSamples: 2, studentSamples: 2, maxNewTokens: 12, maxProblemTokens: 12, evalProblems: 1, evalN: 1, samplesPerStep: 1 }));
    expect(evs.map((e) => e.type).filter((t) => t !== 'records')).toEqual(['eval', 'step', 'samples', 'eval', 'checkpoint', 'done']);
    const step = evs.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>;
    for (const [k, v] of Object.entries(step.metrics)) expect(Number.isFinite(v), k).toBe(true);
  });
});
