// The rlvr-lab command line: init writes a loadable checkpoint; inspect prints exactly one JSON
// object whose loss, logits and gradient norms agree with the float64 reference.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import { gptBackwardRef, gptForwardRef, nextTokenBatch } from '../../src/reference/gpt';
import { expectClose } from '../helpers/tolerance';

const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'bin', 'rlvr-lab.mjs');

describe('rlvr-lab init / inspect', () => {
  it('inspect --json matches the reference on a checkpoint written by init', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-'));
    await run('node', [BIN, 'init', '--preset', 'tiny', '--seed', '3', '--out', dir]);
    const ckpt = await loadCheckpointDir(dir);
    expect(ckpt.cfg.nEmbd).toBe(32);
    const tokens = [3, 1, 4, 1, 5, 9, 2, 6];
    const { stdout } = await run('node', [BIN, 'inspect', '--ckpt', dir, '--tokens', tokens.join(','), '--json']);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]) as { loss: number; logits: number[][]; gradNorms: Record<string, number> };
    expect(Object.keys(out).sort()).toEqual(['gradNorms', 'logits', 'loss']);
    expect(out.logits).toHaveLength(tokens.length);
    expect(out.logits[0]).toHaveLength(64);

    const batch = nextTokenBatch(tokens);
    const p64 = Float64Array.from(ckpt.params);
    const fw = gptForwardRef(ckpt.cfg, ckpt.table, p64, batch);
    const g = gptBackwardRef(ckpt.cfg, ckpt.table, p64, batch, fw);
    expectClose('loss', [out.loss], [fw.objective], { atol: 1e-5, rtol: 1e-5 });
    expectClose('logits', out.logits.flat(), fw.logits, { atol: 1e-4, rtol: 1e-4 });
    const names = ckpt.table.tensors.map((t) => t.name);
    expect(Object.keys(out.gradNorms)).toEqual(names);
    const want = ckpt.table.tensors.map((t) => Math.hypot(...g.subarray(t.offset, t.offset + t.size)));
    expectClose('grad norms', names.map((n) => out.gradNorms[n]), want, { atol: 1e-6, rtol: 2e-3 });
  });

  it('rejects bad input with a clear message and exit code 2', async () => {
    const err = await run('node', [BIN, 'inspect', '--ckpt', '/nonexistent', '--tokens', '1,2']).then(() => ({ code: 0, stderr: '' }), (e: unknown) => e as { code: number; stderr: string });
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/cannot read .*config\.json/);
    const bad = await run('node', [BIN, 'init', '--preset', 'huge', '--out', '/tmp/x']).then(() => ({ code: 0, stderr: '' }), (e: unknown) => e as { code: number; stderr: string });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown preset huge for --preset \(one of tiny, small, base\)/);
  });
  it('ttsp-targets measures mean@n per candidate and writes the split', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlvr-ttsp-'));
    await run('node', [BIN, 'init', '--preset', 'tiny', '--seed', '4', '--out', dir]);
    const out = join(dir, 'targets.json');
    await run('node', [BIN, 'ttsp-targets', '--ckpt', dir, '--n', '4', '--limit', '3', '--max-new', '8', '--out', out]);
    const doc = JSON.parse(await readFile(out, 'utf8')) as { problems: { n: number; c: number; passRate: number }[]; midHard: unknown[]; veryHard: unknown[]; unsolved: number; solved: number };
    expect(doc.problems).toHaveLength(3);
    for (const p of doc.problems) {
      expect(p.n).toBe(4);
      expect(p.passRate).toBe(p.c / 4);
    }
    expect(doc.midHard.length + doc.veryHard.length + doc.unsolved + doc.solved).toBeLessThanOrEqual(3);
  });
});
