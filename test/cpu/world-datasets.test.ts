import { describe, expect, it, vi } from 'vitest';
import { isHeldOut, listSets, loadSet, splitTargets, TRAIN_LEVELS } from '../../src/world/datasets';
import { sampleExample } from '../../src/world/examples';
import { evaluate } from '../../src/world/interpreter';
import { makeRng } from '../../src/world/rng';
import { decode, responseText, ROLES, type Role } from '../../src/world/tokenizer';
import { checkTrace, parseTrace } from '../../src/world/trace';

/** The problem texts of an example (not its trace steps, which may equal small problems). */
function problemsOf(role: Role, prompt: string[], response: string): string[] {
  const before = (text: string, mark: string) => text.split(mark)[0];
  switch (role) {
    case 'solve':
      return [before(prompt[0], '=')];
    case 'vary':
      // `PROBLEM=TRACE` (the ablation's prompt) shows the problem; SvS's `TRACE` alone shows none
      return prompt[0].split(';')[0].split('=').length === 3 ? [before(prompt[0], '='), response] : [response];
    case 'challenge':
      return [before(response, '#')];
    case 'teach':
      return [prompt[0], before(response, '<')];
    case 'propose':
      return [...prompt, before(response, '=')];
  }
}

const EXPECTED = ['eval-ops1', 'eval-ops2', 'eval-ops3', 'eval-ops4', 'eval-mixed', 'ttsp-candidates', 'train'];

describe('world data sets', () => {
  it('lists every set with its size', () => {
    const sets = listSets();
    expect(sets.map((s) => s.name)).toEqual(EXPECTED);
    for (const s of sets) expect(loadSet(s.name).length, s.name).toBe(s.size);
    expect(() => loadSet('nope')).toThrow(/unknown data set 'nope'; known sets: eval-ops1/);
  });

  it('gives gold answers with correct traces', () => {
    for (const { name } of listSets()) {
      for (const p of loadSet(name)) {
        expect(evaluate(p.expr)).toEqual({ ok: true, value: p.answer });
        const t = parseTrace(p.solution);
        if (!t.ok) throw new Error(p.solution);
        expect(checkTrace(p.expr, t.steps, t.answer)).toEqual({ ok: true });
      }
    }
  });

  it('spans the stated difficulties', () => {
    for (let ops = 1; ops <= 4; ops++) for (const p of loadSet(`eval-ops${ops}`)) expect(p.concepts.ops).toBe(ops);
    for (const name of ['eval-mixed', 'train']) {
      const counts = [0, 0, 0, 0, 0];
      for (const p of loadSet(name)) counts[p.concepts.ops]++;
      expect(counts[0]).toBe(0);
      // distinct problems: with operands 0..9 only a few hundred 1-operation problems exist in all
      for (let ops = 1; ops <= 4; ops++) expect(counts[ops], `${name} ops ${ops}`).toBeGreaterThan(loadSet(name).length / 12);
    }
  });

  it('builds the training set level by level and shuffles it, so any prefix has the same mix', () => {
    const counts = (ps: readonly { concepts: { ops: number } }[]) => [1, 2, 3, 4].map((ops) => ps.filter((p) => p.concepts.ops === ops).length);
    const train = loadSet('train');
    expect(counts(train)).toEqual([...TRAIN_LEVELS]);
    // the GRPO loop uses the first 256 by default: each level within 40 % of its share
    const head = counts(train.slice(0, 256));
    TRAIN_LEVELS.forEach((n, i) => expect(Math.abs(head[i] - (256 * n) / train.length), `ops ${i + 1}`).toBeLessThan((0.4 * 256 * n) / train.length));
  });

  it('keeps sets free of duplicates and held-out sets disjoint from everything', () => {
    const owner = new Map<string, string>();
    for (const { name } of listSets()) {
      for (const p of loadSet(name)) {
        expect(owner.get(p.text), `${p.text} in ${name}`).toBeUndefined();
        owner.set(p.text, name);
      }
    }
    for (const { name, heldOut } of listSets()) for (const p of loadSet(name)) expect(isHeldOut(p.text)).toBe(heldOut);
  });

  it('builds the same sets in a fresh module instance', async () => {
    const before = listSets().map((s) => loadSet(s.name).map((p) => p.text));
    vi.resetModules();
    const fresh = await import('../../src/world/datasets');
    const after = fresh.listSets().map((s) => fresh.loadSet(s.name).map((p) => p.text));
    expect(after).toEqual(before);
  });

  it('never puts a held-out problem in a pretraining example', () => {
    const rng = makeRng(2);
    for (const role of ROLES) {
      for (let i = 0; i < 1500; i++) {
        const ex = sampleExample(rng, role, 1 + (i % 2)); // small problems collide most often
        const prompt = decode(ex.prompt.slice(2)).split('<sep>').filter((s) => s.length > 0);
        const response = responseText(ex.response).text;
        for (const p of problemsOf(role, prompt, response)) expect(isHeldOut(p), `${role}: ${p}`).toBe(false);
      }
    }
  });

  it('splits TTSP targets by pass rate into MidHard (0.1, 0.7) and VeryHard (0, 0.1]', () => {
    const rates = [0, 0.01, 0.1, 0.1001, 0.5, 0.6999, 0.7, 1];
    const names = rates.map((r) => `p${r}`);
    expect(splitTargets(names, rates)).toEqual({ midHard: ['p0.1001', 'p0.5', 'p0.6999'], veryHard: ['p0.01', 'p0.1'] });
    expect(() => splitTargets(names, rates.slice(1))).toThrow(/8 problems but 7 pass rates/);
  });
});
