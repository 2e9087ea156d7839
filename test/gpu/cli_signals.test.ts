// SIGTERM through the README's command (issue 30 §4): `npx rlvr-lab run …` signalled ends npm
// and its shell, and the run, re-parented, must still stop after its step, save, and exit (the
// launcher watch of bin/rlvr-lab.mjs), not train on to its last step.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-signals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npx rlvr-lab run', () => {
  it('stops after its step and saves when npx gets SIGTERM', async () => {
    const config = join(dir, 'c.json');
    // far more steps than the test waits for; evaluations of one sample keep each step short
    await writeFile(config, JSON.stringify({ steps: 10000, evalEvery: 0, evalProblems: 1, evalN: 1, checkpointEvery: 1 }));
    const out = join(dir, 'run.jsonl');
    const npx = spawn('npx', ['--no-install', 'rlvr-lab', 'run', '--loop', 'grpo', '--preset', 'tiny', '--config', config, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const closed = new Promise<void>((resolve) => npx.stderr.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      npx.stderr.on('data', (d) => {
        stderr += String(d);
        if (/step 1\/10000/.test(stderr)) resolve();
      });
      npx.on('exit', () => reject(new Error(`npx ended before the first step: ${stderr}`)));
    });
    // the run's own process id, from its lock on --out
    const pid = Number((await readFile(`${out}.lock`, 'utf8')).trim());
    expect(alive(pid)).toBe(true);
    npx.kill('SIGTERM');
    // the run's stderr (the pipe it inherited) closes when it exits
    await closed;
    while (alive(pid)) await new Promise((r) => setTimeout(r, 200));
    expect(stderr).toContain('stopping as SIGTERM does');
    expect(stderr).toMatch(/saved .*run\.ckpt at step \d+ \(stopped; --resume continues it from/);
    const last = JSON.parse((await readFile(out, 'utf8')).trimEnd().split('\n').at(-1)!) as { step: number };
    expect(last).toMatchObject({ type: 'done', aborted: true });
    expect(last.step).toBeLessThan(10000);
    expect(existsSync(`${out}.lock`)).toBe(false);
  }, 300_000);
});
