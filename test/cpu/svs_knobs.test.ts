// SvS's knobs and measures on the scripted policy (test/helpers/svsScript.ts): the vary prompt
// holds the solution alone unless variantContext asks for the problem too; the cost guard takes a
// seeded random subset of the sources, and a resumed run draws the same ones; the step reports
// the solving entropy, the pooled one and each task's, the groups with no signal before the keep
// rules, and the leak flag's base rate on gold variants.
import { describe, expect, it } from 'vitest';
import { driveLoop } from '../../src/loops/driver';
import { loopNamed } from '../../src/loops/registry';
import type { LoopEvent } from '../../src/loops/events';
import { decode, varyPrompt, varyPromptWithProblem } from '../../src/world/index';
import { scriptedEngine, type Script } from '../helpers/scriptedEngine';
import { collect } from '../helpers/loops';
import { problemOf, runScripted, script, svsConfig } from '../helpers/svsScript';

/** The scripted policy, also keeping every vary prompt and the step's original problems in order. */
function watched() {
  const vary: string[] = [];
  const originals: string[] = [];
  const s: Script = (prompt, role, g, dataType) => {
    if (role === 'vary' && g === 0) vary.push(prompt);
    if (dataType === 'oqa' && g === 0) originals.push(problemOf(prompt));
    return script(prompt, role, g, dataType);
  };
  return { s, vary, originals };
}

describe('SvS: what the vary prompt shows (variantContext)', () => {
  it('solution: the correct solution alone, never the problem text; problem+solution: the problem before it', async () => {
    for (const context of ['solution', 'problem+solution'] as const) {
      const w = watched();
      const { records } = await runScripted({ variantContext: context }, w.s);
      expect(w.vary).toHaveLength(4);
      // one prompt per source (two correct solutions of each problem), in source order
      const sources = records.filter((_, i) => i % 8 === 0);
      const want = sources.map((r) => decode(context === 'solution' ? varyPrompt(r.solution as string) : varyPromptWithProblem(r.problem as string, r.solution as string)));
      expect(w.vary).toEqual(want);
      for (const [k, p] of w.vary.entries()) expect(p.includes(`${sources[k].problem}=`), p).toBe(context === 'problem+solution');
    }
  });
});

describe('SvS: the cost guard takes a seeded random subset of the sources', () => {
  it('not always the first problem\'s solutions; the same subset for the same seed, and a resumed run draws it again', async () => {
    const w = watched();
    const cfg = { steps: 6, maxSynthesisSources: 1 };
    const whole = await runScripted(cfg, w.s);
    const byStep = (evs: LoopEvent[]) => evs.filter((e) => e.type === 'records').map((e) => (e as Extract<LoopEvent, { type: 'records' }>).records[0].problem);
    const chosen = byStep(whole.events);
    expect(chosen).toHaveLength(6);
    // each step's one source is a solution of one of its two problems; the first N would always be the first problem's
    chosen.forEach((p, i) => expect(w.originals.slice(2 * i, 2 * i + 2)).toContain(p));
    expect(chosen.some((p, i) => p !== w.originals[2 * i] && w.originals[2 * i] !== w.originals[2 * i + 1])).toBe(true);
    expect(byStep((await runScripted(cfg)).events)).toEqual(chosen);
    // the subset's draws are counted in the state: 2 problems and 1 subset draw a step
    const ckpt = whole.events.find((e) => e.type === 'checkpoint' && e.step === 6) as Extract<LoopEvent, { type: 'checkpoint' }>;
    expect(ckpt.state).toEqual({ draws: 6 * 3 });
    const at2 = (await runScripted({ ...cfg, steps: 2 })).events.find((e) => e.type === 'checkpoint') as Extract<LoopEvent, { type: 'checkpoint' }>;
    const resumed = await collect(driveLoop(loopNamed('svs'), scriptedEngine(script), svsConfig(cfg), { resume: { step: 2, optimiser: at2.optimiser, state: at2.state } }));
    expect(byStep(resumed)).toEqual(chosen.slice(2));
  });
});

describe('SvS: what a step measures', () => {
  // entropy by task, so the pooled and the solving means differ: OQA 0.2, VPS 1.0, SPA 0.4 a token
  const ENTROPY: Record<string, number> = { oqa: 0.2, vps: 1, spa: 0.4 };
  const engine = () => {
    const e = scriptedEngine(script);
    const rollout = e.rollout.bind(e);
    e.rollout = (async (prompts, opts, reward) => (await rollout(prompts, opts, reward)).map((t) => ({ ...t, entropy: Array.from(t.responseTokens, () => ENTROPY[opts.dataType as string]) }))) as typeof e.rollout;
    return e;
  };

  it('entropy/solve over OQA and SPA tokens, entropy/all over every token, per task beside them, and no bare entropy', async () => {
    const { step } = await runScripted({}, script, engine());
    const m = step.metrics;
    expect('entropy' in m).toBe(false);
    expect([m['entropy/oqa'], m['entropy/vps'], m['entropy/spa']].map((x) => +x.toFixed(12))).toEqual([0.2, 1, 0.4]);
    // token-weighted: OQA answers `#a` and SPA answers are short, variants vary in length
    expect(m['entropy/solve']).toBeGreaterThan(0.2);
    expect(m['entropy/solve']).toBeLessThan(0.4);
    expect(m['entropy/all']).toBeGreaterThan(m['entropy/solve']);
    expect(m['entropy/all']).toBeLessThan(1);
  });

  it('frac_reward_zero_std: the step\'s OQA and SPA groups whose rewards are all equal, before the keep rules drop them', async () => {
    const { step } = await runScripted({});
    // 2 OQA groups, both mixed (2 of 8); 4 sources × 6 extracted variants = 24 SPA groups: a+0 always
    // right and a+1 always wrong (16, no signal), the fair ones mixed (8)
    expect(step.metrics.frac_reward_zero_std).toBeCloseTo(16 / 26, 12);
    expect(step.metrics['frac_reward_zero_std/oqa']).toBe(0);
    expect(step.metrics['frac_reward_zero_std/spa']).toBeCloseTo(16 / 24, 12);
    // VPS groups: each source's 8 variants earn R_v 1 (fair) and 0 (the rest): none without signal
    expect(step.metrics['frac_reward_zero_std/vps']).toBe(0);
  });

  it('vps/leak_base: the leak flag on gold variants of the sources\' problems, drawn apart from the loop\'s rng', async () => {
    const a = await runScripted({ steps: 3 });
    for (const s of a.steps) {
      expect(s.metrics['vps/leak_base']).toBeGreaterThanOrEqual(0);
      expect(s.metrics['vps/leak_base']).toBeLessThan(0.25);
    }
    expect((await runScripted({ steps: 3 })).steps.map((s) => s.metrics['vps/leak_base'])).toEqual(a.steps.map((s) => s.metrics['vps/leak_base']));
    // without a source there is nothing to compare: left out, not 0
    const none = await runScripted({}, (_p, role) => (role === 'solve' ? '#999' : '1'));
    expect('vps/leak_base' in none.step.metrics).toBe(false);
  });
});
