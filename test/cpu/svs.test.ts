// SvS (LOOPS.md §2) by hand: the bands at their inclusive edges, the variant reward and keep rules,
// the oracle's diagnostics; then the whole loop on a scripted policy whose every response the
// test chooses: SPA is graded against the ORIGINAL answer even where a variant's own value
// differs, advantages are never pooled across roles, the naive reward is hacked by variants that
// leak the answer while the shaped one is not, and the knobs (no-challenging policy, cost guard)
// do what they say. Invalid configs are refused naming the field.
import { describe, expect, it } from 'vitest';
import { diagnoseVariant, isChallenging, keepSolveGroup, keepVariantGroup, passRate, variantReward } from '../../src/loops/svs/logic';
import { SVS_DEFAULTS, validateSvsConfig, type SvsConfig } from '../../src/loops/svs/config';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { CurriculumRecord, LoopEvent } from '../../src/loops/events';
import { groupKey } from '../../src/rl/advantages';
import type { Trajectory } from '../../src/rl/trajectory';
import { evaluate, loadSet, parseExpr } from '../../src/world/index';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { collect, runOnCpu } from '../helpers/loops';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';

const c = { ...SVS_DEFAULTS, rl: undefined } as unknown as SvsConfig;

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

  it('the oracle: parses, true value, leak (the answer is one of its numbers), copy; truncated text is not extracted', () => {
    const orig = { text: '(7+5)*3', answer: 36 };
    expect(diagnoseVariant('36+0', true, orig)).toEqual({ parsed: true, value: 36, trueValid: true, leak: true, copy: false });
    expect(diagnoseVariant('35+1', true, orig)).toEqual({ parsed: true, value: 36, trueValid: true, leak: false, copy: false });
    expect(diagnoseVariant('(7+5)*3', true, orig)).toMatchObject({ trueValid: true, leak: false, copy: true });
    expect(diagnoseVariant('7*5', true, orig)).toMatchObject({ parsed: true, trueValid: false });
    expect(diagnoseVariant('7+*', true, orig)).toMatchObject({ parsed: false, trueValid: false, leak: false });
    expect(diagnoseVariant('35+1', false, orig).parsed).toBe(false);
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

// ---- the scripted policy
// Originals: 2 of 8 answers right (p = 1/4, challenging). Variants of each correct solution, by
// sample g: g ≡ 0 mod 4 leaks the answer (`a+0`, always solved), g ≡ 1 is a fair variant
// (`(a-1)+1`, solved 3 times in 8), g ≡ 2 has another value (`a+1`, answered by its own value,
// so wrong against the original), g ≡ 3 does not parse.
const problemOf = (prompt: string) => prompt.replace(/^<bos><solve>/, '').replace(/=$/, '');
const valueOf = (text: string) => {
  const p = parseExpr(text);
  const v = p.ok ? evaluate(p.expr) : null;
  return v?.ok ? v.value : NaN;
};
const script: Script = (prompt, role, g, dataType) => {
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

/** Runs `steps` steps of SvS on the scripted policy; the events without boundaries, and the engine. */
async function runScripted(config: Partial<SvsConfig> & Record<string, unknown>, s: Script = script) {
  const def = loopNamed('svs');
  const cfg = def.spec.validate({ steps: 1, problemsPerStep: 2, evalProblems: 1, evalN: 1, trainProblems: 64, samplesPerStep: 2, ...config });
  const engine = scriptedEngine(s);
  const events: LoopEvent[] = [];
  for await (const e of driveLoop(def, engine, cfg)) if (e.type !== 'boundary' && e.type !== 'phase') events.push(e);
  const step = events.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>;
  const records = (events.find((e) => e.type === 'records') as Extract<LoopEvent, { type: 'records' }> | undefined)?.records ?? [];
  return { engine, step, records, events };
}

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
  });

  it('naive reward pays the variants that leak the answer; the shaped reward does not', async () => {
    const shaped = await runScripted({ variantReward: 'shaped' });
    const naive = await runScripted({ variantReward: 'naive' });
    const leaking = (rs: CurriculumRecord[]) => rs.filter((r) => r.leak);
    for (const run of [shaped, naive]) {
      // a quarter of the variants, a third of those that parse, carry the answer
      expect(leaking(run.records)).toHaveLength(8);
      expect(run.step.metrics['vps/leak']).toBeCloseTo(2 / 6, 12);
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
