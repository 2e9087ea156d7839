// Runs that stop on their own, worker side: a step the optimiser rejected or a non-finite metric
// pauses the run on that step's boundary with a message (resume carries on); device loss halts
// every run, refuses resume and single steps, ends a paused run at once, and a step that then
// fails ends the run with the plain-words message rather than the GPU's.
import { describe, expect, it } from 'vitest';
import { deviceLostHalt, stepHalt } from '../../src/lab/worker/halts';
import { RunManager } from '../../src/lab/worker/runs';
import { fakeEngine, fakeLoop, fakeSeen, type FakeLoopOptions } from '../helpers/fakeLoop';
import type { RunBatch, RunStatus } from '../../src/lab/protocol';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('stepHalt', () => {
  it('passes a sound step', () => {
    expect(stepHalt(3, { reward: 0.5, rejected_steps: 0, kl: 0 })).toBeNull();
  });

  it('halts on a rejected update before looking at the values', () => {
    const h = stepHalt(4, { reward: NaN, rejected_steps: 2 });
    expect(h).toMatchObject({ step: 4, kind: 'rejected' });
    expect(h?.message).toMatch(/Step 4: the optimiser rejected 2 updates.*paused/);
  });

  it('names every non-finite metric', () => {
    const h = stepHalt(7, { reward: 1, entropy: NaN, grad_norm: Infinity });
    expect(h).toMatchObject({ step: 7, kind: 'nonfinite' });
    expect(h?.message).toMatch(/Step 7: entropy = NaN, grad_norm = Infinity is not finite/);
  });

  it('says what device loss keeps', () => {
    expect(deviceLostHalt(5, 'destroyed', '').message).toMatch(/lost \(destroyed\) after step 5\. Steps 1–5 are kept.*Resume it to continue from its last checkpoint on a new device/);
  });
});

/** A run manager over a fake loop with one step event per step (no samples, no evaluation but at the start). */
function manager(o: FakeLoopOptions) {
  const seen = fakeSeen();
  const def = fakeLoop(seen, o);
  return new RunManager({ loopNamed: () => def, createEngine: async (_d, init) => fakeEngine(init, seen), loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }), batchIntervalMs: 0 });
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

const spec = { runId: 'a', loop: 'fake', policy: 'tiny', config: {} };

describe('RunManager halts', () => {
  it('pauses on the boundary of a rejected or non-finite step; resume carries on', async () => {
    const m = manager({ metrics: (s) => (s === 2 ? { reward: 1, rejected_steps: 1 } : s === 3 ? { reward: NaN, rejected_steps: 0 } : { reward: 1, rejected_steps: 0 }) });
    const batches: RunBatch[] = [];
    const last = (): RunStatus | undefined => batches[batches.length - 1]?.status;
    const done = m.start({} as Gpu, spec, (b) => batches.push(b));
    await until(() => last()?.state === 'paused', 'the first halt');
    expect(last()).toMatchObject({ step: 2, halts: [{ step: 2, kind: 'rejected' }] });
    m.resumeRun('a');
    await until(() => last()?.state === 'paused' && last()?.step === 3, 'the second halt');
    expect(last()?.halts?.map((h) => h.kind)).toEqual(['rejected', 'nonfinite']);
    m.resumeRun('a');
    const final = await done;
    expect(final).toMatchObject({ state: 'done', step: 4, error: null });
    expect(final.halts).toHaveLength(2);
  });

  it('after device loss: a paused run refuses to go on and ends as failed; a computing run fails in plain words', async () => {
    let open: () => void = () => undefined;
    const gate = { wait: new Promise<void>((r) => (open = r)) };
    const m = manager({ metrics: () => ({ reward: 1, rejected_steps: 0 }) });
    const batches: RunBatch[] = [];
    const pausedRun = m.start({} as Gpu, { ...spec, config: { steps: 3 } }, (b) => batches.push(b));
    // paused at the start's boundary, then one single step: paused after step 1
    m.pauseRun('a');
    await until(() => batches.some((b) => b.status.state === 'paused'), 'the pause');
    m.stepRun('a');
    await until(() => batches.some((b) => b.status.state === 'paused' && b.status.step === 1), 'the pause after step 1');

    const m2 = manager({
      step: async (s) => {
        if (s === 1) return { reward: 1, rejected_steps: 0 };
        await gate.wait;
        throw new Error('Failed to execute mapAsync: device is lost');
      },
    });
    const b2: RunBatch[] = [];
    const running = m2.start({} as Gpu, { ...spec, runId: 'b' }, (b) => b2.push(b));
    await until(() => b2.some((b) => b.step.includes(1)), 'run b at step 1');
    m.deviceLost('destroyed', 'Device was destroyed.');
    m2.deviceLost('destroyed', 'Device was destroyed.');
    expect(() => m.resumeRun('a')).toThrow(/GPU device was lost/);
    expect(() => m.stepRun('a')).toThrow(/GPU device was lost/);
    expect(batches[batches.length - 1].status).toMatchObject({ state: 'paused', step: 1, halts: [{ kind: 'device-lost', step: 1 }] });
    open();
    const final = await running;
    expect(final.state).toBe('failed');
    expect(final.error).toMatch(/^The GPU device was lost \(destroyed: Device was destroyed\.\) after step 1/);
    // its buffers went with the device: the paused run ends at once, its steps kept
    const ended = await pausedRun;
    expect(ended).toMatchObject({ state: 'failed', step: 1, halts: [{ kind: 'device-lost', step: 1 }] });
    expect(ended.error).toMatch(/Resume it to continue from its last checkpoint on a new device/);
  });

  it('a step that fails before the loss is reported still ends in plain words', async () => {
    const gpu = { isLost: false } as unknown as Gpu;
    const failing = manager({
      step: async (s) => {
        if (s === 1) return { reward: 1, rejected_steps: 0 };
        // the readback fails at once; the device reports its loss a moment later
        setTimeout(() => ((gpu as unknown as { isLost: boolean }).isLost = true), 20);
        throw new Error("Failed to execute 'mapAsync' on 'GPUBuffer': Buffer was unmapped before mapping was resolved.");
      },
    });
    const final = await failing.start(gpu, spec, () => undefined);
    expect(final).toMatchObject({ state: 'failed', step: 1, halts: [{ kind: 'device-lost', step: 1 }] });
    expect(final.error).toMatch(/^The GPU device was lost \(lost\) after step 1/);
  });

  it('a plain failure keeps its own message', async () => {
    const failing = manager({
      step: async () => {
        throw new Error('grpo: no training problems');
      },
    });
    const final = await failing.start({ isLost: false } as unknown as Gpu, spec, () => undefined);
    expect(final).toMatchObject({ state: 'failed', error: 'grpo: no training problems' });
    expect(final.halts).toBeUndefined();
  });
});
