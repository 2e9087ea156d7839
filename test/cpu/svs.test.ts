// SvS (LOOPS.md §2) by hand: the bands at their inclusive edges, the variant reward and keep rules,
// the oracle's diagnostics; then the whole loop on a scripted policy whose every response the
// test chooses: SPA is graded against the ORIGINAL answer even where a variant's own value
// differs, advantages are never pooled across roles, the naive reward is hacked by variants that
// leak the answer while the shaped one is not, and the knobs (no-challenging policy, cost guard)
// do what they say. Invalid configs are refused naming the field.
import { describe, expect, it } from 'vitest';
import { diagnoseVariant, isChallenging, keepSolveGroup, keepVariantGroup, leakBase, leaksAnswer, passRate, seededSubset, variantReward } from '../../src/loops/svs/logic';
import { SVS_DEFAULTS, validateSvsConfig, type SvsConfig } from '../../src/loops/svs/config';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { CurriculumRecord, LoopEvent } from '../../src/loops/events';
import { groupKey } from '../../src/rl/advantages';
import type { Trajectory } from '../../src/rl/trajectory';
import { evaluate, goldVariant, loadSet, makeRng, MAX_OPS, parseExpr, resolveDifficulty, toProblem, type Expr, type Problem } from '../../src/world/index';
import { nodesWithPaths } from '../../src/world/expr';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { problemOf, runScripted, script, valueOf } from '../helpers/svsScript';
import { collect, runOnCpu } from '../helpers/loops';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';

const c = { ...SVS_DEFAULTS, rl: undefined } as unknown as SvsConfig;
const expr = (text: string): Expr => {
  const p = parseExpr(text);
  if (!p.ok) throw new Error(text);
  return p.expr;
};
const evalText = (text: string) => {
  const r = evaluate(expr(text));
  if (!r.ok) throw new Error(text);
  return r.value;
};
const literalsOf = (e: Expr) => nodesWithPaths(e).flatMap(({ node }) => (node.kind === 'num' ? [node.value] : []));

describe('SvS rules by hand', () => {
  it('challenging: acc_l ≤ p ≤ acc_h inclusive, 1 and 4 of 8 in, 0 and 5 of 8 out', () => {
    expect([0, 1, 2, 3, 4, 5, 8].map((k) => isChallenging(k / 8, c))).toEqual([false, true, true, true, true, false, false]);
  });

  it('shaped variant reward: 1 and 5 of 8 rewarded, 0 and 6 of 8 not; naive: any p̂ > 0; an unextracted variant earns 0', () => {
    expect([0, 1, 5, 6, 8].map((k) => variantReward(k / 8, c))).toEqual([0, 1, 1, 0, 0]);
    expect([0, 1, 5, 6, 8].map((k) => variantReward(k / 8, { ...c, variantReward: 'naive' }))).toEqual([0, 1, 1, 1, 1]);
    expect(variantReward(null, c)).toBe(0);
    expect(variantReward(null, { ...c, variantReward: 'naive' })).toBe(0);
  });

  it('keeps a VPS group iff some variant earned R_v = 1, a solve group iff 0 < p < 1', () => {
    expect(keepVariantGroup([0, 0, 1, 0])).toBe(true);
    expect(keepVariantGroup([0, 0, 0, 0])).toBe(false);
    expect([0, 0.125, 0.875, 1].map(keepSolveGroup)).toEqual([false, true, true, false]);
    expect(passRate([1, 0, 0, 1])).toBe(0.5);
  });

  it('the oracle: parses, true value, leak (it hands the answer over), copy; truncated text is not extracted', () => {
    const orig = { text: '(7+5)*3', expr: expr('(7+5)*3'), answer: 36 };
    expect(diagnoseVariant('36+0', true, orig)).toEqual({ parsed: true, value: 36, trueValid: true, leak: true, copy: false });
    expect(diagnoseVariant('35+1', true, orig)).toEqual({ parsed: true, value: 36, trueValid: true, leak: false, copy: false });
    expect(diagnoseVariant('(7+5)*3', true, orig)).toMatchObject({ trueValid: true, leak: false, copy: true });
    expect(diagnoseVariant('7*5', true, orig)).toMatchObject({ parsed: true, trueValid: false });
    expect(diagnoseVariant('7+*', true, orig)).toMatchObject({ parsed: false, trueValid: false, leak: false });
    expect(diagnoseVariant('35+1', false, orig).parsed).toBe(false);
  });

  it('leak: the variant hands the answer over (the rest cancels out) where the original did not; a literal equal to the answer is not enough', () => {
    const leaks = (variant: string, original: string) => leaksAnswer(expr(variant), expr(original), evalText(original));
    // handed over: one trivial operation, or operations that cancel, around the answer itself
    for (const v of ['36+0', '0+36', '36*1', '36-0', 'max(36,2)', 'min(99,36)', '36+5-5', 'mod(36,40)', '36']) expect(leaks(v, '(7+5)*3'), v).toBe(true);
    // not handed over: no literal is the answer, or the answer is a literal the value does not follow
    for (const v of ['35+1', '(7+5)*3', '3*(5+7)', '36+1', 'max(36,40)']) expect(leaks(v, '(7+5)*3'), v).toBe(false);
    // 4*2-4 holds its answer 4 as a literal, and so does its rewrite: neither hands it over
    expect(leaks('2*4-4', '4*2-4')).toBe(false);
    // an original born handing its answer over (max(7,3)) has no variant that leaks
    expect(leaks('7+0', 'max(7,3)')).toBe(false);
    expect(leaks('7+0', '4+3')).toBe(true);
  });

  it('over gold variants of the training set the leak flag fires under 5 % (the old "answer is a literal" over a fifth)', () => {
    const spec = resolveDifficulty(MAX_OPS);
    const rng = makeRng(11);
    let drawn = 0, flagged = 0, literal = 0;
    for (const p of loadSet('train')) {
      for (let k = 0; k < 2; k++) {
        const v = goldVariant(rng, p, spec);
        if (!v) continue;
        drawn++;
        if (leaksAnswer(v.expr, p.expr, p.answer)) flagged++;
        if (literalsOf(v.expr).includes(p.answer)) literal++;
      }
    }
    expect(drawn).toBeGreaterThan(1500);
    expect(flagged / drawn).toBeLessThan(0.05);
    expect(literal / drawn).toBeGreaterThan(0.2);
    // leakBase (vps/leak_base) counts the same way
    const base = loadSet('train').slice(0, 200).map((p) => leakBase(makeRng(5), p, 4));
    const rate = base.reduce((a, b) => a + b.flagged, 0) / base.reduce((a, b) => a + b.drawn, 0);
    expect(rate).toBeLessThan(0.05);
    // and it flags the gold variants that do hand the answer over: max(3*2,5) substituted to max(6,5)
    const p = toProblem(expr('max(3*2,5)')) as Problem;
    const some = leakBase(makeRng(1), p, 60);
    expect(some.drawn).toBe(60);
    expect(some.flagged).toBeGreaterThan(0);
    expect(some.flagged).toBeLessThan(60);
  });

  it('the cost guard\'s subset: k distinct indices in increasing order, one draw each; all, undrawn, when n ≤ k', () => {
    let draws = 0;
    const rand = () => (draws++, 0.999);
    expect(seededSubset(rand, 3, 5)).toEqual([0, 1, 2]);
    expect(draws).toBe(0);
    // 0.999 takes the last remaining slot each time: 4, then the 0 the first swap put there
    expect(seededSubset(rand, 5, 2)).toEqual([0, 4]);
    expect(draws).toBe(2);
    const r = makeRng(3);
    for (let t = 0; t < 20; t++) {
      const s = seededSubset(r, 6, 3);
      expect(new Set(s).size).toBe(3);
      expect([...s].sort((a, b) => a - b)).toEqual(s);
    }
  });
});

describe('SvS config', () => {
  it('takes the paper\'s values by default and refuses what cannot work, naming the field', () => {
    const d = validateSvsConfig({});
    expect(d).toMatchObject({ groupSize: 8, variantsPerSolution: 8, accLow: 0.125, accHigh: 0.5, variantAccLow: 0.125, variantAccHigh: 0.625, variantReward: 'shaped' });
    expect(d.rl).toMatchObject({ dualClipC: 3, clipHigh: 0.28, aggregation: 'token_mean', advEps: 1e-6 });
    expect(() => validateSvsConfig({ accLow: 0.6, accHigh: 0.5 })).toThrow(/svs\.accLow = 0\.6: must be ≤ accHigh/);
    expect(() => validateSvsConfig({ variantAccLow: 0.7 })).toThrow(/svs\.variantAccLow = 0\.7: must be ≤ variantAccHigh/);
    expect(() => validateSvsConfig({ variantsPerSolution: 0 })).toThrow(/svs\.variantsPerSolution = 0: must be ≥ 1/);
    expect(() => validateSvsConfig({ groupSize: 1 })).toThrow(/svs\.groupSize = 1: must be ≥ 2/);
    expect(() => validateSvsConfig({ variantReward: 'nave' })).toThrow(/variantReward.*naive/);
    // DAPO's dynamic sampling is GRPO's: set for SvS, it is refused rather than ignored
    expect(() => validateSvsConfig({ rl: { dynamicSampling: true, filterZeroVariance: true } })).toThrow(/svs\.rl\.dynamicSampling = true: the loop does not use this setting/);
    expect(() => validateSvsConfig({ rl: { maxGenBatches: 3 } })).toThrow(/svs\.rl\.maxGenBatches = 3: the loop does not use this setting/);
    expect(() => validateSvsConfig({ acc_l: 0.1 })).toThrow(/unknown key "acc_l"/);
    expect(() => validateSvsConfig({ variantsPerSolution: 1 })).toThrow(/svs\.variantsPerSolution = 1: a VPS group of one variant has no baseline/);
    expect(validateSvsConfig({ variantsPerSolution: 1, rl: { singletonAdvantage: 'verl' } }).variantsPerSolution).toBe(1);
    expect(() => validateSvsConfig({ trainProblems: 5000 })).toThrow(/svs\.trainProblems = 5000: the set train holds 1000 problems/);
    expect(() => validateSvsConfig({ evalProblems: 5000 })).toThrow(/svs\.evalProblems = 5000: the set eval-mixed holds \d+ problems/);
  });
});

// ---- the scripted policy (test/helpers/svsScript.ts)

describe('SvS on a scripted policy', () => {
  // the training set's problems the script meets are all within the world's bounds
  expect(loadSet('train').length).toBeGreaterThan(64);

  it('synthesises from every correct solution of a challenging problem and grades SPA against the original answer', async () => {
    const { step, records } = await runScripted({});
    // 2 problems × 2 correct solutions = 4 sources, 8 variants each
    expect(step.metrics['synthesis/sources']).toBe(4);
    expect(records).toHaveLength(32);
    const byKind = (g: number) => records.filter((_, i) => i % 8 === g);
    // a+1 evaluates to another value: its answers (its own value) are wrong against the original
    for (const r of byKind(2)) expect(r).toMatchObject({ parsed: true, trueValid: false, pHat: 0, reward: 0 });
    for (const r of byKind(1)) expect(r).toMatchObject({ parsed: true, trueValid: true, leak: false, pHat: 3 / 8, reward: 1 });
    for (const r of byKind(3)) expect(r).toMatchObject({ parsed: false, pHat: null, reward: 0 });
    expect(step.metrics['vps/extracted']).toBe(6 / 8);
    expect(step.metrics['vps/true_valid']).toBeCloseTo(4 / 6, 12);
    expect(step.metrics.challenging).toBe(2);
  });

  it('trains OQA, VPS and SPA groups each in their own advantage group, never pooled across roles', async () => {
    const { engine, step } = await runScripted({});
    const batch = engine.updates[0];
    expect(new Set(batch.map((t) => t.dataType))).toEqual(new Set(['oqa', 'vps', 'spa']));
    // every group holds one role and one data type, and its advantages are its own rewards minus its own mean
    const groups = new Map<string, typeof batch>();
    for (const t of batch) groups.set(groupKey(t), [...(groups.get(groupKey(t)) ?? []), t]);
    for (const g of groups.values()) {
      expect(new Set(g.map((t) => `${t.role}/${t.dataType}`)).size).toBe(1);
      const mean = g.reduce((a, t) => a + t.reward, 0) / g.length;
      for (const t of g) expect(Math.sign(t.advantage as number)).toBe(Math.sign(t.reward - mean));
    }
    // kept: OQA groups (p = 1/4), VPS groups (some R_v = 1), SPA groups of fair variants only (0 < p̂ < 1)
    expect([step.metrics['mix/oqa'], step.metrics['mix/vps'], step.metrics['mix/spa']]).toEqual([16, 32, 8 * 8]);
    // the SPA groups trained are the fair variants' alone, all truly valid: 1, where the parsed
    // variants as a whole (leaks and another value among them) are valid 4 in 6
    expect(step.metrics['spa/true_valid']).toBe(1);
    expect(step.metrics['vps/true_valid']).toBeCloseTo(4 / 6, 12);
  });

  it('naive reward pays the variants that leak the answer; the shaped reward does not', async () => {
    const shaped = await runScripted({ variantReward: 'shaped' });
    const naive = await runScripted({ variantReward: 'naive' });
    // a quarter of the variants are `a+0`, the answer handed over
    const leaking = (rs: CurriculumRecord[]) => rs.filter((r) => /^\d+\+0$/.test(r.variant as string));
    for (const run of [shaped, naive]) {
      expect(leaking(run.records)).toHaveLength(8);
      // the step's problems are 6*1*9 and 2+0: the flag fires on 54+0, not on 2+0, which hands
      // nothing over that its original did not (it is the original again)
      expect(run.records.filter((r) => r.leak).map((r) => r.variant)).toEqual(Array(4).fill('54+0'));
      expect(run.records.filter((r) => r.variant === '2+0').every((r) => r.copy && !r.leak)).toBe(true);
      expect(run.step.metrics['vps/leak']).toBeCloseTo(4 / 24, 12);
    }
    expect(leaking(naive.records).every((r) => r.reward === 1 && r.pHat === 1)).toBe(true);
    expect(leaking(shaped.records).every((r) => r.reward === 0)).toBe(true);
    // and the update pushes toward them under naive only: their advantage against their group
    const adv = (run: typeof naive) => run.engine.updates[0].filter((t) => t.dataType === 'vps' && /^\d+\+0$/.test((t as Trajectory & { text: string }).text)).map((t) => t.advantage as number);
    expect(adv(naive).every((a) => a > 0)).toBe(true);
    expect(adv(shaped).every((a) => a < 0)).toBe(true);
    expect(naive.step.metrics['vps/reward']).toBe(2 / 4);
    expect(shaped.step.metrics['vps/reward']).toBe(1 / 4);
  });

  it('without a challenging problem: trains on OQA only, or skips the step (the released code)', async () => {
    // 5 of 8 right: not challenging, but mixed, so OQA groups train
    const easy: Script = (prompt, role, g) => (role === 'solve' ? (g < 5 ? `#${valueOf(problemOf(prompt))}` : '#0') : '1');
    const oqa = await runScripted({ noChallenging: 'oqa' }, easy);
    expect(oqa.step.metrics).toMatchObject({ challenging: 0, 'mix/oqa': 16, 'mix/vps': 0, 'mix/spa': 0, skipped: 0 });
    expect(oqa.engine.updates).toHaveLength(1);
    const skip = await runScripted({ noChallenging: 'skip' }, easy);
    expect(skip.step.metrics).toMatchObject({ challenging: 0, 'mix/oqa': 0, skipped: 1 });
    expect(skip.engine.updates).toHaveLength(0);
  });

  it('counts in the data mix only what trains: with filterZeroVariance a VPS group whose variants all earned R_v = 1 is dropped', async () => {
    // every variant fair (3 of 8 solved): R_v = 1 for all, a VPS group without variance
    const fair: Script = (prompt, role, g, dataType) => (role === 'vary' ? `${Number(/#(-?\d+)<sep>$/.exec(prompt)?.[1]) - 1}+1` : script(prompt, role, g, dataType));
    const on = await runScripted({ rl: { filterZeroVariance: true } as never }, fair);
    expect(on.step.metrics['mix/vps']).toBe(0);
    expect(on.records.every((r) => r.kept === false && r.reward === 1)).toBe(true);
    const off = await runScripted({}, fair);
    expect(off.step.metrics['mix/vps']).toBe(32);
  });

  it('a skipped step trains nothing, and its records say so', async () => {
    const none: Script = (_prompt, role) => (role === 'solve' ? '#999' : '1');
    const r = await runScripted({ noChallenging: 'skip' }, none);
    expect(r.step.metrics.skipped).toBe(1);
    expect(r.records).toHaveLength(0);
  });

  it('caps the solutions used for synthesis at maxSynthesisSources', async () => {
    const { step, records } = await runScripted({ maxSynthesisSources: 1 });
    expect(step.metrics['synthesis/sources']).toBe(1);
    expect(records).toHaveLength(8);
  });

  it('a resumed run draws the problems the uninterrupted run would', async () => {
    const whole = await runScripted({ steps: 2 });
    const problems = (evs: LoopEvent[]) => evs.filter((e) => e.type === 'records').map((e) => (e as Extract<LoopEvent, { type: 'records' }>).records[0].problem);
    const def = loopNamed('svs');
    const cfg = def.spec.validate({ steps: 2, problemsPerStep: 2, evalProblems: 1, evalN: 1, trainProblems: 64, samplesPerStep: 2 });
    const ckpt = whole.events.find((e) => e.type === 'checkpoint' && e.step === 2) as Extract<LoopEvent, { type: 'checkpoint' }>;
    expect(ckpt.state).toEqual({ draws: 4 });
    const resumed: LoopEvent[] = [];
    for await (const e of driveLoop(def, scriptedEngine(script), cfg, { resume: { step: 1, optimiser: ckpt.optimiser, state: { draws: 2 } } })) resumed.push(e);
    expect(problems(resumed)).toEqual(problems(whole.events).slice(1));
  });
});

describe('SvS on CPU mode\'s engine', () => {
  it('runs a step on the tiny policy, as the page\'s CPU mode would', async () => {
    const tiny = await loadCheckpointDir('public/models/tiny');
    const evs = await collect(runOnCpu('svs', tiny.cfg, tiny.params, { steps: 1, problemsPerStep: 2, groupSize: 2, variantsPerSolution: 2, maxNewTokens: 12, maxVariantTokens: 12, trainProblems: 16, evalProblems: 1, evalN: 1, samplesPerStep: 1 }));
    expect(evs.map((e) => e.type)).toEqual(['eval', 'step', 'samples', 'eval', 'checkpoint', 'done']);
    const step = evs[1] as Extract<LoopEvent, { type: 'step' }>;
    for (const [k, v] of Object.entries(step.metrics)) expect(Number.isFinite(v), k).toBe(true);
  });
});
