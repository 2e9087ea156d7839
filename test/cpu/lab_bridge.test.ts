// The bridge (src/lab/bridge.ts) over a real MessageChannel, as between the page and a worker: the
// run commands declared once in the protocol reach a run host's RunManager with nothing written
// out for them; batches and checkpoint files arrive intact with their buffers transferred (the
// sender's copies are detached, not cloned); a page callback that throws is logged by the worker
// and the run goes on; a worker's refusal rejects the page's call with its message.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, serve, type Connected } from '../../src/lab/bridge';
import type { CheckpointFile } from '../../src/lab/protocol';
import type { RunApi, RunBatch, RunSpec, RunStatus } from '../../src/lab/protocol/run';
import { RunManager } from '../../src/lab/worker/runs';
import { runApiOf } from '../../src/lab/worker/runHost';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { fakeEngine, fakeLoop, fakeSeen } from '../helpers/fakeLoop';

const opened: MessagePort[] = [];
afterEach(() => {
  for (const p of opened.splice(0)) p.close();
  vi.restoreAllMocks();
});

/** `host` served on one end of a channel, and the page's client of it on the other (a port standing in for the Worker). */
function bridged<T extends object>(host: object, label = 'test worker'): Connected<T> {
  const { port1, port2 } = new MessageChannel();
  opened.push(port1, port2);
  serve(host, label, port1);
  const worker = Object.assign(port2, { terminate: () => port2.close() }) as unknown as Worker;
  return connect<T>(worker, 'test worker');
}

const tick = () => new Promise((r) => setTimeout(r, 0));
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

const SPEC: RunSpec = { runId: 'a', loop: 'fake', policy: 'tiny', config: {} };

describe('the bridge', () => {
  it('carries every run command of the protocol to the run host\'s RunManager', async () => {
    const seen = fakeSeen();
    const def = fakeLoop(seen, { samplesPerStep: 1, evalEvery: 2 });
    const manager = new RunManager({
      loopNamed: () => def,
      createEngine: async (_d, init) => fakeEngine(init, seen),
      loadPolicy: async () => ({ cfg: GPT_PRESETS.tiny, params: new Float32Array(1) }),
      batchIntervalMs: 0,
    });
    const client = bridged<RunApi>(runApiOf(manager, () => ({}) as Gpu));
    const batches: RunBatch[] = [];
    const last = (): RunStatus | undefined => batches[batches.length - 1]?.status;
    const run = client.startRun(SPEC, (b) => batches.push(b));
    await client.pauseRun('a');
    await until(() => last()?.state === 'paused', 'the pause');
    // the pause may land before step 1 or, on a busy machine, after it
    const pausedAt = last()!.step;
    await client.stepRun('a');
    await until(() => last()?.state === 'paused' && last()?.step === pausedAt + 1, 'paused after one step');
    // a command's answer crosses back: the step that takes the knobs
    expect(await client.setRunKnobs('a', { temperature: 0.9 })).toBe(pausedAt + 2);
    await expect(client.stepRun('nope')).rejects.toThrow(/no active run with id nope/);
    await client.resumeRun('a');
    const final = await run;
    expect(final.state).toBe('done');
    // the step metrics arrived as typed arrays, every step once, in order
    expect(batches.every((b) => b.step instanceof Float64Array && b.metrics instanceof Float64Array)).toBe(true);
    expect(batches.flatMap((b) => Array.from(b.step))).toEqual([1, 2, 3, 4]);
    expect(seen.log).toEqual(['compute 1', 'compute 2', 'compute 3', 'compute 4']);
    client.terminate();
  });

  it('transfers a batch\'s and a checkpoint file\'s buffers: intact on the page, detached in the worker', async () => {
    const sent: RunBatch[] = [];
    const file: CheckpointFile = { filename: 'a.safetensors', mime: 'application/octet-stream', bytes: Uint8Array.from([1, 2, 3, 250]) };
    const host = {
      startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): RunStatus {
        const status: RunStatus = { state: 'done', step: 2, totalSteps: 2, stepsPerS: null, etaS: null, error: null };
        const b: RunBatch = { runId: spec.runId, step: Float64Array.from([1, 2]), seconds: Float64Array.from([0.5, 0.25]), keys: ['reward', 'kl'], metrics: Float64Array.from([0.1, NaN, 0.3, 0.4]), samples: [], records: [], evals: [], status };
        onBatch(b);
        sent.push(b);
        return status;
      },
      exportCheckpoint: () => file,
    };
    const client = bridged<typeof host>(host);
    const got: RunBatch[] = [];
    expect((await client.startRun(SPEC, (b) => got.push(b))).state).toBe('done');
    await until(() => got.length === 1, 'the batch');
    expect(Array.from(got[0].step)).toEqual([1, 2]);
    expect(Array.from(got[0].seconds)).toEqual([0.5, 0.25]);
    expect(Array.from(got[0].metrics)).toEqual([0.1, NaN, 0.3, 0.4]);
    expect(got[0].keys).toEqual(['reward', 'kl']);
    // moved, not copied: the worker's arrays are empty once sent
    expect([sent[0].step.byteLength, sent[0].seconds.byteLength, sent[0].metrics.byteLength]).toEqual([0, 0, 0]);
    const f = await client.exportCheckpoint();
    expect(Array.from(f.bytes)).toEqual([1, 2, 3, 250]);
    expect(file.bytes.byteLength).toBe(0);
    client.terminate();
  });

  it('logs a page callback that throws, and the worker\'s call goes on to its answer', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let calls = 0;
    const host = {
      async startRun(spec: RunSpec, onBatch: (b: RunBatch) => void): Promise<string> {
        const status: RunStatus = { state: 'running', step: 0, totalSteps: 1, stepsPerS: null, etaS: null, error: null };
        for (let i = 0; i < 2; i++) onBatch({ runId: spec.runId, step: new Float64Array(0), seconds: new Float64Array(0), keys: [], metrics: new Float64Array(0), samples: [], records: [], evals: [], status });
        return 'finished';
      },
    };
    const client = bridged<typeof host>(host, 'rlvr-lab test worker');
    const answer = await client.startRun(SPEC, () => {
      calls++;
      throw new Error('the page broke');
    });
    expect(answer).toBe('finished');
    await until(() => errors.mock.calls.length === 2, 'both failures logged');
    expect(calls).toBe(2);
    expect(errors.mock.calls[0][0]).toBe('rlvr-lab test worker: page callback failed');
    expect(String(errors.mock.calls[0][1])).toMatch(/the page broke/);
    client.terminate();
  });

  it('rejects the pending and later calls of a closed worker with its name', async () => {
    const host = { wait: () => new Promise(() => undefined) };
    const client = bridged<typeof host>(host);
    const pending = client.wait();
    client.terminate();
    await expect(pending).rejects.toThrow('the test worker was closed');
    await expect(client.wait()).rejects.toThrow('the test worker was closed');
  });
});
