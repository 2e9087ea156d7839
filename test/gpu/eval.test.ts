// evaluateSet over the KV-cache decoder: a planted policy whose answers are known exactly
// (checks the problem ↔ sample layout and the counting), a random policy (counts in range,
// deterministic for a seed), and the `eval --json` command end to end.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import type { Gpu } from '../../src/gpu/runtime';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable, globalTensors, tensorData } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { evaluateSet, type EvalProblem } from '../../src/eval/evaluate';
import { encode, EOS } from '../../src/world';

const run = promisify(execFile);
const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);

/**
 * Every block weight zero, so the residual stream is wte[token] + wpe[position]; wpe[p] is a
 * large one-hot whose direction is the embedding of the token to emit after position p, and
 * a sharp final LayerNorm makes that choice certain at temperature 1. After a 6-token solve
 * prompt (`<bos><solve>a+b=`) it writes `#7<eos>`.
 */
function plantedParams(): Float32Array {
  const params = new Float32Array(table.totalFloats);
  const g = globalTensors(table);
  const C = cfg.nEmbd;
  const wte = tensorData(params, g.wte), wpe = tensorData(params, g.wpe);
  const script = [encode('#')[0], encode('7')[0], EOS];
  script.forEach((tok, i) => {
    wte[tok * C + i] = 1;
    wpe[(5 + i) * C + i] = 10; // position 5 is the prompt's '='
  });
  tensorData(params, g.lnfWeight).fill(20);
  return params;
}

describe('evaluateSet', () => {
  let gpu: Gpu;
  beforeAll(async () => {
    gpu = await testGpu();
  });

  it('a planted policy: exact counts, answers in problem-major order, pass/avg/maj@k', async () => {
    const params = gpu.upload(plantedParams(), 'planted');
    const problems: EvalProblem[] = [
      { id: 'a', text: '3+4', answer: 7 }, // writes #7: right
      { id: 'b', text: '2+2', answer: 4 }, // writes #7: wrong
      { id: 'c', text: '10+3', answer: 13 }, // 7-token prompt: writes 7<eos>, no answer
      { id: 'd', text: '2+5', answer: 7 },
    ];
    // 4 × 3 = 12 samples in batches of 5: the last batch is partly padding
    const r = await evaluateSet(gpu, { cfg, table, params }, problems, { n: 3, ks: [1, 3], seed: 9, batch: 5 });
    expect(r.problems.map((p) => [p.id, p.n, p.c])).toEqual([['a', 3, 3], ['b', 3, 0], ['c', 3, 0], ['d', 3, 3]]);
    expect(r.problems.map((p) => p.answers)).toEqual([[7, 7, 7], [7, 7, 7], [null, null, null], [7, 7, 7]]);
    expect(r.passAtK).toEqual({ '1': 0.5, '3': 0.5 });
    expect(r.avgAtK).toEqual({ '1': 0.5, '3': 0.5 });
    expect(r.majAtK).toEqual({ '1': 0.5, '3': 0.5 });
    expect(r.histogram.zero).toBe(2);
    expect(r.histogram.full).toBe(2);
    expectClose('mean length', [r.responseLength.mean], [(3 * 3 + 2) / 4], { atol: 1e-12, rtol: 0 });
    expect(r.responseLength.clipRatio).toBe(0);
    expect(r.meanEntropy).toBeLessThan(1e-3); // logits ~100 apart: the distribution is a point mass
  });

  it('a random policy: counts in [0, n], deterministic for a seed', async () => {
    const params = gpu.upload(initParams(cfg, table, 3), 'random');
    const problems: EvalProblem[] = [{ id: 0, text: '1+2', answer: 3 }, { id: 1, text: '(4+5)*2', answer: 18 }, { id: 2, text: '7', answer: 7 }];
    const opts = { n: 4, ks: [1, 2, 4], seed: 5, maxNew: 12, batch: 8 };
    const a = await evaluateSet(gpu, { cfg, table, params }, problems, opts);
    const b = await evaluateSet(gpu, { cfg, table, params }, problems, opts);
    const c = await evaluateSet(gpu, { cfg, table, params }, problems, { ...opts, seed: 6 });
    for (const p of a.problems) {
      expect(p.n).toBe(4);
      expect(p.c >= 0 && p.c <= 4).toBe(true);
    }
    expect(b).toEqual(a);
    expect(c.meanEntropy).not.toBe(a.meanEntropy);
    expect(a.responseLength.max).toBeLessThanOrEqual(12);
    expect(a.meanEntropy).toBeGreaterThan(3); // a random init is close to uniform over 64 tokens (ln 64 = 4.16)
    for (const k of ['1', '2', '4']) for (const m of [a.passAtK, a.avgAtK, a.majAtK]) expect(m[k] >= 0 && m[k] <= 1).toBe(true);
  });

  it('rejects k larger than n and an empty problem list', async () => {
    const params = gpu.upload(initParams(cfg, table, 3), 'random2');
    const problems: EvalProblem[] = [{ id: 0, text: '1+2', answer: 3 }];
    await expect(evaluateSet(gpu, { cfg, table, params }, problems, { n: 2, ks: [4], seed: 0 })).rejects.toThrow(/k = 4/);
    await expect(evaluateSet(gpu, { cfg, table, params }, [], { n: 2, ks: [1], seed: 0 })).rejects.toThrow(/no problems/);
  });
});

describe('rlvr-lab eval --json', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlvr-eval-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints exactly the documented JSON on stdout, the progress on stderr', async () => {
    const ckpt = join(dir, 'tiny');
    await run('node', ['bin/rlvr-lab.mjs', 'init', '--preset', 'tiny', '--seed', '1', '--out', ckpt]);
    const { stdout, stderr } = await run('node', ['bin/rlvr-lab.mjs', 'eval', '--ckpt', ckpt, '--limit', '2', '--n', '4', '--k', '1,2,4', '--json']);
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const doc = JSON.parse(stdout) as { set: string; problems: Record<string, number>[] } & Record<string, Record<string, number>>;
    expect(Object.keys(doc)).toEqual(['set', 'problems', 'passAtK', 'avgAtK', 'majAtK']);
    expect(doc.set).toBe('eval-mixed');
    expect(doc.problems).toHaveLength(2);
    doc.problems.forEach((p: Record<string, number>, i: number) => {
      expect(Object.keys(p)).toEqual(['id', 'n', 'c']);
      expect(p.id).toBe(i);
      expect(p.n).toBe(4);
      expect(Number.isInteger(p.c) && p.c >= 0 && p.c <= 4).toBe(true);
    });
    for (const m of ['passAtK', 'avgAtK', 'majAtK']) {
      expect(Object.keys(doc[m])).toEqual(['1', '2', '4']);
      for (const v of Object.values(doc[m])) expect(v >= 0 && v <= 1).toBe(true);
    }
    expect(stderr).toMatch(/eval eval-mixed \[#+\] 2\/2 problems/);
  });

  it('explains bad flags with exit code 2', async () => {
    const fail = (args: string[]) => run('node', ['bin/rlvr-lab.mjs', 'eval', ...args]).then(() => null, (e: { code: number; stderr: string }) => e);
    const badSet = await fail(['--ckpt', dir, '--set', 'nope']);
    expect(badSet?.code).toBe(2);
    expect(badSet?.stderr).toMatch(/unknown --set nope; known sets: .*eval-mixed/);
    const badK = await fail(['--ckpt', dir, '--n', '4', '--k', '1,8']);
    expect(badK?.stderr).toMatch(/k = 8 is larger than --n 4/);
    const badDir = await fail(['--ckpt', join(dir, 'missing')]);
    expect(badDir?.stderr).toMatch(/no such directory/);
  });
});
