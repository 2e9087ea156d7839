// The worker's run manager without a GPU: a fake loop with GRPO's event order shows that pause
// lands on step boundaries (after the step's samples and evaluation), a single step runs exactly
// one step, stop ends a paused run, config errors reject, and batches carry metrics as a matrix.
import { describe, expect, it } from 'vitest';
import { RunManager, type PreparedLoop } from '../../src/lab/runs';
import { grpoTail } from '../../src/lab/loops';
import { RunBatcher } from '../../src/lab/runBatcher';
import type { LoopEvent } from '../../src/loops/events';
import type { RunBatch, RunStatus } from '../../src/lab/protocol';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';

const tick = () => new Promise((r) => setTimeout(r, 0));

/** GRPO's order: eval 0, then per step: step, samples, eval every `evalEvery` and at the end, a checkpoint at the end. */
function fakeLoop(steps: number, evalEvery: number, log: string[]): PreparedLoop {
  const c = { steps, samplesPerStep: 1, evalEvery, checkpointEvery: 0 };
  return {
    steps,
    tail: (s) => grpoTail(c, s),
    async *start(_gpu, _cfg, _init, signal) {
      const ev = (step: number): LoopEvent => ({ type: 'eval', step, set: 'e', passAtK: { '1': step / 10 }, avgAtK: {}, majAtK: {}, meanEntropy: 1, meanLength: 3, histogram: [1] });
      yield ev(0);
      let step = 0;
      while (step < steps && !signal.aborted) {
        step++;
        log.push(`compute ${step}`);
        await tick();
        yield { type: 'step', step, seconds: 0.1, metrics: step % 2 ? { reward: step, entropy: 2 } : { reward: step } };
        yield { type: 'samples', step, samples: [{ prompt: 'p', response: 'r', reward: 1, entropy: [0.5] }] };
        if ((evalEvery > 0 && step % evalEvery === 0) || step === steps) yield ev(step);
        if (step === steps) yield { type: 'checkpoint', step, params: new Float32Array(1), optimiser: { m: new Float32Array(1), v: new Float32Array(1), step }, config: c };
      }
      yield { type: 'done', step, aborted: signal.aborted, params: new Float32Array(1) };
    },
  };
}

function manager(loop: PreparedLoop) {
  return new RunManager({
    loops: {
      grpo: (raw) => {
        if ((raw as { bad?: boolean }).bad) throw new Error('grpo.steps = 0: must be ≥ 1');
        return loop;
      },
    },
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

describe('RunManager', () => {
  it('pauses on a step boundary, single-steps exactly one step, resumes to the end', async () => {
    const log: string[] = [];
    const m = manager(fakeLoop(4, 2, log));
    const batches: RunBatch[] = [];
    const last = (): RunStatus | undefined => batches[batches.length - 1]?.status;
    const run = m.start(GPU, { runId: 'a', loop: 'grpo', policy: 'tiny', config: {} }, (b) => batches.push(b));
    m.pause('a');
    await until(() => last()?.state === 'paused', 'the first pause');
    expect(last()?.step).toBe(0);
    expect(log).toEqual([]);
    expect(m.computing).toBe(false);

    m.step('a');
    await until(() => last()?.state === 'paused' && last()?.step === 1, 'paused after step 1');
    m.step('a');
    await until(() => last()?.state === 'paused' && last()?.step === 2, 'paused after step 2');
    // step 2's samples and its scheduled evaluation arrived before the pause; step 3 did not start
    expect(log).toEqual(['compute 1', 'compute 2']);
    const evals = batches.flatMap((b) => b.evals.map((e) => e.step));
    expect(evals).toEqual([0, 2]);
    expect(batches.flatMap((b) => b.samples.map((e) => e.step))).toEqual([1, 2]);
    expect(() => m.step('nope')).toThrow(/no active run/);

    m.resume('a');
    const final = await run;
    expect(final.state).toBe('done');
    expect(final.step).toBe(4);
    expect(log).toEqual(['compute 1', 'compute 2', 'compute 3', 'compute 4']);
    expect(batches.flatMap((b) => Array.from(b.step))).toEqual([1, 2, 3, 4]);
    expect(final.stepsPerS).not.toBeNull();
  });

  it('stops a paused run without computing another step', async () => {
    const log: string[] = [];
    const m = manager(fakeLoop(5, 0, log));
    const states: string[] = [];
    const run = m.start(GPU, { runId: 'b', loop: 'grpo', policy: 'tiny', config: {} }, (b) => states.push(b.status.state));
    m.pause('b');
    await until(() => states.includes('paused'), 'pause');
    m.stop('b');
    const final = await run;
    expect(final.state).toBe('stopped');
    expect(log).toEqual([]);
    expect(() => m.pause('b')).toThrow(/no active run/);
  });

  it('rejects a bad config before starting, and refuses single steps on a running run', async () => {
    const m = manager(fakeLoop(50, 0, []));
    await expect(m.start(GPU, { runId: 'c', loop: 'grpo', policy: 'tiny', config: { bad: true } }, () => undefined)).rejects.toThrow(/must be ≥ 1/);
    const run = m.start(GPU, { runId: 'd', loop: 'grpo', policy: 'tiny', config: {} }, () => undefined);
    await tick();
    expect(() => m.step('d')).toThrow(/single steps need a paused run/);
    m.stop('d');
    expect((await run).state).toBe('stopped');
  });

  it('reports a loop that throws as a failed run with its message', async () => {
    const m = new RunManager({
      loops: {
        grpo: () => ({
          steps: 1, tail: () => [],
          // eslint-disable-next-line require-yield
          async *start() {
            throw new Error('device lost');
          },
        }),
      },
      loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }),
    });
    const final = await m.start(GPU, { runId: 'e', loop: 'grpo', policy: 'tiny', config: {} }, () => undefined);
    expect(final).toMatchObject({ state: 'failed', error: 'device lost' });
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
