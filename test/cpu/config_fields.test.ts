// Loop config fields as declared (issue 25 §2, issue 30 §5): bounds inclusive unless declared
// exclusive, with messages that say which; every count bounded in its own declaration, the
// bound admitting every set-up and the papers' values; the shared fields declared once; the
// launcher's widget chosen by what a field declares it holds, never by its name.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkField, type Field, type FieldSpec, type FieldSpecs } from '../../src/config/fields';
import { ConfigError } from '../../src/util/errors';
import { BASE_FIELDS, TOP_P } from '../../src/loops/base_config';
import { LOOP_NAMES, loopNamed } from '../../src/loops/registry';
import { RL_CORE_FIELDS, resolveRlConfig } from '../../src/rl/config';
import { widgetOf } from '../../src/ui/fieldWidget';
import { listSets } from '../../src/world/index';

const specOf = (loop: string) => loopNamed(loop).spec;
const fieldsOf = (loop: string) => specOf(loop).fields as Record<string, FieldSpec<unknown>>;
const validate = (loop: string, c: object) => specOf(loop).validate(c, loop);
const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return '(accepted)';
};

describe('bounds are inclusive unless declared exclusive', () => {
  it('no field declares a bound of 1.0000001; a rate takes 1 and refuses more with "must be ≤ 1"', () => {
    for (const loop of LOOP_NAMES) {
      for (const [k, f] of Object.entries(fieldsOf(loop))) {
        if (f.type.kind !== 'number' || f.type.max === undefined) continue;
        expect(String(f.type.max), `${loop}.${k}`).not.toMatch(/^1\.0+1$/);
      }
    }
    expect(messageOf(() => validate('grpo', { topP: 1 }))).toBe('(accepted)');
    expect(messageOf(() => validate('grpo', { topP: 1.0000001 }))).toBe('grpo.topP = 1.0000001: must be ≤ 1');
    expect(messageOf(() => validate('svs', { accHigh: 1, variantAccHigh: 1 }))).toBe('(accepted)');
    expect(messageOf(() => validate('svs', { accLow: 1.5 }))).toBe('svs.accLow = 1.5: must be ≤ 1');
    expect(messageOf(() => validate('opensir', { sMax: 2 }))).toBe('opensir.sMax = 2: must be ≤ 1');
    expect(messageOf(() => validate('datpo', { alphaStart: 1 }))).toBe('(accepted)');
    expect(messageOf(() => validate('spice', { invalidReward: 1.5 }))).toBe('spice.invalidReward = 1.5: must be ≤ 1');
    expect(messageOf(() => validate('ttsp', { targetBaseRate: 1 }))).toBe('(accepted)');
  });

  it('an exclusive bound says so: lr below 1, a seed below 2^32, clipLow below 1', () => {
    expect(messageOf(() => validate('grpo', { lr: 1 }))).toBe('grpo.lr = 1: must be < 1');
    expect(messageOf(() => validate('grpo', { seed: 2 ** 32 }))).toBe('grpo.seed = 4294967296: must be < 4294967296');
    expect(messageOf(() => validate('grpo', { seed: 2 ** 32 - 1 }))).toBe('(accepted)');
    expect(messageOf(() => validate('grpo', { rl: { clipLow: 1 } }))).toBe('grpo.rl.clipLow = 1: must be < 1');
    // a value float32 rounds onto an exclusive bound is refused too
    expect(messageOf(() => validate('grpo', { lr: 0.99999999999 }))).toContain('float32, in which the GPU computes, rounds it to 1; it must be < 1');
  });

  it('checkField reads max as inclusive and maxExclusive as exclusive', () => {
    const fields: FieldSpecs<{ a: number; b: number }> = {
      a: { default: 0, type: { kind: 'number', min: 0, max: 2 }, help: 'a', paper: '—' },
      b: { default: 0, type: { kind: 'number', min: 0, max: 2, maxExclusive: true }, help: 'b', paper: '—' },
    };
    expect(() => checkField(fields, 'x', 'a', 2)).not.toThrow();
    expect(() => checkField(fields, 'x', 'a', 2.5)).toThrow('x.a = 2.5: must be ≤ 2');
    expect(() => checkField(fields, 'x', 'b', 2)).toThrow('x.b = 2: must be < 2');
  });
});

/** The counts issue 30 names, each of which ran without end at 1e5 or more. */
const NAMED_COUNTS: Readonly<Record<string, readonly string[]>> = {
  grpo: ['problemsPerStep', 'groupSize', 'trainProblems', 'maxNewTokens'],
  svs: ['problemsPerStep', 'groupSize', 'trainProblems', 'maxNewTokens', 'variantsPerSolution'],
  datpo: ['problemsPerStep', 'trainProblems', 'maxNewTokens', 'rootRollouts', 'bnMax', 'bpMax'],
  spice: ['documentsPerStep', 'questionsPerDocument', 'answersPerQuestion', 'corpusDocuments', 'maxNewTokens'],
  opensir: ['teacherGroups', 'teacherSamples', 'studentSamples', 'diversityTopK', 'lenCap', 'maxNewTokens'],
  ttsp: ['proposerContexts', 'proposalsPerContext', 'solverAttempts', 'replay', 'targetEvalN', 'loraRank', 'contextProblems', 'maxNewTokens'],
};

const intFields = (fields: Record<string, FieldSpec<unknown>>) =>
  Object.entries(fields).filter((e): e is [string, FieldSpec<unknown> & { type: Extract<Field, { kind: 'number' }> }] => e[1].type.kind === 'number' && e[1].type.integer === true);

describe('every count has a bound of its own', () => {
  it('every integer field of every loop and of the RL core declares its max (not the general backstop)', () => {
    for (const loop of LOOP_NAMES) for (const [k, f] of intFields(fieldsOf(loop))) expect(f.type.max, `${loop}.${k}`).toBeDefined();
    for (const [k, f] of intFields(RL_CORE_FIELDS as Record<string, FieldSpec<unknown>>)) expect(f.type.max, `rl.${k}`).toBeDefined();
  });

  for (const [loop, keys] of Object.entries(NAMED_COUNTS)) {
    it(`${loop}: ${keys.join(', ')} refuse one past their bound, which is at most 100,000`, () => {
      const fields = fieldsOf(loop);
      for (const k of keys) {
        const t = fields[k].type as Extract<Field, { kind: 'number' }>;
        expect(t.max, `${loop}.${k}`).toBeLessThanOrEqual(100_000);
        expect(messageOf(() => validate(loop, { [k]: t.max! + 1 })), `${loop}.${k}`).toBe(`${loop}.${k} = ${t.max! + 1}: must be ≤ ${t.max}`);
      }
    });
  }

  it('the bounds admit every set-up of every loop under every RL preset it offers', () => {
    for (const loop of LOOP_NAMES) {
      const spec = specOf(loop);
      for (const [setup, preset] of Object.entries(spec.presets)) {
        for (const rl of spec.rlPresets) expect(messageOf(() => validate(loop, { ...preset.config, rl: resolveRlConfig(rl) })), `${loop} ${setup} ${rl}`).toBe('(accepted)');
      }
    }
  });

  it('the bounds admit the papers\' counts (SvS\'s 256 problems a step, TTSP\'s rank 32 and 16,384 tokens)', () => {
    let checked = 0;
    for (const loop of LOOP_NAMES) {
      for (const [k, f] of intFields(fieldsOf(loop))) {
        const n = /^(\d+)\b/.exec(f.paper)?.[1];
        if (n === undefined) continue;
        expect(Number(n), `${loop}.${k} paper ${f.paper}`).toBeLessThanOrEqual(f.type.max!);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(messageOf(() => validate('svs', { problemsPerStep: 256 }))).toBe('(accepted)');
    expect(messageOf(() => validate('ttsp', { loraRank: 32, maxNewTokens: 16_384, maxProposalTokens: 16_384 }))).toBe('(accepted)');
    expect(messageOf(() => validate('spice', { documentsPerStep: 128 }))).toBe('(accepted)');
  });
});

describe('the README\'s "Flags and bounds" table', () => {
  it('gives each named count the bound its field declares', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const rows = [...readme.matchAll(/^\| ([\d,]+)[^|]*\| (.*) \|$/gm)].map((m) => ({ bound: Number(m[1].replace(/,/g, '')), fields: m[2] }));
    expect(rows.length).toBeGreaterThan(8);
    for (const [loop, keys] of Object.entries(NAMED_COUNTS)) {
      for (const k of keys) {
        const row = rows.find((r) => r.fields.includes(`\`${k}\``));
        expect(row, `${loop}.${k} in the README's table`).toBeDefined();
        expect(row!.bound, `${loop}.${k}`).toBe((fieldsOf(loop)[k].type as Extract<Field, { kind: 'number' }>).max);
      }
    }
  });
});

describe('the shared fields are declared once', () => {
  it('every loop\'s eleven base fields and topP are the shared declarations, TTSP\'s lr default aside', () => {
    for (const loop of LOOP_NAMES) {
      const fields = fieldsOf(loop);
      expect(fields.topP, `${loop}.topP`).toBe(TOP_P);
      for (const [k, f] of Object.entries(BASE_FIELDS as Record<string, FieldSpec<unknown>>)) {
        if (loop === 'ttsp' && k === 'lr') expect({ ...fields.lr, default: f.default, help: f.help }).toEqual(f);
        else expect(fields[k], `${loop}.${k}`).toBe(f);
      }
    }
    expect(fieldsOf('ttsp').lr.default).toBe(1e-3);
  });

  it('keeps the launcher\'s order: seed, steps, tokenBudget, the loop\'s own, lr, weightDecay, …, checkpointEvery', () => {
    expect(Object.keys(fieldsOf('svs')).slice(-10)).toEqual(['lr', 'weightDecay', 'trainSet', 'trainProblems', 'evalSet', 'evalEvery', 'evalProblems', 'evalN', 'samplesPerStep', 'checkpointEvery']);
    for (const loop of LOOP_NAMES) {
      const keys = Object.keys(fieldsOf(loop));
      expect(keys.slice(0, 3), loop).toEqual(['seed', 'steps', 'tokenBudget']);
      expect(keys.slice(-6), loop).toEqual(['evalSet', 'evalEvery', 'evalProblems', 'evalN', 'samplesPerStep', 'checkpointEvery']);
    }
  });
});

describe('the launcher picks a widget by a field\'s declared kind', () => {
  it('TTSP\'s target and SPICE\'s corpus declare what they hold', () => {
    expect(widgetOf(fieldsOf('ttsp').target.type)).toEqual({ kind: 'target' });
    expect(widgetOf(fieldsOf('spice').corpus.type)).toEqual({ kind: 'corpus' });
  });

  it('a string field without a declared kind is text, whatever its name (a new loop\'s `target` is not TTSP\'s picker)', () => {
    expect(widgetOf({ kind: 'string' })).toEqual({ kind: 'text' });
    expect(widgetOf(fieldsOf('opensir').seedProblem.type)).toEqual({ kind: 'text' });
  });

  it('set fields offer the training or the held-out sets', () => {
    const train = listSets().filter((s) => !s.heldOut).map((s) => s.name);
    const heldOut = listSets().filter((s) => s.heldOut).map((s) => s.name);
    expect(widgetOf(fieldsOf('grpo').trainSet.type)).toEqual({ kind: 'select', choices: train });
    expect(widgetOf(fieldsOf('grpo').evalSet.type)).toEqual({ kind: 'select', choices: heldOut });
    expect(widgetOf(fieldsOf('grpo').topP.type)).toEqual({ kind: 'text' });
    expect(widgetOf(fieldsOf('spice').useCorpus.type)).toEqual({ kind: 'checkbox' });
  });
});
