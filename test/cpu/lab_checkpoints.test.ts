// Checkpoints of runs, worker side, without a GPU: the store round-trips a run's state through
// its files (Hugging Face GPT-2 safetensors among them), a save that fails part way (a full disk)
// leaves the previous checkpoint whole, and the run manager saves checkpoint events (with the
// run's metrics so far), pauses with a storage-full halt and saves again on resume, and resumes a
// run from its checkpoint, sending the recorded metrics first.
import { describe, expect, it } from 'vitest';
import { fileCheckpointStore, isQuotaError, memoryCheckpointStore, memoryFs, type RunCheckpoint } from '../../src/lab/worker/checkpoints';
import { checkpointFile } from '../../src/lab/worker/checkpointExport';
import { RunManager } from '../../src/lab/worker/runs';
import { fakeEngine, fakeLoop, fakeSeen, type FakeSeen } from '../helpers/fakeLoop';
import type { RunBatch, RunStatus } from '../../src/lab/protocol';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { parseCheckpoint } from '../../src/model/checkpoint';
import { decodeSafetensors } from '../../src/model/safetensors';
import { buildLoraTable, layerAdapters, mergeLora, parseAdapter } from '../../src/model/lora';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const N = table.totalFloats;
const tick = () => new Promise((r) => setTimeout(r, 0));
const quotaError = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

function ckpt(step: number, runId = 'run-1'): RunCheckpoint {
  // values inside the tensors only: the padding between them is not stored (it reads back as 0)
  const params = new Float32Array(N);
  for (const t of table.tensors) for (let i = t.offset; i < t.offset + t.size; i++) params[i] = Math.sin(i + step);
  return {
    runId, loop: 'grpo', policy: 'tiny', cfg, step, params, state: { draws: step * 3 },
    optimiser: { m: params.map((x) => x / 10), v: params.map((x) => x * x), step: step * 2 },
    config: { steps: 10, lr: 1e-3 + step },
    history: {
      // a halted step's metric may be NaN or infinite; JSON alone would turn it into null
      steps: Array.from({ length: step }, (_, i) => ({ type: 'step' as const, step: i + 1, seconds: 0.5, metrics: { reward: i / 4, grad_norm: i === 1 ? NaN : -Infinity } })),
      evals: [{ type: 'eval', step: 0, set: 'eval-mixed', passAtK: { '1': 0.25 }, avgAtK: { '1': 0.25 }, majAtK: { '1': 0 }, meanEntropy: 1.5, meanLength: 7, histogram: [1, 0, 2] }],
    },
    savedAt: 1000 + step,
  };
}

describe('adapter sets in checkpoints', () => {
  it('saves each set as PEFT files with its optimiser beside the model, and reads them back as they were', async () => {
    const fs = memoryFs();
    const store = fileCheckpointStore(fs);
    const spec = { name: 'solver', rank: 2, alpha: 4 };
    const atable = buildLoraTable(cfg, spec);
    const params = new Float32Array(atable.totalFloats);
    for (const t of atable.tensors) for (let i = t.offset; i < t.offset + t.size; i++) params[i] = Math.cos(i);
    const adapters = [{ spec, params, optimiser: { m: params.map((x) => x / 3), v: params.map((x) => x * x), step: 5 } }];
    await store.save({ ...ckpt(2), loop: 'ttsp', adapters });
    const back = (await store.load('run-1'))!;
    expect(back.adapters).toHaveLength(1);
    expect(back.adapters![0].spec).toEqual(spec);
    expect(Array.from(back.adapters![0].params)).toEqual(Array.from(params));
    expect(back.adapters![0].optimiser.step).toBe(5);
    expect(Array.from(back.adapters![0].optimiser.v)).toEqual(Array.from(adapters[0].optimiser.v));
    // a checkpoint without adapter sets reads back without them
    await store.save(ckpt(3));
    expect((await store.load('run-1'))!.adapters).toBeUndefined();
    // a set's file gone: the load says which
    await store.save({ ...ckpt(4), adapters });
    const slot = (JSON.parse(new TextDecoder().decode((await fs.read(['checkpoints', 'run-1', 'manifest.json']))!)) as { slot: string }).slot;
    await fs.remove(['checkpoints', 'run-1', slot, 'adapter_solver.optimizer.safetensors']);
    await expect(store.load('run-1')).rejects.toThrow(/files of adapter set "solver" are missing/);
  });

  it('exports a TTSP checkpoint as the adapted solver: the base with the solver set merged in', () => {
    const spec = { name: 'solver', rank: 2, alpha: 4 };
    const atable = buildLoraTable(cfg, spec);
    const params = new Float32Array(atable.totalFloats);
    for (const t of atable.tensors) for (let i = t.offset; i < t.offset + t.size; i++) params[i] = Math.cos(i) / 4;
    const c = { ...ckpt(2), loop: 'ttsp', adapters: [{ spec, params, optimiser: { m: params, v: params, step: 1 } }] };
    const file = checkpointFile(c, 'safetensors');
    const st = decodeSafetensors(file.bytes);
    expect(st.metadata.adapter_merged).toBe('solver');
    const merged = mergeLora(cfg, table, c.params, spec, params);
    // one adapted weight by hand: W[k][n] + (α/r)·Σ_r A[k][r]·B[r][n]
    const w = table.tensors.find((t) => t.name === 'h.0.mlp.c_fc.weight')!;
    const pair = layerAdapters(atable, 0)['mlp.c_fc']!;
    const N = w.shape[1];
    const byHand = c.params[w.offset + 3 * N + 5] + 2 * (params[pair.a.offset + 3 * 2] * params[pair.b.offset + 5] + params[pair.a.offset + 3 * 2 + 1] * params[pair.b.offset + N + 5]);
    expect(merged[w.offset + 3 * N + 5]).toBeCloseTo(byHand, 6);
    expect(Array.from(st.tensors.get('h.0.mlp.c_fc.weight')!.data!)).toEqual(Array.from(merged.subarray(w.offset, w.offset + w.size)));
    expect(Array.from(st.tensors.get('h.0.mlp.c_fc.weight')!.data!)).not.toEqual(Array.from(c.params.subarray(w.offset, w.offset + w.size)));
    // each set downloads alone: PEFT's names, its LoraConfig in the metadata, read back as it was
    const ad = checkpointFile(c, 'adapter:solver');
    expect(ad.filename).toBe('rlvr-lab-ttsp-tiny-run-1-step2-adapter_solver.safetensors');
    const meta = decodeSafetensors(ad.bytes).metadata;
    expect(meta.adapter_merged).toBeUndefined();
    expect(st.metadata.adapter_targets).toBe('attn.c_attn,attn.c_proj,mlp.c_fc,mlp.c_proj');
    const back = parseAdapter(ad.bytes, meta.adapter_config, cfg, 'solver');
    expect(back.spec).toEqual(spec);
    expect(Array.from(back.params)).toEqual(Array.from(params));
    expect(() => checkpointFile(c, 'adapter:critic')).toThrow(/no adapter set "critic" \(it has solver\)/);
    // a set the loop does not export: refused, naming what there is
    expect(() => checkpointFile({ ...c, adapters: [{ ...c.adapters[0], spec: { ...spec, name: 'proposer' } }] }, 'safetensors')).toThrow(/trains adapter sets \(proposer\)/);
  });
});

describe('parameter snapshots', () => {
  it('keeps one per step beside the checkpoint, thins the older ones past `keep` (first and latest stay), and goes with the run', async () => {
    const fs = memoryFs();
    const store = fileCheckpointStore(fs);
    const p = (x: number) => new Float32Array([x, x + 0.5, -x]);
    expect(await store.snapshotSteps('run-1')).toEqual([]);
    for (const step of [2, 4, 6, 8]) await store.saveSnapshot('run-1', step, p(step), 4);
    expect(await store.snapshotSteps('run-1')).toEqual([2, 4, 6, 8]);
    expect(Array.from((await store.loadSnapshot('run-1', 6))!)).toEqual([6, 6.5, -6]);
    // a fifth: every other one between the first and the latest goes
    await store.saveSnapshot('run-1', 10, p(10), 4);
    expect(await store.snapshotSteps('run-1')).toEqual([2, 6, 10]);
    expect(await store.loadSnapshot('run-1', 4)).toBeNull();
    // a view into a larger buffer is saved as itself
    const big = new Float32Array([9, 1, 2, 3, 9]);
    await store.saveSnapshot('run-1', 12, big.subarray(1, 4), 4);
    expect(Array.from((await store.loadSnapshot('run-1', 12))!)).toEqual([1, 2, 3]);
    await store.save(ckpt(3));
    expect((await store.list()).map((c) => c.runId)).toEqual(['run-1']);
    await store.remove('run-1');
    expect(await store.snapshotSteps('run-1')).toEqual([]);
    await expect(store.saveSnapshot('../x', 1, p(1), 4)).rejects.toThrow();
  });
});

describe('checkpoint store', () => {
  it('round-trips a run state; the model file is a Hugging Face GPT-2 checkpoint', async () => {
    const fs = memoryFs();
    const store = fileCheckpointStore(fs);
    expect(await store.load('run-1')).toBeNull();
    await store.save(ckpt(3));
    const back = await store.load('run-1');
    expect(back).toEqual(ckpt(3));
    const slot = [...fs.files.keys()].find((k) => k.endsWith('/model.safetensors'))!;
    const config = fs.files.get(slot.replace('model.safetensors', 'config.json'))!;
    const hf = parseCheckpoint(fs.files.get(slot)!, new TextDecoder().decode(config));
    expect(hf.params).toEqual(ckpt(3).params);
    expect(hf.meta).toMatchObject({ run_id: 'run-1', step: '3' });
  });

  it('alternates between two slots and lists one checkpoint per run', async () => {
    const fs = memoryFs();
    const store = fileCheckpointStore(fs);
    await store.save(ckpt(1));
    await store.save(ckpt(2));
    await store.save(ckpt(1, 'run-2'));
    expect((await store.load('run-1'))?.step).toBe(2);
    const list = await store.list();
    expect(list.map((c) => [c.runId, c.step])).toEqual([['run-2', 1], ['run-1', 2]]);
    expect(list[0].bytes).toBeGreaterThan(3 * 4 * N);
    const slots = new Set([...fs.files.keys()].filter((k) => k.startsWith('checkpoints/run-1/')).map((k) => k.split('/')[2]));
    expect(slots).toEqual(new Set(['a', 'b', 'manifest.json']));
    await store.remove('run-1');
    expect(await store.load('run-1')).toBeNull();
    expect((await store.list()).map((c) => c.runId)).toEqual(['run-2']);
  });

  it('a save the disk cannot hold fails with QuotaExceededError and keeps the previous checkpoint, at any file', async () => {
    for (const failing of ['model.safetensors', 'optimizer.safetensors', 'state.json', 'manifest.json']) {
      let full = false;
      const store = memoryCheckpointStore((path) => {
        if (full && path[path.length - 1] === failing) throw quotaError();
      });
      await store.save(ckpt(1));
      await store.save(ckpt(2));
      full = true;
      const err = await store.save(ckpt(3)).then(() => null, (e: unknown) => e);
      expect(isQuotaError(err), failing).toBe(true);
      expect(await store.load('run-1'), failing).toEqual(ckpt(2));
      expect((await store.list())[0].step).toBe(2);
      full = false;
      await store.save(ckpt(4));
      expect((await store.load('run-1'))?.step).toBe(4);
    }
  });

  it('refuses run ids that are not folder names, and says which part of a broken checkpoint is wrong', async () => {
    const fs = memoryFs();
    const store = fileCheckpointStore(fs);
    await expect(store.save(ckpt(1, '../x'))).rejects.toThrow(/run id "\.\.\/x" is not a valid folder name/);
    await store.save(ckpt(1));
    fs.files.set('checkpoints/run-1/manifest.json', new TextEncoder().encode('{"nope":1}'));
    await expect(store.load('run-1')).rejects.toThrow(/checkpoint of run run-1: manifest\.json: not an rlvr-lab checkpoint 1 file/);
  });

  it('exports the policy as safetensors carrying its config, or as ONNX', () => {
    const st = checkpointFile(ckpt(5), 'safetensors');
    expect(st.filename).toBe('rlvr-lab-grpo-tiny-run-1-step5.safetensors');
    const file = decodeSafetensors(st.bytes);
    expect(file.tensors.get('wte.weight')?.shape).toEqual([cfg.vocabSize, cfg.nEmbd]);
    expect(JSON.parse(file.metadata.config_json)).toMatchObject({ model_type: 'gpt2', n_embd: cfg.nEmbd });
    expect(file.metadata).toMatchObject({ format: 'pt', step: '5', base_policy: 'tiny' });
    const onnx = checkpointFile(ckpt(5), 'onnx');
    expect(onnx.filename.endsWith('.onnx')).toBe(true);
    expect(onnx.bytes.length).toBeGreaterThan(4 * N);
  });
});

/** A run manager over a fake loop with a checkpoint after every step, of a policy of N floats all −7. */
function manager(seen: FakeSeen, store = memoryCheckpointStore()) {
  const def = fakeLoop(seen, { checkpointEvery: 1 });
  const m = new RunManager({
    loopNamed: () => def,
    createEngine: async (_d, init) => fakeEngine(init, seen),
    loadPolicy: async () => ({ cfg, params: new Float32Array(N).fill(-7) }),
    checkpoints: store,
    batchIntervalMs: 0,
  });
  return { m, configs: seen.configs, store };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

const spec = { runId: 'r1', loop: 'fake', policy: 'tiny', config: { steps: 4 } };

describe('RunManager checkpoints', () => {
  it('saves checkpoint events and resumes a run from its latest under the same id', async () => {
    const seen = fakeSeen();
    const { m, configs, store } = manager(seen);
    const batches: RunBatch[] = [];
    const first = m.start({} as Gpu, spec, (b) => batches.push(b));
    await until(() => batches.some((b) => b.status.step >= 2), 'step 2');
    m.pauseRun('r1');
    await until(() => batches[batches.length - 1].status.state === 'paused', 'the pause');
    const at = batches[batches.length - 1].status.step;
    expect((await store.load('r1'))?.step).toBe(at);
    m.stopRun('r1');
    await first;

    const resumed: RunBatch[] = [];
    const final = await m.start({} as Gpu, { ...spec, config: { ignored: true }, resume: true }, (b) => resumed.push(b));
    // the checkpoint's config, not the new one; the loop's state comes back to its body
    expect(configs[configs.length - 1]).toMatchObject({ steps: 4 });
    expect(seen.resume).toEqual({ step: at, state: { at } });
    expect(seen.init?.params[0]).toBe(at);
    // the frozen KL reference of a resumed run is its base policy, not the checkpoint
    expect(seen.init?.reference[0]).toBe(-7);
    expect(resumed[0].status.step).toBe(at);
    // the checkpoint's recorded steps first, then the new ones
    expect(resumed.flatMap((b) => Array.from(b.step))).toEqual([1, 2, 3, 4]);
    expect((await store.load('r1'))?.history.steps.map((e) => e.step)).toEqual([1, 2, 3, 4]);
    expect(final).toMatchObject({ state: 'done', step: 4 });
    expect((await store.load('r1'))?.step).toBe(4);
  });

  it('a resumed run counts its token budget on from the tokens of its recorded steps', async () => {
    // 10 tokens a step, a budget of 35: the fourth step reaches it, resumed or not
    const seen = fakeSeen();
    const def = fakeLoop(seen, { checkpointEvery: 1, metrics: (step) => ({ reward: step, 'tokens/generated': 10 }) });
    const store = memoryCheckpointStore();
    const m = new RunManager({ loopNamed: () => def, createEngine: async (_d, init) => fakeEngine(init, seen), loadPolicy: async () => ({ cfg, params: new Float32Array(N) }), checkpoints: store, batchIntervalMs: 0 });
    const run = { runId: 'b1', loop: 'fake', policy: 'tiny', config: { steps: 9, tokenBudget: 35 } };
    const batches: RunBatch[] = [];
    const first = m.start({} as Gpu, run, (b) => batches.push(b));
    await until(() => batches.some((b) => b.status.step >= 2), 'step 2');
    m.pauseRun('b1');
    await until(() => batches[batches.length - 1].status.state === 'paused', 'the pause');
    m.stopRun('b1');
    await first;
    expect((await store.load('b1'))!.step).toBeLessThan(4);
    const final = await m.start({} as Gpu, { ...run, resume: true }, () => undefined);
    expect(final).toMatchObject({ state: 'done', step: 4 });
  });

  it('a run with no checkpoint cannot resume', async () => {
    const { m } = manager(fakeSeen());
    await expect(m.start({} as Gpu, { ...spec, resume: true }, () => undefined)).rejects.toThrow(/run r1 has no checkpoint to resume from/);
  });

  it('a full disk pauses the run with a storage-full halt; resume saves the checkpoint again, then carries on', async () => {
    let full = false;
    const { m, store } = manager(fakeSeen(), memoryCheckpointStore(() => {
      if (full) throw quotaError();
    }));
    const batches: RunBatch[] = [];
    const last = (): Partial<RunStatus> => batches[batches.length - 1]?.status ?? {};
    const done = m.start({} as Gpu, { ...spec, config: { steps: 3 } }, (b) => batches.push(b));
    m.pauseRun('r1');
    await until(() => last().state === 'paused', 'the pause at the start');
    m.stepRun('r1');
    await until(() => last().state === 'paused' && last().step === 1, 'the pause after step 1');
    full = true;
    m.resumeRun('r1');
    await until(() => last().state === 'paused' && last().halts?.length === 1, 'the storage-full pause');
    const h = last().halts?.[0];
    expect(h).toMatchObject({ kind: 'storage-full', step: 2 });
    expect(h?.message).toMatch(/Step 2: .*storage is full\. The checkpoint of step 1 is intact\. The run is paused/);
    expect((await store.load('r1'))?.step).toBe(1);
    m.resumeRun('r1');
    await until(() => last().state === 'paused' && (last().halts?.length ?? 0) === 2, 'the second failure');
    full = false;
    m.resumeRun('r1');
    expect(await done).toMatchObject({ state: 'done', step: 3 });
    expect((await store.load('r1'))?.step).toBe(3);
  });

  it('device loss ends a paused run without saving; a new run of the same id resumes from the last checkpoint', async () => {
    const seen = fakeSeen();
    const { m, store } = manager(seen);
    const batches: RunBatch[] = [];
    const first = m.start({} as Gpu, { ...spec, config: { steps: 5 } }, (b) => batches.push(b));
    await until(() => batches.some((b) => b.status.step >= 2), 'step 2');
    m.pauseRun('r1');
    await until(() => batches[batches.length - 1].status.state === 'paused', 'the pause');
    const at = batches[batches.length - 1].status.step;
    m.deviceLost('destroyed', '');
    expect(await first).toMatchObject({ state: 'failed', halts: [{ kind: 'device-lost', step: at }] });
    expect((await store.load('r1'))?.step).toBe(at);
    expect(await m.start({} as Gpu, { ...spec, resume: true }, () => undefined)).toMatchObject({ state: 'done', step: 5 });
    expect(seen.resume?.step).toBe(at);
  });
});

describe('RunManager cross-play from snapshots', () => {
  /** A fake loop that keeps 3 snapshots and whose "cross-play" reads back which parameters each engine got. */
  function withCrossPlay(seen: FakeSeen, store = memoryCheckpointStore()) {
    const base = fakeLoop(seen, { checkpointEvery: 1 });
    const def = {
      ...base,
      spec: { ...base.spec, snapshots: 3 },
      async crossPlay(_c: unknown, snaps: readonly { step: number; params: Float32Array }[], engineFor: (p: Float32Array) => Promise<{ cfg: unknown; destroy(): void }>, _o: unknown, progress?: (d: number, t: number) => void) {
        const got: number[] = [];
        for (const [i, s] of snaps.entries()) {
          const e = (await engineFor(s.params)) as unknown as { done: number; destroy(): void };
          got.push(e.done);
          e.destroy();
          progress?.(i + 1, snaps.length);
        }
        return { steps: snaps.map((s) => s.step), passRate: [got], valid: [], documents: 0, answers: 0 };
      },
    };
    const m = new RunManager({
      loopNamed: () => def as never,
      createEngine: async (_d, init) => fakeEngine(init, seen),
      loadPolicy: async () => ({ cfg, params: new Float32Array(N).fill(-7) }),
      checkpoints: store,
      batchIntervalMs: 0,
    });
    return { m, store };
  }

  it('plays the starting policy and the thinned snapshots, each on an engine of its own parameters, with progress', async () => {
    const { m, store } = withCrossPlay(fakeSeen());
    await m.start({} as Gpu, spec, () => undefined);
    // checkpoints at steps 1..4, keep 3: the older ones thinned, the first and the latest kept
    expect(await store.snapshotSteps('r1')).toEqual([1, 3, 4]);
    const progress: number[][] = [];
    const r = await m.crossPlay({} as Gpu, 'r1', { documents: 2, answers: 2, seed: 1 }, (d, t) => progress.push([d, t]));
    expect(r.steps).toEqual([0, 1, 3, 4]);
    // the fake engine's parameters are the step that wrote them; the base's are all −7
    expect(r.passRate).toEqual([[-7, 1, 3, 4]]);
    expect(progress).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
  });

  it('refuses a run still computing, one without a checkpoint, and a loop without cross-play, saying why', async () => {
    const seen = fakeSeen();
    const { m } = withCrossPlay(seen);
    await expect(m.crossPlay({} as Gpu, 'none', { documents: 1, answers: 1, seed: 1 }, () => undefined)).rejects.toThrow(/run none has no checkpoint: cross-play needs the run's checkpoints/);
    const batches: RunBatch[] = [];
    const running = m.start({} as Gpu, spec, (b) => batches.push(b));
    await until(() => batches.some((b) => b.status.step >= 1), 'step 1');
    m.pauseRun('r1');
    await expect(m.crossPlay({} as Gpu, 'r1', { documents: 1, answers: 1, seed: 1 }, () => undefined)).rejects.toThrow(/run r1 is still computing/);
    m.stopRun('r1');
    await running;
    const plain = manager(fakeSeen());
    await plain.m.start({} as Gpu, spec, () => undefined);
    await expect(plain.m.crossPlay({} as Gpu, 'r1', { documents: 1, answers: 1, seed: 1 }, () => undefined)).rejects.toThrow(/the fake loop has no cross-play/);
  });
});
