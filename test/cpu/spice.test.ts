// SPICE (LOOPS.md §3) by hand: the four challenger reward shapes against LOOPS.md's table, what a
// challenger output is and what the oracle says of it; corpus files refused by line number; then
// the whole loop on a scripted policy whose every output the test chooses: one challenger group
// per document and one reasoner group per valid question, Dr. GRPO advantages per role, invalid
// outputs paid invalidReward, and the ablations (frozen challenger, no corpus) doing what they say.
import { describe, expect, it } from 'vitest';
import { challengerReward, diagnoseQuestion, leakBaseRate, rewardCurve } from '../../src/loops/spice/logic';
import { validateSpiceConfig, type SpiceConfig } from '../../src/loops/spice/config';
import { corpusDocuments, corpusError, corpusText } from '../../src/loops/spice/corpus';
import { GENERATED_CORPUS } from '../../src/config/fields';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { LoopEvent } from '../../src/loops/events';
import { groupKey } from '../../src/rl/advantages';
import { parseDocument, renderDocument } from '../../src/world/index';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { collect, runOnCpu } from '../helpers/loops';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';

const round3 = (xs: number[]) => xs.map((x) => Math.round(x * 1000) / 1000);
const ofEight = (f: (p: number) => number) => round3(Array.from({ length: 9 }, (_, k) => f(k / 8)));

describe('SPICE challenger reward by hand', () => {
  it('gaussian, τ = 0.01, for 0..8 of 8 right: LOOPS.md\'s table', () => {
    expect(ofEight((p) => challengerReward(p, 'gaussian', 0.01))).toEqual([0.044, 0.372, 0.823, 0.988, 1, 0.988, 0.823, 0.372, 0.044]);
  });
  it('r-zero 1 − 2|p − ½|, absolute-zero 1 − p on 0 < p < 1, threshold 𝟙[0 < p < 1]', () => {
    expect(ofEight((p) => challengerReward(p, 'r-zero', 0.01))).toEqual([0, 0.25, 0.5, 0.75, 1, 0.75, 0.5, 0.25, 0]);
    expect(ofEight((p) => challengerReward(p, 'absolute-zero', 0.01))).toEqual([0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125, 0]);
    expect(ofEight((p) => challengerReward(p, 'threshold', 0.01))).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 0]);
  });
  it('τ sharpens the gaussian; the drawn curve is the shape', () => {
    expect(challengerReward(0.25, 'gaussian', 0.001)).toBeLessThan(challengerReward(0.25, 'gaussian', 0.01));
    const curve = rewardCurve('r-zero', 0.01, 4);
    expect(curve).toEqual([{ p: 0, r: 0 }, { p: 0.25, r: 0.5 }, { p: 0.5, r: 1 }, { p: 0.75, r: 0.5 }, { p: 1, r: 0 }]);
  });
});

describe('SPICE challenger outputs and the oracle', () => {
  const doc = (parseDocument('a=7;b=a+5;c=b*3') as { ok: true; doc: Parameters<typeof renderDocument>[0] }).doc;
  it('a valid question: gold against its true value, leak, copy, grounded, operations', () => {
    expect(diagnoseQuestion('(7+5)*3#36', true, doc)).toEqual({ format: 'valid', question: '(7+5)*3', gold: 36, value: 36, goldCorrect: true, leak: false, copy: false, grounded: true, ops: 2 });
    expect(diagnoseQuestion('12*3#35', true, doc)).toMatchObject({ goldCorrect: false, value: 36, grounded: false, ops: 1 });
    expect(diagnoseQuestion('36+0#36', true, doc)).toMatchObject({ leak: true, goldCorrect: true });
    // the record shows b=a+5=12;c=b*3=36: a question made of a piece of it is a copy
    expect(renderDocument(doc, true)).toBe('a=7;b=a+5=12;c=b*3=36');
    expect(diagnoseQuestion('7+5#12', true, { ...doc, statements: [...doc.statements, { name: 'd', expr: { kind: 'op', op: '+', left: { kind: 'num', value: 7 }, right: { kind: 'num', value: 5 } }, value: 12 }] })).toMatchObject({ copy: true });
    expect(diagnoseQuestion('12*3#36', true, null)).toMatchObject({ copy: false, grounded: false, goldCorrect: true });
    // a copy is a whole piece of the record, not any substring: 2 is inside 12, but no piece
    expect(diagnoseQuestion('2#2', true, doc)).toMatchObject({ format: 'valid', copy: false });
    expect(diagnoseQuestion('12#12', true, doc)).toMatchObject({ format: 'valid', copy: true });
  });
  it('invalid: no gold, a question that does not parse, an output cut at the limit', () => {
    expect(diagnoseQuestion('12*3', true, doc).format).toBe('no_gold');
    expect(diagnoseQuestion('12*3#x', true, doc).format).toBe('no_gold');
    expect(diagnoseQuestion('', true, doc).format).toBe('no_gold');
    expect(diagnoseQuestion('12*#36', true, doc).format).toBe('bad_question');
    expect(diagnoseQuestion('12*3#36', false, doc)).toMatchObject({ format: 'cut', question: null, gold: null });
  });
});

describe('SPICE corpus and config', () => {
  it('refuses a corpus file with bad lines, each named by its line; blank lines and spaces are fine', () => {
    expect(corpusError('a=7;b=a+5\n\n x = 4 ; y = x * 3 \r\n')).toBeNull();
    const e = corpusError('a=7;b=a+5\nhello\na=1;b=a+1=3\n');
    expect(e).toMatch(/^2 of 3 documents are not valid: line 2: .*; line 3: statement 2 'b=a\+1=3': stated value 3 but a\+1 is 2/);
    expect(corpusError('\n\n')).toMatch(/no valid document/);
    expect(() => validateSpiceConfig({ corpus: 'a=7;b=a+5\nhello\n' })).toThrow(/spice\.corpus: 1 of 2 documents are not valid: line 2: /);
  });
  it('the generated corpus is fixed: the same documents everywhere, and written back as a file it loads again', () => {
    const a = corpusDocuments({ corpus: GENERATED_CORPUS, corpusDocuments: 64 });
    expect(a).toHaveLength(64);
    const text = corpusText(a);
    expect(corpusError(text)).toBeNull();
    expect(corpusDocuments({ corpus: text, corpusDocuments: 1 }).map((d) => d.text)).toEqual(a.map((d) => d.text));
  });
  it('takes the paper\'s values by default and refuses what cannot work, naming the field', () => {
    const d = validateSpiceConfig({});
    expect(d).toMatchObject({ questionsPerDocument: 8, answersPerQuestion: 8, challengerReward: 'gaussian', tau: 0.01, invalidReward: 0, useCorpus: true, frozenChallenger: false, corpus: 'generated' });
    expect(d.rl).toMatchObject({ advantage: 'none', aggregation: 'constant_norm', beta: 0 });
    expect(() => validateSpiceConfig({ challengerReward: 'gauss' })).toThrow(/spice\.challengerReward = "gauss": must be one of gaussian, r-zero, absolute-zero, threshold/);
    expect(() => validateSpiceConfig({ tau: 0 })).toThrow(/spice\.tau = 0: must be > 0/);
    expect(() => validateSpiceConfig({ invalidReward: -2 })).toThrow(/spice\.invalidReward = -2: must be ≥ -1/);
    expect(() => validateSpiceConfig({ answersPerQuestion: 1 })).toThrow(/spice\.answersPerQuestion = 1: /);
    expect(() => validateSpiceConfig({ questionsPerDocument: 1 })).toThrow(/spice\.questionsPerDocument = 1: a challenger group of one/);
    expect(validateSpiceConfig({ questionsPerDocument: 1, frozenChallenger: true }).questionsPerDocument).toBe(1);
    expect(() => validateSpiceConfig({ rl: { advantage: 'external' } })).toThrow(/spice\.rl\.advantage = external/);
    expect(() => validateSpiceConfig({ rl: { dynamicSampling: true, filterZeroVariance: true } })).toThrow(/the loop does not use this setting/);
    expect(() => validateSpiceConfig({ corpus: '' })).toThrow(/spice\.corpus = "": must be a non-empty string/);
  });
});

// ---- the scripted policy: per document, output g of the challenger is
//   g = 0  2+3#5   a fair question: the reasoner is right 4 times in 8 (p = ½)
//   g = 1  2+4#7   a wrong gold (its value is 6): the reasoner answers 6, never the gold (p = 0)
//   g = 2  2+4     no gold: invalid
//   g = 3  7+0#7   it leaks its answer: always solved (p = 1)
const challenger = ['2+3#5', '2+4#7', '2+4', '7+0#7'];
const script: Script = (prompt, role, g) => {
  if (role === 'challenge') return challenger[g % 4];
  const q = prompt.replace(/^<bos><solve>/, '').replace(/=$/, '');
  if (q === '2+3') return g < 4 ? '#5' : '#6';
  if (q === '2+4') return '#6';
  return '#7';
};

async function runScripted(config: Partial<SpiceConfig> & Record<string, unknown>, s: Script = script) {
  const def = loopNamed('spice');
  const cfg = def.spec.validate({ steps: 1, documentsPerStep: 2, questionsPerDocument: 4, answersPerQuestion: 8, evalProblems: 1, evalN: 1, samplesPerStep: 2, ...config });
  const engine = scriptedEngine(s);
  const events = await collect(driveLoop(def, engine, cfg));
  const step = events.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>;
  const records = (events.find((e) => e.type === 'records') as Extract<LoopEvent, { type: 'records' }> | undefined)?.records ?? [];
  return { engine, step, records, events };
}

const g8 = (k: number) => challengerReward(k / 8, 'gaussian', 0.01);

describe('SPICE on a scripted policy', () => {
  it('pays the challenger by the reasoner pass rate, invalid outputs invalidReward; the reasoner by the gold', async () => {
    const { step, records } = await runScripted({});
    expect(records).toHaveLength(8);
    expect(records.map((r) => r.format)).toEqual(['valid', 'valid', 'no_gold', 'valid', 'valid', 'valid', 'no_gold', 'valid']);
    expect(records.map((r) => r.p)).toEqual([0.5, 0, null, 1, 0.5, 0, null, 1]);
    expect(records.map((r) => r.reward)).toEqual([g8(4), g8(0), 0, g8(8), g8(4), g8(0), 0, g8(8)]);
    expect(records[0]).toMatchObject({ question: '2+3', gold: 5, value: 5, goldCorrect: true, answers: '5✓ 5✓ 5✓ 5✓ 6 6 6 6' });
    expect(records[1]).toMatchObject({ goldCorrect: false, value: 6, answers: '6 6 6 6 6 6 6 6' });
    expect(records[3]).toMatchObject({ leak: true, goldCorrect: true });
    expect(step.metrics).toMatchObject({ reward: 12 / 24, 'challenger/valid': 0.75, 'format/valid': 0.75, 'format/no_gold': 0.25, 'format/bad_question': 0, 'format/cut': 0, questions: 6, 'question/frontier': 1 / 3 });
    expect(step.metrics['challenger/reward']).toBeCloseTo((2 * g8(4) + 4 * g8(0)) / 8, 12);
    expect(step.metrics['challenger/gold_acc']).toBeCloseTo(4 / 6, 12);
    expect(step.metrics['challenger/leak']).toBeCloseTo(2 / 6, 12);
    expect(step.metrics['challenger/leak_base']).toBeGreaterThanOrEqual(0);
    expect(step.metrics['question/ops']).toBe(1);
  });

  it('one challenger group per document and one reasoner group per question, Dr. GRPO advantages never pooled across roles', async () => {
    const { engine } = await runScripted({});
    const batch = engine.updates[0];
    expect(batch.filter((t) => t.role === 'challenge')).toHaveLength(8);
    expect(batch.filter((t) => t.role === 'solve')).toHaveLength(6 * 8);
    const groups = new Map<string, typeof batch>();
    for (const t of batch) groups.set(groupKey(t), [...(groups.get(groupKey(t)) ?? []), t]);
    expect([...groups.values()].map((g) => g.length).sort((a, b) => a - b)).toEqual([4, 4, 8, 8, 8, 8, 8, 8]);
    for (const g of groups.values()) {
      expect(new Set(g.map((t) => t.role)).size).toBe(1);
      const mean = g.reduce((a, t) => a + t.reward, 0) / g.length;
      // mean only (Dr. GRPO): no division by the group's standard deviation
      for (const t of g) expect(t.advantage as number).toBeCloseTo(t.reward - mean, 6);
    }
    expect(engine.settings?.rl).toMatchObject({ advantage: 'none', aggregation: 'constant_norm' });
    expect(engine.settings?.maxNewTokens).toBe(validateSpiceConfig({}).maxNewTokens);
  });

  it('invalidReward pays invalid outputs; the shape dropdown changes what valid ones earn', async () => {
    const neg = await runScripted({ invalidReward: -0.5 });
    expect(neg.records.filter((r) => !r.valid).map((r) => r.reward)).toEqual([-0.5, -0.5]);
    const rz = await runScripted({ challengerReward: 'r-zero' });
    expect(rz.records.map((r) => r.reward)).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    const th = await runScripted({ challengerReward: 'threshold' });
    expect(th.engine.updates[0].filter((t) => t.role === 'challenge').map((t) => t.reward)).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
  });

  it('entropy/solve is the reasoner\'s, entropy/challenge the challenger\'s, entropy/all both pooled, no bare entropy; frac_reward_zero_std counts the reasoner\'s groups before training', async () => {
    const def = loopNamed('spice');
    const cfg = def.spec.validate({ steps: 1, documentsPerStep: 2, questionsPerDocument: 4, answersPerQuestion: 8, evalProblems: 1, evalN: 1, samplesPerStep: 2 });
    const engine = scriptedEngine(script);
    const rollout = engine.rollout.bind(engine);
    const tokens = { challenge: 0, solve: 0 };
    // the challenger samples at entropy 0.9 a token, the reasoner at 0.3
    engine.rollout = (async (prompts, opts, reward) => {
      const out = await rollout(prompts, opts, reward);
      for (const t of out) (t.entropy = Array.from(t.responseTokens, () => (opts.role === 'challenge' ? 0.9 : 0.3))), (tokens[opts.role as 'challenge' | 'solve'] += t.responseTokens.length);
      return out;
    }) as typeof engine.rollout;
    const events = await collect(driveLoop(def, engine, cfg));
    const m = (events.find((e) => e.type === 'step') as Extract<LoopEvent, { type: 'step' }>).metrics;
    expect('entropy' in m).toBe(false);
    expect(m['entropy/solve']).toBeCloseTo(0.3, 6);
    expect(m['entropy/challenge']).toBeCloseTo(0.9, 6);
    expect(m['entropy/all']).toBeCloseTo((0.9 * tokens.challenge + 0.3 * tokens.solve) / (tokens.challenge + tokens.solve), 6);
    // reasoner groups: 2+3 (p = ½) has signal, 2+4#7 (p = 0) and 7+0#7 (p = 1) none: 4 of 6 on two
    // documents; the challenger's two groups (rewards g(½), g(0), 0, g(1)) both have signal. The
    // update pools both roles (4 of 8), which is not what loops compare
    expect(m.frac_reward_zero_std).toBeCloseTo(4 / 6, 12);
    expect(m['frac_reward_zero_std/challenge']).toBe(0);
    const frozen = await runScripted({ frozenChallenger: true }, (p, r, g) => (r === 'challenge' ? '2+4#7' : script(p, r, g, undefined)));
    // a frozen challenger's groups still count (every output is paid g(0): no signal), measured before the rule drops them
    expect(frozen.step.metrics['frac_reward_zero_std/challenge']).toBe(1);
    expect(frozen.step.metrics.frac_reward_zero_std).toBe(1);
  });

  it('frozen challenger: only the reasoner\'s answers train', async () => {
    const { engine, records } = await runScripted({ frozenChallenger: true });
    expect(records).toHaveLength(8);
    expect(new Set(engine.updates[0].map((t) => t.role))).toEqual(new Set(['solve']));
  });

  it('no corpus: the challenger is shown no document, and nothing is judged against one', async () => {
    const prompts: string[] = [];
    const { step, records } = await runScripted({ useCorpus: false }, (prompt, role, g, d) => (role === 'challenge' && prompts.push(prompt), script(prompt, role, g, d)));
    expect(new Set(prompts)).toEqual(new Set(['<bos><challenge><sep>']));
    expect(records.every((r) => r.document === '(no document)' && r.copy === false && r.grounded === false)).toBe(true);
    expect('challenger/copy' in step.metrics).toBe(false);
    const withDoc: string[] = [];
    await runScripted({}, (prompt, role, g, d) => (role === 'challenge' && withDoc.push(prompt), script(prompt, role, g, d)));
    expect(withDoc.every((p) => /^<bos><challenge>a=\d+;.+<sep>$/.test(p))).toBe(true);
  });

  it('reads a user\'s corpus: every document it shows comes from the file', async () => {
    const file = 'a=3;b=a*4\nx=2;y=x+9;z=y-1\n';
    const { records } = await runScripted({ corpus: file, documentsPerStep: 6 });
    expect(new Set(records.map((r) => r.document))).toEqual(new Set(['a=3;b=a*4=12', 'x=2;y=x+9=11;z=y-1=10']));
  });

  it('draws only documents whose prompt fits the policy\'s context, and says so when none does', async () => {
    const long = 'a=999;b=a-998;c=b+997;d=c-996;e=d+995;f=e-994';
    expect(renderDocument((parseDocument(long) as { ok: true; doc: Parameters<typeof renderDocument>[0] }).doc, true).length).toBeGreaterThan(56);
    const { records } = await runScripted({ corpus: `${long}\na=3;b=a*4\n`, documentsPerStep: 4 });
    expect(new Set(records.map((r) => r.document))).toEqual(new Set(['a=3;b=a*4=12']));
    await expect(runScripted({ corpus: long })).rejects.toThrow(/spice: no document of the corpus fits the policy's context of 64 tokens/);
  });

  it('a resumed run draws the documents the uninterrupted run would', async () => {
    const whole = await runScripted({ steps: 3 });
    const docs = (evs: LoopEvent[]) => evs.filter((e) => e.type === 'records').map((e) => (e as Extract<LoopEvent, { type: 'records' }>).records.map((r) => r.doc));
    const def = loopNamed('spice');
    const cfg = def.spec.validate({ steps: 3, documentsPerStep: 2, questionsPerDocument: 4, answersPerQuestion: 8, evalProblems: 1, evalN: 1, samplesPerStep: 2 });
    const ckpt = whole.events.find((e) => e.type === 'checkpoint' && e.step === 3) as Extract<LoopEvent, { type: 'checkpoint' }>;
    expect(ckpt.state).toEqual({ draws: 6 });
    const resumed = await collect(driveLoop(def, scriptedEngine(script), cfg, { resume: { step: 1, optimiser: ckpt.optimiser, state: { draws: 2 } } }));
    expect(docs(resumed)).toEqual(docs(whole.events).slice(1));
  });
});

describe('SPICE on CPU mode\'s engine', () => {
  it('runs a step on the tiny policy, as the page\'s CPU mode would', async () => {
    const tiny = await loadCheckpointDir('public/models/tiny');
    const evs = await collect(runOnCpu('spice', tiny.cfg, tiny.params, { steps: 1, documentsPerStep: 1, questionsPerDocument: 2, answersPerQuestion: 2, maxNewTokens: 12, maxQuestionTokens: 12, evalProblems: 1, evalN: 1, samplesPerStep: 1 }));
    expect(evs.map((e) => e.type)).toEqual(['eval', 'step', 'samples', 'records', 'eval', 'checkpoint', 'done']);
    const step = evs[1] as Extract<LoopEvent, { type: 'step' }>;
    for (const [k, v] of Object.entries(step.metrics)) expect(Number.isFinite(v), k).toBe(true);
  });
});

describe('SPICE cross-play matrix', () => {
  // checkpoint j's challenger writes `j+1#(j+1)` on every prompt (checkpoint 2 writes nothing
  // valid; checkpoint 3 writes `3+1#5`, a wrong gold); reasoner i answers a question `j+1` with
  // its true value iff i ≥ j, else 0. Every challenge prompt is kept.
  const challengePrompts: string[] = [];
  const engineFor = async (params: Float32Array) => {
    const k = params[0];
    return scriptedEngine((prompt, role) => {
      if (role === 'challenge') return (challengePrompts.push(prompt), k === 2 ? 'oops' : `${k}+1#${k === 3 ? 5 : k + 1}`);
      const j = Number(/^<bos><solve>(\d+)\+1=$/.exec(prompt)?.[1]);
      return k >= j ? `#${j + 1}` : '#0';
    });
  };
  const snaps = [0, 1, 2, 3].map((k) => ({ step: k * 5, params: new Float32Array([k]) }));

  it('reasoner i on challenger j\'s valid questions, rows by reasoner, graded by the gold and by the true value; a challenger with no valid question is a gap; progress counts both passes', async () => {
    const { crossPlay } = await import('../../src/loops/spice/crossplay');
    const c = validateSpiceConfig({});
    const progress: [number, number][] = [];
    const r = await crossPlay(c, snaps, engineFor, { documents: 3, answers: 2, seed: 1 }, (d, t) => progress.push([d, t]));
    expect(r.steps).toEqual([0, 5, 10, 15]);
    expect(r.valid).toEqual([3, 3, 0, 3]);
    // by the gold: challenger 3's gold 5 is wrong, so no reasoner scores on it, even the one that is right
    expect(r.passRate.gold).toEqual([
      [1, 0, null, 0],
      [1, 1, null, 0],
      [1, 1, null, 0],
      [1, 1, null, 0],
    ]);
    // by the true value (4): reasoner 3 solves it
    expect(r.passRate.value).toEqual([
      [1, 0, null, 0],
      [1, 1, null, 0],
      [1, 1, null, 0],
      [1, 1, null, 1],
    ]);
    expect(progress).toEqual([[1, 8], [2, 8], [3, 8], [4, 8], [5, 8], [6, 8], [7, 8], [8, 8]]);
    await expect(crossPlay(c, [], engineFor, { documents: 3, answers: 2, seed: 1 })).rejects.toThrow(/at least one checkpoint/);
    // the view draws one matrix per grading the spec names, and the result holds each
    const spec = loopNamed('spice').spec.views.crossPlay;
    expect(spec?.gradings.map((g) => g.key)).toEqual(['gold', 'value']);
    for (const g of spec?.gradings ?? []) expect(r.passRate[g.key]).toHaveLength(4);
  });

  it('builds the challenger\'s prompts as the run did: a document each, or none in the no-corpus ablation', async () => {
    const { crossPlay } = await import('../../src/loops/spice/crossplay');
    challengePrompts.length = 0;
    const withDocs = await crossPlay(validateSpiceConfig({}), snaps, engineFor, { documents: 3, answers: 2, seed: 1 });
    expect(withDocs.withDocuments).toBe(true);
    expect(challengePrompts).toHaveLength(12);
    expect(challengePrompts.every((p) => /^<bos><challenge>a=\d+;.+<sep>$/.test(p))).toBe(true);
    challengePrompts.length = 0;
    const none = await crossPlay(validateSpiceConfig({ useCorpus: false }), snaps, engineFor, { documents: 3, answers: 2, seed: 1 });
    expect(none.withDocuments).toBe(false);
    // the run's no-corpus prompt (the test above: '<bos><challenge><sep>'), for every checkpoint
    expect(challengePrompts).toEqual(Array(12).fill('<bos><challenge><sep>'));
    expect(none.passRate.value[3]).toEqual([1, 1, null, 1]);
  });
});

describe('spice: the leak flag has a base rate', () => {
  const docs = corpusDocuments({ corpus: GENERATED_CORPUS, corpusDocuments: 64 });
  it('is the flag on the world\'s gold questions of the documents: seeded, low (the flag means the answer is handed over)', () => {
    const a = leakBaseRate(docs, 1, 3);
    expect(a).toBe(leakBaseRate(docs, 1, 3));
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(0.35);
    expect(Number.isNaN(leakBaseRate([], 1, 3))).toBe(true);
  });
});
