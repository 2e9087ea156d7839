// The explorer's grid (src/explore/grid.ts, replay.ts, commands.ts): arms are the product of the
// knobs' values, runs arms × seeds in seed order; every run's config goes through its loop's
// validator and a bad value is refused naming the arm and the field with nothing planned; a
// control arm is matched to its arm's seeds; a sweep file's arms plan the same runs again; the
// ablate commands carry each arm's config.
import { describe, expect, it } from 'vitest';
import { expandGrid, parseSeeds, type GridForm } from '../../src/explore/grid';
import { plansOfSweep, policyOfBase } from '../../src/explore/replay';
import { armCommand, configOverrides } from '../../src/explore/commands';
import { DEFAULT_LAUNCHER, setField, setLoop, setSetup, type LauncherState } from '../../src/state/launcher';
import { sweepOfAblations } from '../../src/explore/format';

const CATALOG = { names: ['tiny', 'small'], defaultPolicy: 'small' };
const base: LauncherState = setField(setSetup(setLoop(DEFAULT_LAUNCHER, 'grpo'), 'lab'), 'loop', 'steps', 3);
const form = (p: Partial<GridForm>): GridForm => ({ knobs: [], seeds: '1, 2', control: null, concurrency: null, ...p });

describe('explore/grid: expansion', () => {
  it('arms = the product of the knobs\' values, runs = arms × seeds, seed by seed', () => {
    const e = expandGrid(form({ knobs: [{ key: 'lr', values: '1e-4, 3e-5' }, { key: 'rl.clipHigh', values: '0.2, 0.28, 0.3' }], seeds: '1, 2' }), base, CATALOG);
    if (!e.ok) throw new Error(e.message);
    expect(e.arms.map((a) => a.label)).toEqual(['lr 1e-4 · rl.clipHigh 0.2', 'lr 1e-4 · rl.clipHigh 0.28', 'lr 1e-4 · rl.clipHigh 0.3', 'lr 3e-5 · rl.clipHigh 0.2', 'lr 3e-5 · rl.clipHigh 0.28', 'lr 3e-5 · rl.clipHigh 0.3']);
    expect(e.runs).toHaveLength(12);
    // every arm's first seed before any second seed: the bands fill in together
    expect(e.runs.slice(0, 6).every((r) => r.seed === 1)).toBe(true);
    const r = e.runs.find((x) => x.key === 'arm5/2')!;
    expect(r.config.lr).toBe(3e-5);
    expect(r.config.rl.clipHigh).toBe(0.28);
    expect(r.config.seed).toBe(2);
    // the base set-up (the launcher's lab set-up, steps 3) under every arm
    expect(r.config.steps).toBe(3);
    expect((r.config as unknown as { problemsPerStep: number }).problemsPerStep).toBe(4);
    expect(r.policy).toBe('small');
  });

  it('no knobs: one arm named by its loop and set-up', () => {
    const e = expandGrid(form({ seeds: '5' }), base, CATALOG);
    if (!e.ok) throw new Error(e.message);
    expect(e.arms.map((a) => a.label)).toEqual(['grpo · lab']);
    expect(e.runs.map((r) => r.key)).toEqual(['arm1/5']);
  });

  it('a bad value is refused by the loop\'s validator, naming the arm and the field; nothing is planned', () => {
    const e = expandGrid(form({ knobs: [{ key: 'lr', values: '1e-4, 0' }] }), base, CATALOG);
    expect(e.ok).toBe(false);
    if (e.ok) return;
    expect(e.arm).toBe('lr 0 (seed 1)');
    expect(e.field).toBe('lr');
    expect(e.message).toMatch(/^arm lr 0 \(seed 1\): grpo\.lr = 0: must be > 0/);
    expect('runs' in e).toBe(false);
  });

  it('a cross-field rule names its arm and field too (rl.miniBatches beyond the trajectories of a step)', () => {
    const e = expandGrid(form({ knobs: [{ key: 'rl.miniBatches', values: '1, 64' }] }), base, CATALOG);
    expect(e).toMatchObject({ ok: false, arm: 'rl.miniBatches 64 (seed 1)', field: 'rl.miniBatches' });
  });

  it('unknown knobs, the seed as a knob, duplicate values and bad seeds are refused by name', () => {
    expect(expandGrid(form({ knobs: [{ key: 'learningRate', values: '1' }] }), base, CATALOG)).toMatchObject({ ok: false, field: 'learningRate', message: expect.stringMatching(/not a field of the grpo loop/) as unknown });
    expect(expandGrid(form({ knobs: [{ key: 'seed', values: '1' }] }), base, CATALOG)).toMatchObject({ ok: false, field: 'seed' });
    expect(expandGrid(form({ knobs: [{ key: 'lr', values: '1e-4, 1e-4' }] }), base, CATALOG)).toMatchObject({ ok: false, field: 'lr', message: expect.stringMatching(/twice/) as unknown });
    expect(expandGrid(form({ seeds: '1, x' }), base, CATALOG)).toMatchObject({ ok: false, field: 'seed', message: 'seeds: "x" is not a non-negative integer' });
    expect(parseSeeds('3, 3')).toBe('seeds: 3 appears twice');
    expect(expandGrid(form({ knobs: [{ key: 'lr', values: '1e-4' }, { key: 'lr', values: '2e-4' }] }), base, CATALOG)).toMatchObject({ ok: false, field: 'lr' });
  });

  it('an unknown base policy is refused for the first arm', () => {
    expect(expandGrid(form({}), { ...base, policy: 'huge' }, CATALOG)).toMatchObject({ ok: false, arm: 'grpo · lab (seed 1)', field: 'policy' });
  });

  it('a control arm of another loop follows each seed of its matched arm, its budget filled in later', () => {
    const svs = setField(setSetup(setLoop(DEFAULT_LAUNCHER, 'svs'), 'lab'), 'loop', 'evalProblems', 4);
    const e = expandGrid(form({ knobs: [{ key: 'variantReward', values: 'shaped, naive' }], control: { loop: 'grpo', setup: 'lab', matchArm: 0, steps: 50 } }), svs, CATALOG);
    if (!e.ok) throw new Error(e.message);
    expect(e.arms.map((a) => a.id)).toEqual(['arm1', 'arm2', 'control']);
    expect(e.arms[2]).toMatchObject({ control: true, matchedTo: 'arm1', loop: 'grpo' });
    expect(e.runs.map((r) => r.key)).toEqual(['arm1/1', 'arm2/1', 'control/1', 'arm1/2', 'arm2/2', 'control/2']);
    const c = e.runs[2];
    expect(c.matchKey).toBe('arm1/1');
    expect(c.config.steps).toBe(50);
    // the control is evaluated as its arms are
    expect(c.config.evalProblems).toBe(4);
  });
});

describe('explore/replay: a sweep file\'s arms as a grid to run live', () => {
  const ablation = (lr: number) => ({
    loop: 'grpo', base: 'public/models/small', config: { seed: 1, steps: 2, lr, evalEvery: 0 }, partial: false,
    results: [1, 2].map((seed) => ({ seed, start: { type: 'eval' as const, step: 0, set: 'e', passAtK: { '1': 0.5 }, meanEntropy: 1 }, end: { type: 'eval' as const, step: 2, set: 'e', passAtK: { '1': 0.6 }, meanEntropy: 1 }, steps: 2, generatedTokens: 10, seconds: 1, report: {} })),
  });
  it('each arm\'s loop, policy, config and seeds, checked', () => {
    const s = sweepOfAblations('t', [{ name: 'a.json', ablation: ablation(1e-4) }, { name: 'b.json', ablation: ablation(3e-5) }]);
    const e = plansOfSweep(s, CATALOG);
    if (!e.ok) throw new Error(e.message);
    expect(e.runs.map((r) => `${r.key}:${r.config.lr}`)).toEqual(['arm1/1:0.0001', 'arm2/1:0.00003', 'arm1/2:0.0001', 'arm2/2:0.00003']);
    expect(e.runs[0].policy).toBe('small');
    expect(policyOfBase('public/models/small/')).toBe('small');
  });
  it('a config the validator refuses names the arm and the field', () => {
    const s = sweepOfAblations('t', [{ name: 'a.json', ablation: ablation(-1) }]);
    expect(plansOfSweep(s, CATALOG)).toMatchObject({ ok: false, arm: 'grpo · a', field: 'lr' });
  });
});

describe('explore/commands: the ablate commands that reproduce a grid', () => {
  it('an arm\'s command writes only what differs from the loop\'s defaults and leaves ablate its own flags', () => {
    const e = expandGrid(form({ knobs: [{ key: 'rl.clipHigh', values: '0.3' }] }), base, CATALOG);
    if (!e.ok) throw new Error(e.message);
    const o = configOverrides('grpo', e.arms[0].config as never);
    expect(o).toEqual({ problemsPerStep: 4, rl: { clipHigh: 0.3 } });
    const cmd = armCommand(e.arms[0], [1, 2]);
    expect(cmd).toContain(`cat > arm1.config.json <<'EOF'`);
    expect(cmd).toMatch(/npm run ablate -- --loop grpo --preset small --seeds 1,2 --steps 3 --eval-n 8 --eval-problems 16 --config arm1.config.json --json arm1.json$/);
    expect(armCommand({ ...e.arms[0], id: 'control', matchedTo: 'arm1' }, [1])).toContain('--match-tokens arm1.json');
  });
});
