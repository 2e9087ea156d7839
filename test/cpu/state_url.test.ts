// Launcher state in the URL: only non-default values, under the config fields' names; decoding
// gives back the same state, keeps invalid values raw for the validator, and reports what it
// did not understand. Plus the launcher's layering of defaults, preset and overrides, and lesson
// links (`hide=…`, `lock=…`).
import { describe, expect, it } from 'vitest';
import { DEFAULT_LAUNCHER, configDiff, defaultConfig, effectiveValue, parseInput, resolveLauncher, rlKeys, setField, setLoop, setPreset, type LauncherState } from '../../src/state/launcher';
import { launcherToQuery, mergeQuery, NO_LESSON, queryToLauncher, queryToLesson } from '../../src/state/url';
import { createLabStore } from '../../src/state/store';
import type { LabClient } from '../../src/lab/protocol';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import { LOOPS, loopNamed } from '../../src/loops/registry';

const CATALOG = { names: ['tiny', 'small'], defaultPolicy: 'small' };

function launcher(edit: (l: LauncherState) => LauncherState): LauncherState {
  return edit({ ...DEFAULT_LAUNCHER });
}

describe('URL state', () => {
  it('writes nothing for the defaults', () => {
    expect(launcherToQuery(DEFAULT_LAUNCHER).toString()).toBe('');
    expect(mergeQuery(new URLSearchParams(''), DEFAULT_LAUNCHER)).toBe('');
  });

  it('writes only non-default values, named after the config fields', () => {
    const l = launcher((l) => setField(setField(setField({ ...l, policy: 'tiny' }, 'loop', 'seed', 3), 'loop', 'steps', 20), 'loop', 'lr', 1e-4));
    expect(launcherToQuery(l).toString()).toBe('policy=tiny&seed=3&steps=20');
  });

  it('round-trips loop fields, RL fields, the preset, nulls and booleans', () => {
    let l = launcher((l) => setPreset({ ...l, policy: 'tiny' }, 'dapo'));
    l = setField(l, 'loop', 'groupSize', 16);
    l = setField(l, 'loop', 'evalSet', 'eval-ops2');
    l = setField(l, 'rl', 'clipHigh', 0.2);
    l = setField(l, 'rl', 'dualClipC', 3);
    l = setField(l, 'rl', 'bessel', false);
    const q = launcherToQuery(l);
    // loop fields, then RL fields, each in their spec's order
    expect(q.toString()).toBe('policy=tiny&preset=dapo&groupSize=16&evalSet=eval-ops2&bessel=false&clipHigh=0.2&dualClipC=3');
    const back = queryToLauncher(new URLSearchParams(q.toString()));
    expect(back.warnings).toEqual([]);
    expect(back.launcher).toEqual(l);
  });

  it('keeps invalid values raw so the validator names them, and reports unknown parameters', () => {
    const { launcher: l, warnings } = queryToLauncher(new URLSearchParams('steps=abc&groupSize=0&clipLow=-1&preset=nope&colour=red&debug'));
    expect(l.fields).toEqual({ steps: 'abc', groupSize: 0 });
    expect(l.rl).toEqual({ clipLow: -1 });
    expect(warnings).toEqual([expect.stringMatching(/^preset=nope: not an RL preset of the grpo loop \(presets: grpo, /), "colour: not a setting of the grpo loop's launcher; ignored"]);
    const r = resolveLauncher(l, CATALOG);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r).toMatchObject({ field: 'steps', message: expect.stringMatching(/grpo\.steps = "abc": must be an integer/) as unknown });
  });

  it('drops a URL value equal to the layer below it (the preset or the default)', () => {
    const { launcher: l } = queryToLauncher(new URLSearchParams('preset=dapo&filterZeroVariance=true&steps=50&clipHigh=0.2'));
    expect(l.preset).toBe('dapo');
    expect(l.rl).toEqual({ clipHigh: 0.2 });
    expect(l.fields).toEqual({});
  });

  it('encodes a null override as "null" and reads "null" back', () => {
    // the svs loop's preset sets dualClipC 3; null (off) is an override of it
    const l = launcher((l) => setField(setLoop(l, 'svs'), 'rl', 'dualClipC', null));
    expect(launcherToQuery(l).toString()).toBe('loop=svs&dualClipC=null');
    expect(queryToLauncher(launcherToQuery(l)).launcher).toEqual(l);
  });

  it("keeps the page's own parameters when the launcher rewrites the query", () => {
    const l = launcher((l) => setField(l, 'loop', 'seed', 7));
    expect(mergeQuery(new URLSearchParams('debug&seed=1&steps=9'), l)).toBe('?debug=&seed=7');
  });

});

describe('launcher layering and validation', () => {
  it('shows preset values under overrides and drops overrides the new preset already sets', () => {
    let l = setField(DEFAULT_LAUNCHER, 'rl', 'filterZeroVariance', true);
    expect(l.rl).toEqual({ filterZeroVariance: true });
    l = setPreset(l, 'dapo');
    expect(l.rl).toEqual({});
    expect(effectiveValue(l, 'rl', 'dynamicSampling')).toBe(true);
    expect(effectiveValue(l, 'rl', 'clipLow')).toBe(0.2);
  });

  it('resolves to the validated config the worker will run, with the catalog default policy', () => {
    const l = setField(setPreset(DEFAULT_LAUNCHER, 'dr_grpo'), 'loop', 'steps', 20);
    const r = resolveLauncher(l, CATALOG);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.policy).toBe('small');
      expect(r.config).toEqual(validateGrpoConfig({ steps: 20, rl: { advantage: 'none', aggregation: 'constant_norm', clipHigh: 0.2 } }));
    }
    // a preset with a KL penalty: the GRPO loop keeps a frozen reference policy for it
    const orig = resolveLauncher(setPreset(DEFAULT_LAUNCHER, 'grpo_original'), CATALOG);
    expect(orig.ok).toBe(true);
    if (orig.ok) expect(orig.config.rl).toMatchObject({ beta: 0.04, klType: 'k3' });
  });

  it('reports cross-field problems, unknown policies and unknown loops with what to change', () => {
    const ds = setField(DEFAULT_LAUNCHER, 'rl', 'dynamicSampling', true);
    const r = resolveLauncher(ds, CATALOG);
    expect(r.ok || r.message).toMatch(/set filterZeroVariance to true/);
    expect(resolveLauncher({ ...DEFAULT_LAUNCHER, policy: 'huge' }, CATALOG)).toMatchObject({ ok: false, field: 'policy' });
    expect(resolveLauncher({ ...DEFAULT_LAUNCHER, loop: 'sppo' }, CATALOG)).toMatchObject({ ok: false, field: 'loop' });
    // every loop of the papers is in: TTSP resolves like the others
    expect(resolveLauncher({ ...DEFAULT_LAUNCHER, loop: 'ttsp' }, CATALOG)).toMatchObject({ ok: true, loop: 'ttsp' });
    expect(resolveLauncher(DEFAULT_LAUNCHER, null)).toMatchObject({ ok: false, field: 'policy' });
  });

  it('parses typed text by field type, leaving what is not a value for the validator', () => {
    expect(parseInput({ kind: 'number', min: 0 }, ' 1e-4 ')).toBe(1e-4);
    expect(parseInput({ kind: 'number', min: 0 }, '')).toBe('');
    expect(parseInput({ kind: 'number', min: 0 }, '3x')).toBe('3x');
    expect(parseInput({ kind: 'number', min: 1, nullable: true }, '')).toBeNull();
    expect(parseInput({ kind: 'boolean' }, 'false')).toBe(false);
  });

  it('labels a run by its difference from the previous one', () => {
    const base = defaultConfig('grpo');
    const next = validateGrpoConfig({ seed: 3, rl: { clipHigh: 0.2 } });
    expect(configDiff(next, base)).toBe('seed 3, rl.clipHigh 0.2');
    expect(configDiff(base, base)).toBe('');
  });
});

describe('lesson links (hide and lock)', () => {
  it('reads the parts to hide and the fields to lock, comma-separated or repeated', () => {
    const { lesson, warnings } = queryToLesson(new URLSearchParams('hide=launcher,knobs&hide=selftest,demo&lock=lr,seed&lock=clipHigh'));
    expect(lesson).toEqual({ hide: ['launcher', 'knobs', 'selftest', 'demo'], lock: ['lr', 'seed', 'clipHigh'], paper: null });
    expect(warnings).toEqual([]);
    expect(queryToLesson(new URLSearchParams('steps=3'))).toEqual({ lesson: NO_LESSON, warnings: [] });
  });

  it('reports parts and fields it does not know, and keeps the rest', () => {
    const { lesson, warnings } = queryToLesson(new URLSearchParams('hide=launcher,sidebar,&lock=lr,speed,policy'));
    expect(lesson).toEqual({ hide: ['launcher'], lock: ['lr', 'policy'], paper: null });
    expect(warnings).toEqual([expect.stringMatching(/^hide=sidebar: no such part of the page \(parts: launcher, newrun, knobs, selftest, demo/), 'lock=speed: not a launcher field; ignored']);
  });

  it('are page parameters: the launcher leaves them in the URL and does not warn about them', () => {
    const l = launcher((l) => setField(l, 'loop', 'seed', 7));
    expect(mergeQuery(new URLSearchParams('hide=knobs&lock=seed&seed=1'), l)).toBe('?hide=knobs&lock=seed&seed=7');
    expect(queryToLauncher(new URLSearchParams('hide=knobs&lock=lr&lr=0.001')).warnings).toEqual([]);
  });

  it('lock fields in the store: edits, preset changes and a reset keep their values', async () => {
    const idle = new Proxy({}, { get: () => async () => undefined }) as LabClient;
    const store = createLabStore(idle, { fetchCatalog: async () => ({ defaultPolicy: 'small', policies: [{ name: 'tiny', description: '', params: null }, { name: 'small', description: '', params: null }] }), archive: null, newRunId: () => 'r', now: () => 0 }, () => undefined);
    await store.getState().loadCatalog();
    const q = new URLSearchParams('policy=tiny&lr=0.001&steps=9&lock=lr,policy,clipHigh');
    store.getState().setLesson(queryToLesson(q).lesson);
    store.getState().setLauncher(queryToLauncher(q).launcher);
    const s = () => store.getState();
    s().setField('loop', 'lr', 0.5);
    s().setField('loop', 'steps', 4);
    s().setPolicy('small');
    expect(s().launcher.state).toMatchObject({ policy: 'tiny', fields: { lr: 0.001, steps: 4 } });
    // clipHigh is 0.28 under the default preset; dr_grpo would make it 0.2
    s().setRlPreset('dr_grpo');
    expect(effectiveValue(s().launcher.state, 'rl', 'clipHigh')).toBe(0.28);
    s().resetLauncher();
    expect(s().launcher.state).toMatchObject({ policy: 'tiny', preset: 'grpo', fields: { lr: 0.001 } });
    expect(s().launcher.state.fields).not.toHaveProperty('steps');
  });
});

describe('what the form shows is what the run gets', () => {
  it.each(LOOPS.flatMap((d) => d.spec.rlPresets.map((p) => [d.spec.name, p] as const)))('%s with the %s RL preset', (loop, preset) => {
    const l = setPreset(setLoop(DEFAULT_LAUNCHER, loop), preset);
    const r = resolveLauncher(l, CATALOG);
    if (!r.ok) throw new Error(r.message);
    for (const k of Object.keys(r.config.rl)) expect((r.config.rl as unknown as Record<string, unknown>)[k], `rl.${k}`).toEqual(effectiveValue(l, 'rl', k));
    for (const k of Object.keys(loopNamed(loop).spec.fields)) expect((r.config as unknown as Record<string, unknown>)[k], k).toEqual(effectiveValue(l, 'loop', k));
  });
});

describe('RL fields a loop does not use', () => {
  it('are not in its form, and a link setting one says so', () => {
    const svs = setLoop(DEFAULT_LAUNCHER, 'svs');
    expect(rlKeys(svs)).not.toContain('maxGenBatches');
    expect(rlKeys(DEFAULT_LAUNCHER)).toContain('maxGenBatches');
    const { warnings, launcher } = queryToLauncher(new URLSearchParams('loop=svs&maxGenBatches=3'));
    expect(warnings).toEqual(["maxGenBatches: not a setting of the svs loop's launcher; ignored"]);
    expect(launcher.rl).toEqual({});
  });
});
