// `rlvr-lab run --loop ttsp` end to end at the command (in-process, real WebGPU): --target takes a
// shipped target's id and writes its text and the base's rate into the run's config; the finished
// run leaves both adapter sets beside its final policy (the base with the solver merged); and
// --adapters starts a new run from them: with a learning rate too small to move a weight, its
// final policy is bit for bit the first run's, where a run without --adapters ends at the base.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';

const BASE = 'public/models/small';
const RUN = {
  seed: 4, steps: 1, proposerContexts: 2, proposalsPerContext: 4, solverAttempts: 4, replay: 2, targetEvalEvery: 1, targetEvalN: 4,
  evalEvery: 0, evalProblems: 2, evalN: 2, samplesPerStep: 0, lr: 3e-3, rl: { entCoef: 0.01 },
};

let dir: string;


async function config(name: string, over: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify({ ...RUN, ...over }));
  return path;
}

const same = (a: Float32Array, b: Float32Array): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-ttsp-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rlvr-lab run --loop ttsp: --target and --adapters', () => {
  it('a shipped target by id, the adapter sets saved, and a run started from them', async () => {
    const shipped = JSON.parse(await readFile(join(BASE, 'ttsp_targets.json'), 'utf8')) as { midHard: { text: string; passRate: number }[] };
    const a = await cli('run', '--loop', 'ttsp', '--ckpt', BASE, '--target', 'midhard:1', '--config', await config('a'), '--out', join(dir, 'a.jsonl'));
    expect(a.code, a.stderr).toBe(0);
    const first = JSON.parse((await readFile(join(dir, 'a.jsonl'), 'utf8')).split('\n')[0]) as { config: unknown };
    expect(first.config).toMatchObject({ target: shipped.midHard[0].text, targetBaseRate: shipped.midHard[0].passRate });
    for (const set of ['proposer', 'solver']) {
      for (const ext of ['safetensors', 'json']) expect(existsSync(join(dir, 'a.ckpt', 'adapters', `adapter_${set}.${ext}`)), `${set}.${ext}`).toBe(true);
    }
    const base = await loadCheckpointDir(BASE);
    const trained = await loadCheckpointDir(join(dir, 'a.ckpt'));
    expect(same(trained.params, base.params)).toBe(false); // the solver merged in

    const still = { lr: 1e-30 };
    const text = shipped.midHard[0].text;
    const b = await cli('run', '--loop', 'ttsp', '--ckpt', BASE, '--target', text, '--adapters', join(dir, 'a.ckpt', 'adapters'), '--config', await config('b', still), '--out', join(dir, 'b.jsonl'));
    expect(b.code, b.stderr).toBe(0);
    expect(same((await loadCheckpointDir(join(dir, 'b.ckpt'))).params, trained.params)).toBe(true);
    const c = await cli('run', '--loop', 'ttsp', '--ckpt', BASE, '--target', text, '--config', await config('c', still), '--out', join(dir, 'c.jsonl'));
    expect(c.code, c.stderr).toBe(0);
    expect(same((await loadCheckpointDir(join(dir, 'c.ckpt'))).params, base.params)).toBe(true);
  });
});
