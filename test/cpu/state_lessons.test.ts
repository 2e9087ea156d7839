// Lessons that hold (issue 28 §1, §2): picking another loop keeps the chosen set-up where the
// loop has one; a link inside the page keeps the lesson's parameters and changes only its own (and
// is not offered when it would change a locked field); the lesson table names only loops,
// set-ups, fields and charts that exist; a paper lesson starts its runs from one base and seed,
// ticked side by side.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LAUNCHER, loopLabel, setField, setLoop, setSetup } from '../../src/state/launcher';
import { linkQuery } from '../../src/state/links';
import { guidedLoops, lessonLaunchers, LOOP_GUIDES, PAPER_LESSONS, QUICK_DEMO } from '../../src/state/lessons';
import { queryToLauncher, queryToLesson } from '../../src/state/url';
import { LOOP_NAMES, LOOPS, loopNamed } from '../../src/loops/registry';
import { createLabStore } from '../../src/state/store';
import type { AdapterReport, RunSpec } from '../../src/lab/protocol';
import { fakeLabClient } from '../helpers/labClient';

const RESULTS = readFileSync('docs/results.md', 'utf8');

/** Charts the evaluation panel draws for every loop (src/ui/charts/EvalCharts.tsx). */
const EVAL_CHARTS = ['passk', 'pass1', 'histogram'];

function chartIdsOf(loop: string): string[] {
  const v = loopNamed(loop).spec.views;
  return [...v.metrics.map((c) => c.id), ...(v.stacked ?? []).map((c) => c.id), ...(v.multiLine ?? []).map((c) => c.id), ...EVAL_CHARTS];
}

describe('picking another loop', () => {
  it('keeps the chosen set-up where the new loop has one of that name, else the paper set-up', () => {
    const lab = setSetup(DEFAULT_LAUNCHER, 'lab');
    for (const loop of LOOP_NAMES) expect(setLoop(lab, loop).setup).toBe('lab');
    const threshold = setSetup(setLoop(DEFAULT_LAUNCHER, 'spice'), 'threshold');
    expect(setLoop(threshold, 'ttsp').setup).toBe('threshold');
    expect(setLoop(threshold, 'grpo').setup).toBe('paper');
  });

  it('keeps overrides of fields the loop has, dropping those equal to the kept set-up', () => {
    const l = setField(setSetup(DEFAULT_LAUNCHER, 'lab'), 'loop', 'seed', 4);
    const svs = setLoop(setField(l, 'loop', 'steps', 20), 'svs');
    expect(svs.fields).toEqual({ seed: 4 });
  });
});

describe('links inside the page', () => {
  const lessonPage = new URLSearchParams('loop=svs&setup=lab&maxSynthesisSources=2&hide=newrun,demo&lock=seed&seed=1');

  it('keep the lesson\'s loop, set-up, hide and lock, and change only their own parameters', () => {
    const q = new URLSearchParams(linkQuery(lessonPage, { steps: '60', evalEvery: '20' }, ['seed'])!);
    expect(Object.fromEntries(q)).toEqual({ loop: 'svs', setup: 'lab', maxSynthesisSources: '2', hide: 'newrun,demo', lock: 'seed', seed: '1', steps: '60', evalEvery: '20' });
    expect(queryToLauncher(q).warnings).toEqual([]);
    expect(queryToLesson(q).lesson).toMatchObject({ hide: ['newrun', 'demo'], lock: ['seed'] });
  });

  it('switching the loop drop what the new loop does not have', () => {
    const q = new URLSearchParams(linkQuery(lessonPage, { loop: 'grpo', steps: '60' }, [])!);
    expect(Object.fromEntries(q)).toEqual({ setup: 'lab', hide: 'newrun,demo', lock: 'seed', seed: '1', steps: '60' });
    expect(queryToLauncher(q).warnings).toEqual([]);
  });

  it('are not offered when they would change a locked field', () => {
    expect(linkQuery(lessonPage, { seed: '2' }, ['seed'])).toBeNull();
    expect(linkQuery(lessonPage, { seed: '1', steps: '5' }, ['seed'])).not.toBeNull();
    expect(linkQuery(lessonPage, { loop: 'grpo' }, ['loop'])).toBeNull();
    expect(linkQuery(new URLSearchParams(''), { loop: 'grpo' }, ['loop'])).toBe('?');
  });

  it('open a paper lesson by name, and report one the page does not know', () => {
    const q = new URLSearchParams(linkQuery(lessonPage, { lesson: 'grpo-vs-svs' }, ['seed'])!);
    expect(queryToLesson(q).lesson.paper).toBe('grpo-vs-svs');
    expect(queryToLauncher(q).warnings).toEqual([]);
    expect(queryToLesson(new URLSearchParams('lesson=nope')).warnings).toEqual([expect.stringMatching(/^lesson=nope: no such lesson \(lessons: grpo-vs-svs, /)]);
  });
});

describe('the lesson table', () => {
  it('has a paragraph for every loop of the registry, whose links name set-ups and fields that exist', () => {
    expect(guidedLoops()).toEqual(LOOP_NAMES);
    for (const [loop, g] of Object.entries(LOOP_GUIDES)) {
      for (const link of [QUICK_DEMO, ...g.links]) {
        const q = new URLSearchParams({ loop, ...link.set });
        expect(queryToLauncher(q).warnings, `${loop}: ${link.title}`).toEqual([]);
      }
    }
  });

  it('names the loops by their own spelling', () => {
    expect(LOOP_NAMES.map(loopLabel)).toEqual(['GRPO', 'SvS', 'SPICE', 'OpenSIR', 'DATPO', 'TTSP']);
  });

  it('lists the lessons the loops declare with the comparisons with the control first, each part in the registry\'s order', () => {
    expect(PAPER_LESSONS.map((l) => l.id)).toEqual(['grpo-vs-svs', 'datpo-coverage', 'spice-gold', 'opensir-pool', 'ttsp-target']);
    expect(Object.keys(LOOP_GUIDES)).toEqual(LOOP_NAMES);
    // each lesson is declared by a loop it runs (its guide.ts)
    for (const def of LOOPS) for (const l of def.lessons ?? []) expect(l.runs.map((r) => r.loop), l.id).toContain(def.spec.name);
  });

  it('gives each paper a lesson whose runs, set-ups, fields and charts exist, with what was measured', () => {
    expect(new Set(PAPER_LESSONS.flatMap((l) => l.runs.map((r) => r.loop)))).toEqual(new Set(LOOP_NAMES));
    for (const lesson of PAPER_LESSONS) {
      for (const run of lesson.runs) {
        const spec = loopNamed(run.loop).spec;
        expect(Object.keys(spec.presets), lesson.id).toContain(run.setup);
        for (const k of Object.keys(run.fields ?? {})) expect(Object.keys(spec.fields), lesson.id).toContain(k);
      }
      const ids = lesson.runs.flatMap((r) => chartIdsOf(r.loop));
      for (const c of lesson.charts) expect(ids, `${lesson.id}: chart ${c.id}`).toContain(c.id);
      expect(lesson.measured).not.toBe('');
      // the section it cites exists (a heading `## 6.` or `### 13b.`)
      const section = /^docs\/results\.md §(\d+[a-z]?)$/.exec(lesson.source)?.[1];
      expect(section, lesson.source).toBeDefined();
      expect(RESULTS, lesson.source).toMatch(new RegExp(`^#{2,3} ${section}\\. `, 'm'));
    }
  });

  it('a lesson on a target names one of the shipped base\'s targets with its measured base rate', () => {
    // a new base re-measures the list: a lesson left on the old target would draw a wrong reference line
    const list = JSON.parse(readFileSync('public/models/small/ttsp_targets.json', 'utf8')) as { problems: { text: string; passRate: number }[] };
    const onTarget = PAPER_LESSONS.flatMap((l) => l.runs).filter((r) => r.fields?.target !== undefined);
    expect(onTarget.length).toBeGreaterThan(0);
    for (const r of onTarget) {
      const entry = list.problems.find((p) => p.text === r.fields?.target);
      expect(entry, String(r.fields?.target)).toBeDefined();
      expect(r.fields?.targetBaseRate).toBe(entry?.passRate);
    }
  });

  it('lays each run over the launcher: one policy and seed, and the address\'s overrides win', () => {
    const lesson = PAPER_LESSONS.find((l) => l.id === 'ttsp-target')!;
    const page = queryToLauncher(new URLSearchParams('policy=tiny&seed=7&steps=1')).launcher;
    const [ttsp] = lessonLaunchers(lesson, page);
    expect(ttsp).toMatchObject({ loop: 'ttsp', setup: 'lab', policy: 'tiny', fields: { seed: 7, steps: 1, target: '(6+7)*3' } });
    // a field of the lesson's loop is read with that loop in the address
    const over = queryToLauncher(new URLSearchParams('loop=ttsp&seed=7&target=1%2B1')).launcher;
    expect(lessonLaunchers(lesson, over)[0].fields).toMatchObject({ target: '1+1' });
  });
});

describe('a paper lesson in the store', () => {
  const READY: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} }, deviceLimits: {} };

  it('starts its runs side by side from the same base and seed, ticked for comparison, on its x-axis', async () => {
    const specs: RunSpec[] = [];
    const client = fakeLabClient({ init: async () => READY, startRun: (spec) => new Promise(() => void specs.push(spec)) });
    let n = 0;
    const store = createLabStore(client, {
      fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
      archive: null, newRunId: () => `r${++n}`, now: () => n,
    }, () => undefined);
    await store.getState().initDevice();
    await store.getState().loadCatalog();
    const q = new URLSearchParams('lesson=datpo-coverage&seed=3&steps=2');
    store.getState().setLesson(queryToLesson(q).lesson);
    store.getState().setLauncher(queryToLauncher(q).launcher);
    void store.getState().startLesson();
    await new Promise((r) => setTimeout(r, 0));
    const config = (s: RunSpec) => s.config as { seed: number; steps: number; evalProblems: number };
    expect(specs.map((s) => [s.loop, s.policy, config(s).seed, config(s).steps])).toEqual([['grpo', 'tiny', 3, 2], ['datpo', 'tiny', 3, 2]]);
    // both at their lab size
    expect(specs.map((s) => config(s).evalProblems)).toEqual([16, 16]);
    const runs = store.getState().runs;
    expect(runs.compared).toEqual(['r1', 'r2']);
    expect(runs.order.map((id) => runs.byId[id].index)).toEqual([1, 2]);
    expect(store.getState().view.xAxis).toBe('tokens');
    // a lesson of one run replaces the ticks: the charts show that run, not the last comparison
    store.getState().setLesson(queryToLesson(new URLSearchParams('lesson=spice-gold')).lesson);
    void store.getState().startLesson();
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().runs.compared).toEqual(['r3']);
    expect(store.getState().runs.selected).toBe('r3');
  });
});

