// The worker's run manager without a GPU: a fake loop through the loop driver shows that pause
// lands on step boundaries (after the step's samples and evaluation), a single step runs exactly
// one step, stop ends a paused run, config errors reject, and batches carry metrics as a matrix.
import { describe, expect, it } from 'vitest';
import { RunManager } from '../../src/lab/worker/runs';
import { RunBatcher } from '../../src/lab/worker/runBatcher';
import type { RunBatch, RunStatus } from '../../src/lab/protocol';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { fakeEngine, fakeLoop, fakeSeen, type FakeLoopOptions, type FakeSeen } from '../helpers/fakeLoop';

const tick = () => new Promise((r) => setTimeout(r, 0));

/** The driver's order over a fake loop: eval 0, then per step: step, samples, eval every `evalEvery` and at the end. */
function manager(seen: FakeSeen, o: FakeLoopOptions = {}) {
  const def = fakeLoop(seen, { samplesPerStep: 1, ...o });
  return new RunManager({
    loopNamed: () => def,
    createEngine: async (_d, init) => fakeEngine(init, seen),
    loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }),
    batchIntervalMs: 0,
  });
}

const GPU = {} as Gpu;

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('RunManager: status while a run computes', () => {
  it('says the phase (step, evaluating with its size, saving), moves its step with the chart, and counts evaluations in the ETA', async () => {
    const seen = fakeSeen();
    let clock = 0;
    // each step takes 1 s of the clock, each evaluation 10 s
    const def = fakeLoop(seen, { evalEvery: 2, samplesPerStep: 1, step: async (k) => ((clock += 1000), { reward: k }) });
    const m = new RunManager({
      loopNamed: () => def,
      createEngine: async (_d, init) => {
        const e = fakeEngine(init, seen);
        const evaluate = e.evaluate.bind(e);
        e.evaluate = async (problems, o, onProgress) => {
          clock += 10_000;
          onProgress?.({ samplesDone: 1, samplesTotal: 2, problemsDone: 0, problemsTotal: 1 });
          await tick();
          return evaluate(problems, o);
        };
        return e;
      },
      loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }),
      batchIntervalMs: 0,
      now: () => clock,
    });
    const batches: RunBatch[] = [];
    const last = (): RunStatus | undefined => batches[batches.length - 1]?.status;
    const run = m.start(GPU, { runId: 'p', loop: 'fake', policy: 'tiny', config: {} }, (b) => batches.push(b));
    m.pauseRun('p');
    await until(() => last()?.state === 'paused', 'the pause after the start\'s evaluation');
    m.stepRun('p');
    await until(() => last()?.state === 'paused' && last()?.step === 1, 'paused after step 1');
    // 1 step/s (the start's 10 s evaluation is not a step); 3 steps and 2 evaluations (steps 2 and 4) left
    expect(last()).toMatchObject({ stepsPerS: 1, etaS: 3 + 2 * 10 });
    expect(last()?.phase).toBeUndefined(); // paused on a boundary: doing nothing
    m.resumeRun('p');
    const final = await run;
    expect(final.state).toBe('done');
    expect(final.phase).toBeUndefined();
    const statuses = batches.map((b) => b.status);
    const phases = statuses.filter((st) => st.phase).map((st) => `${st.phase!.kind} ${st.phase!.step}${st.phase!.detail ? ` (${st.phase!.detail})` : ''}${st.phase!.progress ? ` ${st.phase!.progress.done}/${st.phase!.progress.total}` : ''}`);
    expect(phases).toContain('evaluating 0 (1 problems × 1 samples)');
    expect(phases).toContain('step 3');
    expect(phases).toContain('evaluating 2 (1 problems × 1 samples)');
    // the evaluation's progress between its decoder batches
    expect(phases).toContain('evaluating 2 (1 problems × 1 samples) 1/2');
    // a batch that brings a step's point brings a status at that step or later
    for (const b of batches) if (b.step.length > 0) expect(b.status.step).toBeGreaterThanOrEqual(b.step[b.step.length - 1]);
    // the rate stays 1 step/s through the evaluations
    expect(final.stepsPerS).toBe(1);
  });
});

describe('RunManager', () => {
  it('pauses on a step boundary, single-steps exactly one step, resumes to the end', async () => {
    const seen = fakeSeen();
    const log = seen.log;
    const m = manager(seen, { evalEvery: 2 });
    const batches: RunBatch[] = [];
    const last = (): RunStatus | undefined => batches[batches.length - 1]?.status;
    const run = m.start(GPU, { runId: 'a', loop: 'fake', policy: 'tiny', config: {} }, (b) => batches.push(b));
    m.pauseRun('a');
    await until(() => last()?.state === 'paused', 'the first pause');
    expect(last()?.step).toBe(0);
    expect(log).toEqual([]);
    expect(m.computing).toBe(false);

    m.stepRun('a');
    await until(() => last()?.state === 'paused' && last()?.step === 1, 'paused after step 1');
    m.stepRun('a');
    await until(() => last()?.state === 'paused' && last()?.step === 2, 'paused after step 2');
    // step 2's samples and its scheduled evaluation arrived before the pause; step 3 did not start
    expect(log).toEqual(['compute 1', 'compute 2']);
    const evals = batches.flatMap((b) => b.evals.map((e) => e.step));
    expect(evals).toEqual([0, 2]);
    expect(batches.flatMap((b) => b.samples.map((e) => e.step))).toEqual([1, 2]);
    expect(() => m.stepRun('nope')).toThrow(/no active run/);

    m.resumeRun('a');
    const final = await run;
    expect(final.state).toBe('done');
    expect(final.step).toBe(4);
    expect(log).toEqual(['compute 1', 'compute 2', 'compute 3', 'compute 4']);
    expect(batches.flatMap((b) => Array.from(b.step))).toEqual([1, 2, 3, 4]);
    expect(final.stepsPerS).not.toBeNull();
  });

  it('stops a paused run without computing another step', async () => {
    const seen = fakeSeen();
    const log = seen.log;
    const m = manager(seen);
    const states: string[] = [];
    const run = m.start(GPU, { runId: 'b', loop: 'fake', policy: 'tiny', config: { steps: 5 } }, (b) => states.push(b.status.state));
    m.pauseRun('b');
    await until(() => states.includes('paused'), 'pause');
    m.stopRun('b');
    const final = await run;
    expect(final.state).toBe('stopped');
    expect(log).toEqual([]);
    expect(() => m.pauseRun('b')).toThrow(/no active run/);
  });

  it('rejects a bad config before starting, and refuses single steps on a running run', async () => {
    const m = manager(fakeSeen());
    await expect(m.start(GPU, { runId: 'c', loop: 'fake', policy: 'tiny', config: { bad: true } }, () => undefined)).rejects.toThrow(/must be ≥ 1/);
    const run = m.start(GPU, { runId: 'd', loop: 'fake', policy: 'tiny', config: { steps: 50 } }, () => undefined);
    await tick();
    expect(() => m.stepRun('d')).toThrow(/single steps need a paused run/);
    m.stopRun('d');
    expect((await run).state).toBe('stopped');
  });

  it('reports a loop that throws as a failed run with its message', async () => {
    const m = manager(fakeSeen(), {
      step: async () => {
        throw new Error('device lost');
      },
    });
    const final = await m.start(GPU, { runId: 'e', loop: 'fake', policy: 'tiny', config: {} }, () => undefined);
    expect(final).toMatchObject({ state: 'failed', error: 'device lost' });
  });

  it('reads adapter files through the loop\'s own hook, and fails a run of a loop without one, naming the files', async () => {
    const seen = fakeSeen();
    const files = [{ file: 'solver.safetensors', bytes: new Uint8Array(8) }];
    const spec = { runId: 'f', loop: 'fake', policy: 'tiny', config: {}, adapterFiles: files };
    const final = await manager(seen).start(GPU, spec, () => undefined);
    expect(final).toMatchObject({ state: 'failed', error: 'fake trains no adapter sets, so it cannot start from saved ones (solver.safetensors)' });
    // a loop with the hook gets the files and the base's config; what it returns starts its sets (here: none, so refused by name)
    const def = fakeLoop(seen, { samplesPerStep: 1 });
    const got: unknown[] = [];
    const withHook = new RunManager({
      loopNamed: () => ({ ...def, adapterFiles: (f, cfg) => (got.push(f, cfg), [{ spec: { name: 'solver', rank: 2, alpha: 2 }, params: new Float32Array(1) }]) }),
      createEngine: async (_d, init) => fakeEngine(init, seen),
      loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }),
    });
    const hooked = await withHook.start(GPU, { ...spec, runId: 'g' }, () => undefined);
    expect(got).toEqual([files, GPT_PRESETS.tiny]);
    expect(hooked).toMatchObject({ state: 'failed', error: 'fake trains no adapter sets, so it cannot start from saved ones (solver)' });
    expect(seen.log).toEqual([]);
  });
});

describe('RunBatcher', () => {
  it('packs step metrics as a matrix over the union of keys, NaN where a step lacks one', () => {
    const sent: RunBatch[] = [];
    const status: RunStatus = { state: 'running', step: 0, totalSteps: 2, stepsPerS: null, etaS: null, error: null };
    let now = 0;
    const b = new RunBatcher('x', status, (x) => sent.push(x), 100, () => now);
    b.push({ type: 'step', step: 1, seconds: 0.5, metrics: { reward: 1, entropy: 2 } });
    b.push({ type: 'step', step: 2, seconds: 0.5, metrics: { reward: 0 } });
    expect(sent).toHaveLength(0);
    now = 150;
    b.flush();
    expect(sent).toHaveLength(1);
    expect(sent[0].keys).toEqual(['reward', 'entropy']);
    expect(Array.from(sent[0].metrics)).toEqual([1, 2, 0, NaN]);
    expect(sent[0].metrics).toBeInstanceOf(Float64Array);
  });

  it('sends a change of state at once', () => {
    const sent: RunBatch[] = [];
    const status: RunStatus = { state: 'running', step: 0, totalSteps: 2, stepsPerS: null, etaS: null, error: null };
    const b = new RunBatcher('x', status, (x) => sent.push(x), 100, () => 0);
    b.flush();
    expect(sent).toHaveLength(1);
    b.setStatus({ ...status, step: 1 });
    expect(sent).toHaveLength(1);
    b.setStatus({ ...status, step: 1, state: 'paused' });
    expect(sent).toHaveLength(2);
    expect(sent[1].status.state).toBe('paused');
  });
});
