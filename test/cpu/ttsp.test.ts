// TTSP's loop rules (LOOPS.md §6) on a scripted engine with stand-in adapter sets: the gate's
// verdicts per proposal, duplicates within a step and against the target, the proposer's reward
// from the solver pass rate (invalid → invalidReward), the replay buffer (drawn, re-answered,
// kept iff 0 < p < 1), two updates (proposer, then solver) each of one role, the target's
// evaluation (the frozen base once, the solver every M steps and after the last), and the
// answer-only gate ablation; the oracle diagnostics (proposals equal in value to the target or
// containing it, relatedness against its baseline, the frozen base's pass rate on the fresh
// problems), the target evaluated at a token-budget stop, the entropies and zero-signal groups.
// Also the config's checks, shipped targets, and adapter starts.
import { describe, expect, it } from 'vitest';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { driveLoop } from '../../src/loops/driver';
import { TTSP } from '../../src/loops/ttsp/index';
import { validateTtspConfig, type TtspConfig } from '../../src/loops/ttsp/config';
import { containsTarget, gate, problemForm } from '../../src/loops/ttsp/gate';
import { parseTargetList, resolveTarget } from '../../src/loops/ttsp/targets';
import { withStartAdapters } from '../../src/loops/adapter_start';
import { buildLoraTable, serializeAdapter } from '../../src/model/lora';
import { GPT_PRESETS } from '../../src/model/config';
import { frontierReward } from '../../src/loops/frontier';
import type { EvalOptions, EvalResult } from '../../src/eval/evaluate';
import type { LoopEvent } from '../../src/loops/events';
import { readFileSync } from 'node:fs';
import { GENERIC_CONTEXT, genericControlProblems, relatedBaseProblems, RELATED_BASE_N } from '../../src/loops/ttsp/body';
import { cosine } from '../../src/metrics/diversity';
import { BOS, encode, loadSet, PROPOSE_EARLIER_MAX, readProblem } from '../../src/world/index';
import type { EvalProblem } from '../../src/eval/evaluate';

const TARGET = '6*(2+3)';

/** Proposals by index within a context: valid, bad reference, mismatch, a repeat of 0, the target, nonsense, valid (other), cut-free valid. */
const PROPOSALS = ['2+3=2+3=5;#5', '2+3=2+3=6;#6', '4+4=4+4=8;#9', '2+3=2+3=5;#5', '6*(2+3)=2+3=5;6*5=30;#30', 'hello', '7-1=7-1=6;#6', '9-1=9-1=8;#8'];

const script: Script = (prompt, role, g) => {
  if (role === 'propose') return PROPOSALS[g];
  // the solver: right on half the attempts at 2+3, always at 7-1, never at 9-1
  if (prompt.includes('2+3=')) return g % 2 === 0 ? '2+3=5;#5' : '#4';
  if (prompt.includes('7-1=')) return '7-1=6;#6';
  return '#0';
};

function ttspEngine(s: Script) {
  const e = scriptedEngine(s);
  const targetEvals: EvalOptions[] = [];
  const baseEvals: { problems: readonly EvalProblem[]; opts: EvalOptions }[] = [];
  e.evaluate = async (problems, opts): Promise<EvalResult> => {
    const target = problems.length === 1 && problems[0].text === TARGET;
    if (target) targetEvals.push(opts);
    else if (opts.frozenBase) baseEvals.push({ problems, opts });
    else e.evaluations.push(opts);
    // the base solves the target 2 of 8 times, the adapted solver 5 of 8; the base solves a synthetic problem once
    const c = opts.frozenBase ? (target ? 2 : 1) : 5;
    return {
      problems: problems.map((p) => ({ id: p.id, n: opts.n, c, gold: p.answer, answers: [] })), passAtK: { '1': 0 }, avgAtK: { '1': 0 },
      majAtK: { '1': 0, [String(opts.n)]: opts.frozenBase ? 0 : 1 }, histogram: { counts: [1] } as EvalResult['histogram'],
      meanEntropy: 0, responseLength: { mean: 1, std: 0, min: 1, max: 1, clipRatio: 0, count: 1 },
    };
  };
  const loads: unknown[] = [];
  Object.assign(e, { adapters: { names: ['proposer', 'solver'], read: async () => [], load: (s: unknown) => loads.push(s) } });
  return { e, targetEvals, baseEvals, loads };
}

const CONFIG: Partial<TtspConfig> = {
  target: TARGET, targetBaseRate: 0.25, proposerContexts: 1, proposalsPerContext: 8, solverAttempts: 4, replay: 2, steps: 3, targetEvalEvery: 2,
  evalEvery: 0, evalProblems: 2, evalN: 2, contextProblems: 2, invalidReward: -0.5,
};

async function run(config: Partial<TtspConfig>, s: Script = script) {
  const { e, targetEvals, baseEvals } = ttspEngine(s);
  const c = validateTtspConfig(config);
  const events: LoopEvent[] = [];
  for await (const ev of driveLoop(TTSP, e, c)) events.push(ev);
  const steps = events.filter((x): x is Extract<LoopEvent, { type: 'step' }> => x.type === 'step');
  const records = events.filter((x): x is Extract<LoopEvent, { type: 'records' }> => x.type === 'records');
  const checkpoints = events.filter((x): x is Extract<LoopEvent, { type: 'checkpoint' }> => x.type === 'checkpoint');
  return { e, c, steps, records, targetEvals, baseEvals, checkpoints };
}

describe('TTSP step on scripted outcomes', () => {
  it('gates, rewards, replays and updates as LOOPS.md §6 says', async () => {
    const { e, steps, records } = await run(CONFIG);
    const first = records[0].records;
    expect(first.map((r) => r.verdict)).toEqual(['valid', 'bad_reference', 'answer_mismatch', 'duplicate', 'duplicate', 'unparseable', 'valid', 'valid']);
    // pass rates: 2+3 half the time, 7-1 always, 9-1 never; rewards through the gaussian frontier
    const byProblem = Object.fromEntries(first.filter((r) => r.valid).map((r) => [String(r.problem), r] as const));
    expect(byProblem['2+3'].p).toBe(0.5);
    expect(byProblem['7-1'].p).toBe(1);
    expect(byProblem['9-1'].p).toBe(0);
    expect(byProblem['2+3'].reward).toBeCloseTo(frontierReward(0.5, 'gaussian', 0.01), 12);
    expect(byProblem['7-1'].reward).toBeCloseTo(frontierReward(1, 'gaussian', 0.01), 12);
    expect(first.filter((r) => !r.valid).every((r) => r.reward === -0.5)).toBe(true);
    const m1 = steps[0].metrics;
    expect([m1['rejected/bad_reference'], m1['rejected/answer_mismatch'], m1['rejected/duplicate'], m1['rejected/unparseable'], m1['rejected/cut']]).toEqual([1, 1, 2, 1, 0]);
    expect(m1['proposer/valid']).toBe(3 / 8);
    // step 1: an empty buffer, nothing replayed; updates: the proposer's 8, then the solver's 3 × 4
    expect(m1['replay/drawn']).toBe(0);
    expect(e.updates[0].map((t) => t.role)).toEqual(Array(8).fill('propose'));
    expect(e.updates[0].map((t) => t.reward)).toEqual(first.map((r) => r.reward));
    expect(e.updates[1]).toHaveLength(12);
    expect(e.updates[1].every((t) => t.role === 'solve')).toBe(true);
    // step 2: every proposal is now a duplicate of history; two of the three buffered problems are
    // replayed, and only 2+3 (p = ½) among them trains
    const m2 = steps[1].metrics;
    expect(m2['proposer/valid']).toBe(0);
    expect(m2['rejected/duplicate']).toBe(5);
    expect(m2['replay/drawn']).toBe(2);
    expect(m2['replay/size']).toBe(3);
    // the step-2 context: the target, then contextProblems = 2 of the three earlier valid problems
    const ctx = String(records[1].records[0].context).split(' | ');
    expect(ctx[0]).toBe(TARGET);
    expect(ctx.slice(1).length).toBe(2);
    for (const p of ctx.slice(1)) expect(['2+3', '7-1', '9-1']).toContain(p);
    const none = await run({ ...CONFIG, contextProblems: 0, steps: 2 });
    expect(none.records[1].records[0].context).toBe(TARGET);
    const solver2 = e.updates[3] ?? [];
    expect(solver2.length).toBe(m2['replay/kept'] * 4);
    expect(solver2.every((t) => t.role === 'solve')).toBe(true);
  });

  it('evaluates the target: the frozen base once, the solver every M steps and after the last', async () => {
    const { steps, targetEvals } = await run(CONFIG);
    expect(targetEvals.map((o) => Boolean(o.frozenBase))).toEqual([true, false, false]);
    expect(targetEvals.every((o) => o.n === 8 && o.seed === targetEvals[0].seed)).toBe(true);
    expect(steps.map((s) => 'target/mean' in s.metrics)).toEqual([false, true, true]);
    expect(steps[1].metrics['target/mean']).toBe(5 / 8);
    expect(steps[1].metrics['target/base_mean']).toBe(2 / 8);
    expect(steps[1].metrics['target/maj']).toBe(1);
    expect(steps[1].metrics['target/base_mean512']).toBe(0.25);
    // a typed target with no measurement draws no reference line
    const typed = await run({ ...CONFIG, targetBaseRate: -1 });
    expect('target/base_mean512' in typed.steps[1].metrics).toBe(false);
  });

  it('the answer-only gate passes an unchecked reference and rewards the solver against it', async () => {
    expect(gate('4+4=4+4=8;#9', true, new Set(), 'answer-only')).toMatchObject({ verdict: 'valid', answer: 9 });
    expect(gate('2+3=2+3=6;#6', true, new Set(), 'answer-only')).toMatchObject({ verdict: 'valid', answer: 6 });
    expect(gate('hello', true, new Set(), 'answer-only').verdict).toBe('unparseable');
    const { records, steps } = await run({ ...CONFIG, gate: 'answer-only', steps: 1 });
    // references go unchecked (4+4 is taught 9); repeats of a problem and the target itself are still refused
    expect(records[0].records.map((r) => r.verdict)).toEqual(['valid', 'duplicate', 'valid', 'duplicate', 'duplicate', 'unparseable', 'valid', 'valid']);
    expect(records[0].records.filter((r) => r.valid).map((r) => r.answer)).toEqual([5, 9, 6, 8]);
    // the oracle sees the wrong reference
    expect(steps[0].metrics['proposal/correct']).toBeCloseTo(3 / 4, 12);
  });

  it('refuses the CPU engine, which has no adapter sets', () => {
    const e = scriptedEngine(script);
    expect(() => TTSP.body(e, validateTtspConfig(CONFIG), null)).toThrow(/WebGPU engine/);
  });
});

describe('TTSP oracle diagnostics, budget stop and the compared metrics', () => {
  // with target 2*max(4,5): a proposal containing it, one of its value only, an unrelated one, nonsense
  const EQUIV = ['max(2*max(4,5),2)=max(4,5)=5;2*5=10;max(10,2)=10;#10', '2*5=2*5=10;#10', '2+3=2+3=5;#5', 'hello'];
  const equivScript: Script = (_prompt, role, g) => (role === 'propose' ? EQUIV[g] : '#10');
  const EQUIV_CONFIG: Partial<TtspConfig> = { ...CONFIG, target: '2*max(4,5)', proposalsPerContext: 4, steps: 1 };

  it('refuses a proposal containing the target (refuseContainsTarget, the default) or passes it, and both oracle metrics count it', async () => {
    expect(validateTtspConfig({}).refuseContainsTarget).toBe(true);
    const on = await run(EQUIV_CONFIG, equivScript);
    expect(on.records[0].records.map((r) => r.verdict)).toEqual(['contains_target', 'valid', 'valid', 'unparseable']);
    const m = on.steps[0].metrics;
    expect(m['rejected/contains_target']).toBe(1);
    expect(m['proposer/valid']).toBe(2 / 4);
    // over the three proposals whose reference checks and that are new: one contains the target, two carry its value
    expect(m['proposal/contains_target']).toBeCloseTo(1 / 3, 12);
    expect(m['proposal/target_valued']).toBeCloseTo(2 / 3, 12);
    // the refused proposal is never solved nor trained on by the solver
    expect(on.e.updates[1]).toHaveLength(2 * 4);
    const off = await run({ ...EQUIV_CONFIG, refuseContainsTarget: false }, equivScript);
    expect(off.records[0].records.map((r) => r.verdict)).toEqual(['valid', 'valid', 'valid', 'unparseable']);
    const mo = off.steps[0].metrics;
    expect(mo['rejected/contains_target']).toBe(0);
    expect(mo['proposal/contains_target']).toBeCloseTo(1 / 3, 12);
    expect(mo['proposal/target_valued']).toBeCloseTo(2 / 3, 12);
  });

  it('reports relatedness beside its baseline of random training problems, measured once and kept in the state', async () => {
    const picked = relatedBaseProblems(1, TARGET);
    expect(picked).toHaveLength(RELATED_BASE_N);
    expect(new Set(picked).size).toBe(RELATED_BASE_N);
    expect(picked).not.toContain(TARGET);
    expect(relatedBaseProblems(1, TARGET)).toEqual(picked);
    expect(relatedBaseProblems(2, TARGET)).not.toEqual(picked);
    const { e, c, steps, checkpoints } = await run({ ...CONFIG, steps: 2 });
    const [t, ...vs] = await e.embed([TARGET, ...relatedBaseProblems(c.seed, TARGET)].map((x) => [BOS, ...encode(x)]));
    const base = vs.reduce((a, v) => a + cosine(v, t), 0) / vs.length;
    for (const s of steps) expect(s.metrics['proposal/related_base']).toBeCloseTo(base, 12);
    const m1 = steps[0].metrics;
    expect(m1['proposal/related_minus_base']).toBeCloseTo(m1['proposal/related'] - base, 12);
    // step 2 has no valid proposal: no relatedness, the baseline still drawn
    expect('proposal/related' in steps[1].metrics).toBe(false);
    const state = checkpoints[checkpoints.length - 1].state as { relatedBase: number };
    expect(state.relatedBase).toBeCloseTo(base, 12);
    // a resumed run reads the baseline from its state
    const e2 = ttspEngine(script).e;
    e2.configure({ rl: c.rl, lr: c.lr, weightDecay: c.weightDecay, maxNewTokens: c.maxNewTokens });
    const resumed = TTSP.body(e2, c, { step: 1, state: { ...state, relatedBase: 0.125 } });
    expect((await resumed.step(2, c)).metrics['proposal/related_base']).toBe(0.125);
  });

  it('evaluates the target at the step that reaches the token budget', async () => {
    const free = await run({ ...CONFIG, steps: 3, targetEvalEvery: 5 });
    const spent = free.steps.map((s) => s.metrics['tokens/generated']);
    const budget = spent[0] + spent[1] + spent[2];
    expect(budget).toBeGreaterThan(spent[0] + spent[1]);
    const { steps } = await run({ ...CONFIG, steps: 10, targetEvalEvery: 5, tokenBudget: budget });
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(steps.map((s) => 'target/mean' in s.metrics)).toEqual([false, false, true]);
    expect(steps[2].metrics['target/mean']).toBe(5 / 8);
  });

  it('measures the frozen base on the step\'s fresh valid problems, G_S attempts each, graded against their references', async () => {
    const { steps, baseEvals } = await run(CONFIG);
    expect(baseEvals).toHaveLength(1);
    expect(baseEvals[0].problems.map((p) => [p.text, p.answer])).toEqual([['2+3', 5], ['7-1', 6], ['9-1', 8]]);
    expect(baseEvals[0].opts).toMatchObject({ n: 4, frozenBase: true, maxNew: validateTtspConfig(CONFIG).maxNewTokens });
    expect(steps[0].metrics['synthetic/base_pass_rate']).toBe(1 / 4);
    expect(steps[0].metrics.reward).toBe(0.5);
    // no fresh valid problem at steps 2 and 3: nothing to measure
    expect(steps.slice(1).map((s) => 'synthetic/base_pass_rate' in s.metrics)).toEqual([false, false]);
    const off = await run({ ...CONFIG, basePassRate: false });
    expect(off.baseEvals).toHaveLength(0);
    expect('synthetic/base_pass_rate' in off.steps[0].metrics).toBe(false);
  });

  it('logs the solving entropy and the pooled one (no bare entropy), and zero-signal solver groups before the replay\'s keep rule', async () => {
    const { steps } = await run(CONFIG);
    for (const s of steps) {
      expect('entropy' in s.metrics).toBe(false);
      expect(s.metrics['entropy/all']).toBe(0.5);
    }
    expect(steps[0].metrics['entropy/solve']).toBe(0.5);
    // step 1: 2+3 half right, 7-1 always, 9-1 never; the proposer's one group has spread rewards
    expect(steps[0].metrics.frac_reward_zero_std).toBeCloseTo(2 / 3, 12);
    expect(steps[0].metrics['frac_reward_zero_std/propose']).toBe(0);
    // step 2: only replayed groups, counted whether or not the keep rule trains them
    const m2 = steps[1].metrics;
    expect(m2.frac_reward_zero_std).toBeCloseTo(1 - m2['replay/kept'] / m2['replay/drawn'], 12);
  });

  it('defaults contextProblems to the most earlier problems pretraining showed', () => {
    expect(validateTtspConfig({}).contextProblems).toBe(PROPOSE_EARLIER_MAX);
    expect(TTSP.spec.fields.contextProblems.help).toMatch(new RegExp(`0 to ${PROPOSE_EARLIER_MAX} earlier problems`));
  });
});

describe('TTSP generic control (solverProblems = training)', () => {
  // the solver answers a training problem rightly on even attempts and wrongly on odd ones: p = ½
  const solveHalf: Script = (prompt, role, g) => {
    if (role !== 'solve') throw new Error(`the generic control sampled the ${role} role`);
    const q = readProblem(prompt.replace(/^<bos><solve>/, '').replace(/=$/, ''));
    if (!q.ok) throw new Error(`not a problem: ${prompt}`);
    return g % 2 === 0 ? `#${q.value.oracleValue}` : `#${q.value.oracleValue + 1}`;
  };
  const CONTROL = { ...CONFIG, solverProblems: 'training' as const, proposerContexts: 2, proposalsPerContext: 3 };

  it('samples no proposer: the solver trains on random training problems against their true answers, replay included; the target evaluated as ever', async () => {
    const { e, steps, records, targetEvals } = await run(CONTROL, solveHalf);
    const training = new Map(loadSet('train').map((p) => [p.text, p.answer]));
    // proposerContexts × proposalsPerContext training problems a step, all valid, with their true answers
    for (const r of records) {
      expect(r.records).toHaveLength(6);
      for (const x of r.records) {
        expect(x).toMatchObject({ verdict: 'valid', context: GENERIC_CONTEXT, p: 0.5 });
        expect(training.get(String(x.problem))).toBe(x.answer);
      }
    }
    // only solver updates: step 1 trains its 6 fresh groups of 4; the rewards are right or wrong against the true answer
    expect(e.updates.every((u) => u.every((t) => t.role === 'solve'))).toBe(true);
    expect(e.updates[0]).toHaveLength(6 * 4);
    expect(e.updates[0].map((t) => t.reward)).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 1 : 0)));
    // later steps replay earlier problems (p = ½, so every replayed one is kept)
    expect(steps[1].metrics['replay/drawn']).toBe(2);
    expect(steps[1].metrics['replay/kept']).toBe(2);
    expect(e.updates[1]).toHaveLength((6 + 2) * 4);
    // no proposer figures, the solver's and the oracle's as ever (the base rates of the loop's)
    for (const s of steps) expect(Object.keys(s.metrics).filter((k) => k.startsWith('proposer/') || k.startsWith('rejected/') || k === 'entropy/propose')).toEqual([]);
    expect(steps[0].metrics).toMatchObject({ reward: 0.5, 'proposal/frontier': 1, 'proposal/correct': 1 });
    expect(steps[0].metrics['tokens/generated']).toBe(e.updates[0].reduce((a, t) => a + t.responseTokens.length, 0));
    expect('proposal/target_valued' in steps[0].metrics).toBe(true);
    expect(targetEvals.map((o) => Boolean(o.frozenBase))).toEqual([true, false, false]);
    expect(steps[1].metrics['target/mean']).toBe(5 / 8);
  });

  it('leaves out of its problems the target up to operand order and every problem containing it, as the gate would', () => {
    const train = loadSet('train');
    // a training problem with a commutative top operation, so its reordering is the same problem to the gate
    const t = train.find((p) => p.expr.kind === 'op' && (p.expr.op === '+' || p.expr.op === '*')) as (typeof train)[number];
    const kept = new Set(genericControlProblems(t.text).map((p) => p.text));
    expect(kept.has(t.text)).toBe(false);
    const refused = train.filter((p) => !kept.has(p.text));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const p of refused) expect(p.text === t.text || containsTarget(p.expr, t.expr) || problemForm(p.text) === problemForm(t.text)).toBe(true);
    // a target from outside the training set leaves it whole but for the problems containing it
    expect(genericControlProblems(TARGET).length).toBe(train.filter((p) => !containsTarget(p.expr, (readProblem(TARGET) as { ok: true; value: { expr: typeof t.expr } }).value.expr)).length);
  });

  it('draws its problems by the run\'s seed and continues them exactly after a resume', async () => {
    const whole = await run({ ...CONTROL, checkpointEvery: 1 }, solveHalf);
    const problems = (r: typeof whole) => r.records.map((x) => x.records.map((y) => y.problem));
    expect(new Set(problems(whole).flat()).size).toBeGreaterThan(6);
    expect(problems(await run({ ...CONTROL, seed: 2 }, solveHalf))).not.toEqual(problems(whole));
    const e2 = ttspEngine(solveHalf).e;
    e2.configure({ rl: whole.c.rl, lr: whole.c.lr, weightDecay: whole.c.weightDecay, maxNewTokens: whole.c.maxNewTokens });
    const at1 = whole.checkpoints.find((x) => x.step === 1) as Extract<LoopEvent, { type: 'checkpoint' }>;
    const resumed = TTSP.body(e2, whole.c, { step: 1, state: at1.state });
    expect((await resumed.step(2, whole.c)).records?.map((x) => x.problem)).toEqual(problems(whole)[1]);
  });
});

describe('TTSP config, targets and adapter starts', () => {
  it('rejects a target that is not a canonical problem of the world, naming the field', () => {
    expect(() => validateTtspConfig({ target: '6*(' })).toThrow(/ttsp\.target = "6\*\(": not a problem/);
    expect(() => validateTtspConfig({ target: '6*((2+3))' })).toThrow(/write it as "6\*\(2\+3\)"/);
    expect(() => validateTtspConfig({ proposalsPerContext: 1 })).toThrow(/proposalsPerContext/);
    expect(() => validateTtspConfig({ gate: 'none' })).toThrow(/gate/);
    expect(() => validateTtspConfig({ rl: { advantage: 'external' } })).toThrow(/external/);
    expect(validateTtspConfig({}).target).toBe('min(9,9-1+4)');
    // the default rate belongs to the default target: another target without its own has none
    expect(validateTtspConfig({ target: '6*(9+2)' }).targetBaseRate).toBe(-1);
    expect(validateTtspConfig({ target: '6*(9+2)', targetBaseRate: 0.49 }).targetBaseRate).toBe(0.49);
    expect(validateTtspConfig({ target: 'min(9,9-1+4)' }).targetBaseRate).toBeCloseTo(0.111, 3);
  });

  it('resolves shipped targets by id and by text, with the base rate of the list', () => {
    const list = parseTargetList(JSON.parse(readFileSync('public/models/small/ttsp_targets.json', 'utf8')), 'ttsp_targets.json');
    expect(resolveTarget('midhard:1', list)).toEqual({ target: list.midHard[0].text, targetBaseRate: list.midHard[0].passRate });
    expect(resolveTarget('VeryHard:2', list)).toEqual({ target: list.veryHard[1].text, targetBaseRate: list.veryHard[1].passRate });
    expect(resolveTarget(list.veryHard[0].text, list).targetBaseRate).toBe(list.veryHard[0].passRate);
    expect(resolveTarget('1+1', list)).toEqual({ target: '1+1', targetBaseRate: -1 });
    expect(() => resolveTarget('midhard:99', list)).toThrow(new RegExp(`midhard:1\\.\\.${list.midHard.length},`));
    // the shipped default is the first MidHard target, with its rate
    const d = validateTtspConfig({});
    expect([d.target, d.targetBaseRate]).toEqual([list.midHard[0].text, list.midHard[0].passRate]);
    expect(() => parseTargetList({ n: 512, midHard: [{ text: 1 }], veryHard: [] }, 'f.json')).toThrow(/f\.json: midHard\[0\]\.text: expected string/);
  });

  it('makes both adapter sets of the configured rank, α and targets, the proposer normalised by its own length', () => {
    const sets = TTSP.spec.shape(validateTtspConfig({ loraRank: 4, loraAlpha: 2, loraTargets: 'mlp', maxProposalTokens: 50 })).adapters!;
    expect(sets.map((s) => [s.spec.name, s.spec.rank, s.spec.alpha, s.spec.targets, s.roles, s.maxNewTokens])).toEqual([
      ['proposer', 4, 2, ['mlp.c_fc', 'mlp.c_proj'], ['propose'], 50], ['solver', 4, 2, ['mlp.c_fc', 'mlp.c_proj'], ['solve'], 84],
    ]);
    expect(TTSP.spec.shape(validateTtspConfig({})).adapters![0].spec.targets).toBeUndefined();
    expect(() => validateTtspConfig({ loraTargets: 'ffn' })).toThrow(/loraTargets/);
  });

  it('starts adapter sets from saved ones by name, of the same rank and α', () => {
    const sets = TTSP.spec.shape(validateTtspConfig({ loraRank: 4, loraAlpha: 4 })).adapters!;
    const p = new Float32Array(3);
    const started = withStartAdapters('ttsp', sets, [{ spec: { name: 'solver', rank: 4, alpha: 4 }, params: p }])!;
    expect(started.map((s) => s.init === p)).toEqual([false, true]);
    expect(() => withStartAdapters('ttsp', sets, [{ spec: { name: 'solver', rank: 8, alpha: 4 }, params: p }])).toThrow(/rank 8, α 4 and targets attn\.c_attn attn\.c_proj mlp\.c_fc mlp\.c_proj, the run's set rank 4/);
    expect(() => withStartAdapters('ttsp', sets, [{ spec: { name: 'critic', rank: 4, alpha: 4 }, params: p }])).toThrow(/no adapter set named "critic"/);
    expect(() => withStartAdapters('grpo', undefined, [{ spec: { name: 'solver', rank: 4, alpha: 4 }, params: p }])).toThrow(/trains no adapter sets/);
  });

  it('reads a run\'s starting adapter sets from the files the page exported (its hook for the run manager)', () => {
    const cfg = GPT_PRESETS.tiny;
    const spec = { name: 'solver', rank: 2, alpha: 4 };
    const table = buildLoraTable(cfg, spec);
    const params = Float32Array.from({ length: table.totalFloats }, (_, i) => (i % 7) / 8);
    // as the lab exports it (src/lab/worker/checkpointExport.ts): its adapter_config in the metadata
    const { configJson } = serializeAdapter(spec, params, table);
    const bytes = serializeAdapter(spec, params, table, { adapter_config: configJson }).safetensors;
    const [start] = TTSP.adapterFiles!([{ file: 'solver.safetensors', bytes }], cfg);
    expect([start.spec.name, start.spec.rank, start.spec.alpha]).toEqual(['solver', 2, 4]);
    expect(Array.from(start.params)).toEqual(Array.from(params));
    expect(() => TTSP.adapterFiles!([{ file: 'broken.safetensors', bytes: new Uint8Array(4) }], cfg)).toThrow(/broken\.safetensors/);
  });
});
