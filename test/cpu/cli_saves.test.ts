// Saves that must survive a kill, a full disk or a second process (issue 30 §3), without a GPU:
// pretrain resumes from the complete save a kill left beside a missing resume/; files are
// written whole under a temporary name; the final policy's write error is one line naming its
// folder; a second run on one --out is refused naming the first's process; --resume rebuilds a
// 0-byte or cut log from the checkpoint.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../helpers/cli';
import { GPT_PRESETS } from '../../src/model/config';
import { saveCheckpointDir, writeFileAtomic } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable } from '../../src/model/params';
import { encodeSafetensors } from '../../src/model/safetensors';
import { DEFAULT_PRETRAIN, freshState } from '../../src/pretrain/run';
import { saveResume } from '../../src/cli/pretrain_resume';
import { saveFinalPolicy } from '../../src/cli/run';
import { takeLock } from '../../src/cli/lock';
import { fileCheckpointStore, type RunCheckpoint } from '../../src/lab/worker/checkpoints';
import { nodeCheckpointFs } from '../../src/lab/worker/storage/nodeFs';
import { loopNamed } from '../../src/loops/registry';
import type { GPT } from '../../src/model/gpt';

vi.mock('webgpu', () => ({ create: () => ({ requestAdapter: async () => null }), globals: {} }));

const tiny = GPT_PRESETS.tiny;
const table = buildTensorTable(tiny);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-saves-'));
  vi.stubEnv('VK_ICD_FILENAMES', join(dir, 'no-icd.json'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

/** A pretraining save as saveResume writes it, at `step`, into OUT/<name>. */
async function resumeSave(out: string, name: string, step: number): Promise<string> {
  const folder = join(out, name);
  await saveCheckpointDir(folder, tiny, initParams(tiny, table, 1), table, { preset: 'tiny', step: String(step) });
  const zeros = new Float32Array(table.totalFloats);
  await writeFile(join(folder, 'optimizer.safetensors'), encodeSafetensors([{ name: 'adam.m', shape: [zeros.length], data: zeros }, { name: 'adam.v', shape: [zeros.length], data: zeros }]));
  const pretrain = { ...DEFAULT_PRETRAIN, seed: 1, steps: 20, seqLen: tiny.nPositions };
  await writeFile(join(folder, 'trainer_state.json'), JSON.stringify({ pretrain, state: { ...freshState(), step }, adamStep: step, preset: 'tiny' }));
  return folder;
}

describe('pretrain: the resume point survives a kill between its renames', () => {
  it('a complete resume.tmp/ beside a missing resume/ is resumed from (and becomes resume/)', async () => {
    const out = join(dir, 'killed-between');
    await resumeSave(out, 'resume.tmp', 12);
    await resumeSave(out, 'resume.old', 10);
    const r = await cli('pretrain', '--preset', 'tiny', '--out', out, '--resume');
    // it gets as far as the GPU, which this test has none of
    expect(r.stderr).toContain(`resuming from the complete save ${join(out, 'resume.tmp')}`);
    expect(r.stderr).toContain('no WebGPU adapter');
    expect((JSON.parse(await readFile(join(out, 'resume', 'trainer_state.json'), 'utf8')) as { state: { step: number } }).state.step).toBe(12);
  });

  it('a resume.tmp/ cut short falls back to the previous save, resume.old/', async () => {
    const out = join(dir, 'killed-writing');
    const tmp = await resumeSave(out, 'resume.tmp', 12);
    await truncate(join(tmp, 'optimizer.safetensors'), 100);
    await resumeSave(out, 'resume.old', 10);
    const r = await cli('pretrain', '--preset', 'tiny', '--out', out, '--resume');
    expect(r.stderr).toContain(`resuming from the complete save ${join(out, 'resume.old')}`);
    expect((JSON.parse(await readFile(join(out, 'resume', 'trainer_state.json'), 'utf8')) as { state: { step: number } }).state.step).toBe(10);
  });

  it('saveResume moves the old save aside before the new one takes its place, and leaves only resume/', async () => {
    const out = join(dir, 'save-order');
    await resumeSave(out, 'resume', 5);
    const params = initParams(tiny, table, 2);
    const model = { cfg: tiny, table, readParams: async () => params, readOptimiserState: async () => ({ m: params, v: params, step: 7 }) } as unknown as GPT;
    await saveResume(out, model, { ...DEFAULT_PRETRAIN, seed: 1 }, { ...freshState(), step: 7 }, 'tiny');
    expect((JSON.parse(await readFile(join(out, 'resume', 'trainer_state.json'), 'utf8')) as { state: { step: number } }).state.step).toBe(7);
    expect(existsSync(join(out, 'resume.tmp'))).toBe(false);
    expect(existsSync(join(out, 'resume.old'))).toBe(false);
  });
});

describe('whole files', () => {
  it('a write that fails leaves the previous file whole and no temporary behind', async () => {
    const path = join(dir, 'model.safetensors');
    await writeFile(path, 'previous');
    // the temporary's name taken by a folder: the write fails as a full disk would
    await mkdir(`${path}.tmp-${process.pid}`);
    await expect(writeFileAtomic(path, 'new bytes')).rejects.toThrow();
    expect(await readFile(path, 'utf8')).toBe('previous');
    await rm(`${path}.tmp-${process.pid}`, { recursive: true });
    await writeFileAtomic(path, 'new bytes');
    expect(await readFile(path, 'utf8')).toBe('new bytes');
  });

  it("run's final policy: a write error is one CliError naming the folder", async () => {
    await writeFile(join(dir, 'blocker'), 'a file');
    const o = { ckpt: join(dir, 'blocker', 'x.ckpt'), state: join(dir, 'x.state') };
    await expect(saveFinalPolicy(o, 'grpo', 'base', { cfg: tiny, table }, { step: 3, params: initParams(tiny, table, 1) }))
      .rejects.toThrow(`cannot write the final policy to ${o.ckpt} (ENOTDIR); the run's checkpoint in ${o.state} is kept`);
  });
});

async function base(name: string): Promise<string> {
  const path = join(dir, name);
  await saveCheckpointDir(path, tiny, initParams(tiny, table, 3), table);
  return path;
}

describe('one run per --out', () => {
  it('a second run is refused naming the first one\'s process; a stale lock is taken over', async () => {
    const ckpt = await base('lock-base');
    const out = join(dir, 'locked.jsonl');
    // the lock of a live process (this test's parent stands in for the first run)
    await writeFile(`${out}.lock`, `${process.ppid}\n`);
    const r = await cli('run', '--ckpt', ckpt, '--out', out, '--force');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out ${out} is in use by another run (process ${process.ppid})`);
    // a process that no longer exists: 2^22 + 1 is above Linux's largest pid
    await writeFile(`${out}.lock`, `${2 ** 22 + 1}\n`);
    expect((await cli('run', '--ckpt', ckpt, '--out', out, '--force')).stderr).toContain('no WebGPU adapter');
    expect(existsSync(`${out}.lock`)).toBe(false);
  });

  it('takeLock is exclusive within a process too, and its release is idempotent', () => {
    const path = join(dir, 'x.lock');
    const release = takeLock(path, 'x');
    expect(() => takeLock(path, 'x')).toThrow(`x is in use by another run (process ${process.pid})`);
    release();
    release();
    expect(existsSync(path)).toBe(false);
  });
});

describe('--resume on a damaged log', () => {
  async function stored(name: string): Promise<{ out: string; c: RunCheckpoint }> {
    const policy = await base(`${name}-base`);
    const out = join(dir, `${name}.jsonl`);
    const config = loopNamed('grpo').spec.validate({ steps: 10 }, 'config');
    const params = initParams(tiny, table, 3);
    const step = (s: number) => ({ type: 'step' as const, step: s, seconds: 1, metrics: { reward: s / 10 } });
    const ev = (s: number) => ({ type: 'eval' as const, step: s, set: 'eval-mixed', passAtK: { '1': s / 10 }, avgAtK: { '1': 0 }, majAtK: { '1': 0 }, meanEntropy: 1, meanLength: 5, histogram: [] });
    const c: RunCheckpoint = {
      runId: 'cli', loop: 'grpo', policy, cfg: tiny, step: 2, params, optimiser: { m: params, v: params, step: 2 }, config, state: null,
      history: { steps: [step(1), step(2)], evals: [ev(0), ev(2)] }, savedAt: 1,
    };
    await fileCheckpointStore(nodeCheckpointFs(`${join(dir, name)}.state`)).save(c);
    return { out, c };
  }
  const lines = async (out: string) => (await readFile(out, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; step?: number });

  it('a 0-byte log gets its config line and recorded events back from the checkpoint', async () => {
    const { out } = await stored('zero');
    await writeFile(out, '');
    expect((await cli('run', '--out', out, '--resume')).stderr).toContain('no WebGPU adapter');
    const log = await lines(out);
    expect(log[0]).toMatchObject({ type: 'config', loop: 'grpo', config: { steps: 10 } });
    expect(log.slice(1).map((e) => `${e.type}@${e.step}`)).toEqual(['eval@0', 'step@1', 'step@2', 'eval@2']);
  });

  it('a log whose last line (an evaluation) was cut gets that evaluation back', async () => {
    const { out, c } = await stored('cut');
    const head = JSON.stringify({ type: 'config', loop: 'grpo', base: c.policy, config: c.config });
    const body = [c.history.evals[0], ...c.history.steps].map((e) => JSON.stringify(e));
    await writeFile(out, [head, ...body].join('\n') + '\n' + JSON.stringify(c.history.evals[1]).slice(0, 30));
    await cli('run', '--out', out, '--resume');
    expect((await lines(out)).slice(1).map((e) => `${e.type}@${e.step}`)).toEqual(['eval@0', 'step@1', 'step@2', 'eval@2']);
    expect((await lines(out))[0]).toEqual(JSON.parse(head));
  });
});
