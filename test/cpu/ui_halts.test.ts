// Runs that stop on their own, worker side: a step the optimiser rejected or a non-finite metric
// pauses the run on that step's boundary with a message (resume carries on); device loss halts
// every run, refuses resume and single steps, ends a paused run at once, and a step that then
// fails ends the run with the plain-words message rather than the GPU's.
import { describe, expect, it } from 'vitest';
import { deviceLostHalt, stepHalt } from '../../src/lab/halts';
import { RunManager, type PreparedLoop } from '../../src/lab/runs';
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

/** A loop with one step event per step (no samples, no evaluation); `metrics(step)` decides them. */
function loop(steps: number, metrics: (step: number) => Record<string, number>): PreparedLoop {
  return {
    steps,
    tail: () => [],
    async *start(_g, _c, _i, signal) {
      let step = 0;
      while (step < steps && !signal.aborted) {
        step++;
        await tick();
        yield { type: 'step', step, seconds: 0.1, metrics: metrics(step) };
      }
      yield { type: 'done', step, aborted: signal.aborted, params: new Float32Array(1) };
    },
  };
}

function manager(l: PreparedLoop) {
  return new RunManager({ loops: { grpo: () => l }, loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }), batchIntervalMs: 0 });
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

const spec = { runId: 'a', loop: 'grpo' as const, policy: 'tiny', config: {} };

describe('RunManager halts', () => {
  it('pauses on the boundary of a rejected or non-finite step; resume carries on', async () => {
    const m = manager(loop(4, (s) => (s === 2 ? { reward: 1, rejected_steps: 1 } : s === 3 ? { reward: NaN, rejected_steps: 0 } : { reward: 1, rejected_steps: 0 })));
    const batches: RunBatch[] = [];
    const last = (): RunStatus | undefined => batches[batches.length - 1]?.status;
    const done = m.start({} as Gpu, spec, (b) => batches.push(b));
    await until(() => last()?.state === 'paused', 'the first halt');
    expect(last()).toMatchObject({ step: 2, halts: [{ step: 2, kind: 'rejected' }] });
    m.resume('a');
    await until(() => last()?.state === 'paused' && last()?.step === 3, 'the second halt');
    expect(last()?.halts?.map((h) => h.kind)).toEqual(['rejected', 'nonfinite']);
    m.resume('a');
    const final = await done;
    expect(final).toMatchObject({ state: 'done', step: 4, error: null });
    expect(final.halts).toHaveLength(2);
  });

  it('after device loss: a paused run refuses to go on and ends as failed; a computing run fails in plain words', async () => {
    let open: () => void = () => undefined;
    const gate = { wait: new Promise<void>((r) => (open = r)) };
    // no step-0 boundary in this loop: the pause lands after step 1
    const m = manager(loop(3, () => ({ reward: 1, rejected_steps: 0 })));
    const batches: RunBatch[] = [];
    const pausedRun = m.start({} as Gpu, spec, (b) => batches.push(b));
    m.pause('a');
    await until(() => batches.some((b) => b.status.state === 'paused'), 'the pause');

    const failing: PreparedLoop = {
      steps: 3, tail: () => [],
      async *start() {
        yield { type: 'step', step: 1, seconds: 0.1, metrics: { reward: 1, rejected_steps: 0 } };
        await gate.wait;
        throw new Error('Failed to execute mapAsync: device is lost');
      },
    };
    const m2 = manager(failing);
    const running = m2.start({} as Gpu, { ...spec, runId: 'b' }, () => undefined);
    await tick();
    m.deviceLost('destroyed', 'Device was destroyed.');
    m2.deviceLost('destroyed', 'Device was destroyed.');
    expect(() => m.resume('a')).toThrow(/GPU device was lost/);
    expect(() => m.step('a')).toThrow(/GPU device was lost/);
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
    const failing: PreparedLoop = {
      steps: 3, tail: () => [],
      async *start() {
        yield { type: 'step', step: 1, seconds: 0.1, metrics: { reward: 1, rejected_steps: 0 } };
        // the readback fails at once; the device reports its loss a moment later
        setTimeout(() => ((gpu as unknown as { isLost: boolean }).isLost = true), 20);
        throw new Error("Failed to execute 'mapAsync' on 'GPUBuffer': Buffer was unmapped before mapping was resolved.");
      },
    };
    const final = await manager(failing).start(gpu, spec, () => undefined);
    expect(final).toMatchObject({ state: 'failed', step: 1, halts: [{ kind: 'device-lost', step: 1 }] });
    expect(final.error).toMatch(/^The GPU device was lost \(lost\) after step 1/);
  });

  it('a plain failure keeps its own message', async () => {
    const failing: PreparedLoop = {
      steps: 3, tail: () => [],
      async *start() {
        throw new Error('grpo: no training problems');
      },
    };
    const final = await manager(failing).start({ isLost: false } as unknown as Gpu, spec, () => undefined);
    expect(final).toMatchObject({ state: 'failed', error: 'grpo: no training problems' });
    expect(final.halts).toBeUndefined();
  });
});
