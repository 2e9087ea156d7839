// `rlvr-lab ablate` for long ablations (issue 27): evaluations every N steps kept with their
// per-problem counts, and an ablation killed mid-seed (SIGKILL) or stopped by SIGINT continued with
// --resume from its --json and its --work checkpoints to the numbers of the uninterrupted one.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSweepText } from '../../src/explore/format';

const exec = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'bin', 'rlvr-lab.mjs');

let dir: string;
let cfg: string;
// tiny's rewards are all 0: the entropy bonus is what moves its parameters, so a resume that lost them shows
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-ablate-'));
  cfg = join(dir, 'cfg.json');
  await writeFile(cfg, JSON.stringify({ maxNewTokens: 16, problemsPerStep: 2, groupSize: 4, trainProblems: 16, rl: { entCoef: 0.02 } }));
});

const args = (json: string, ...more: string[]) => [BIN, 'ablate', '--loop', 'grpo', '--preset', 'tiny', '--config', cfg, '--seeds', '1,2', '--steps', '12', '--eval-every', '4', '--eval-n', '4', '--eval-problems', '3', '--report', 'reward', '--json', json, ...more];

/** The seeds of an ablation file without what differs between two runs of the same numbers (wall times). */
async function seeds(file: string): Promise<unknown[]> {
  const doc = JSON.parse(await readFile(file, 'utf8')) as { results: { seconds: number; series: { seconds: unknown[] } }[] };
  return doc.results.map(({ seconds: _s, series: { seconds: _t, ...series }, ...rest }) => ({ ...rest, series }));
}

async function untilCheckpoint(work: string, seed: number, step: number): Promise<void> {
  const manifest = join(work, 'checkpoints', `ablate-${seed}`, 'manifest.json');
  for (let i = 0; i < 2400; i++) {
    if (existsSync(manifest)) {
      const m = JSON.parse(await readFile(manifest, 'utf8').catch(() => '{}')) as { step?: number };
      if ((m.step ?? 0) >= step) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no checkpoint of seed ${seed} step ${step} in ${work} after 120 s`);
}

describe('rlvr-lab ablate, long ablations', () => {
  let whole: string;
  let wholeLog: string;
  beforeAll(async () => {
    whole = join(dir, 'whole.json');
    wholeLog = (await exec('node', args(whole), { env: process.env })).stderr;
  });

  it('--eval-every evaluates every N steps, each evaluation with its per-problem counts, in the explorer format', async () => {
    const text = await readFile(whole, 'utf8');
    const doc = JSON.parse(text) as {
      partial: boolean; config: { evalEvery: number }; command: string;
      results: { seed: number; evals: { step: number; n: number; correct: number[]; passAtK: Record<string, number> }[]; end: unknown; series: { step: number[] } }[];
    };
    expect(doc.partial).toBe(false);
    expect(doc.config.evalEvery).toBe(4);
    expect(doc.command).toContain('--eval-every 4');
    for (const r of doc.results) {
      expect(r.evals.map((e) => e.step)).toEqual([0, 4, 8, 12]);
      for (const e of r.evals) {
        expect(e.n).toBe(4);
        expect(e.correct).toHaveLength(3);
        // the progress log says each evaluation as it lands, with the file's figures
        expect(wholeLog).toContain(`seed ${r.seed} held-out at step ${e.step}: pass@1 ${e.passAtK['1'].toFixed(3)}, pass@4 ${e.passAtK['4'].toFixed(3)}`);
      }
      expect(r.end).toEqual(r.evals[3]);
      expect(r.series.step).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    }
    // the explorer reads it as one arm with both seeds
    expect(readSweepText('whole.json', text).arms[0].ablation.results.map((r) => r.seed)).toEqual([1, 2]);
  });

  it('killed in seed 2, --resume keeps seed 1 and continues seed 2 from its checkpoint to the same numbers', async () => {
    const cut = join(dir, 'cut.json');
    const work = join(dir, 'work-kill');
    const child = spawn('node', args(cut, '--work', work, '--checkpoint-every', '1'), { env: process.env, stdio: 'ignore' });
    await untilCheckpoint(work, 2, 2);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const partial = JSON.parse(await readFile(cut, 'utf8')) as { partial: boolean; results: { seed: number }[] };
    expect(partial.partial).toBe(true);
    expect(partial.results.map((r) => r.seed)).toEqual([1]);

    const { stderr } = await exec('node', args(cut, '--work', work, '--checkpoint-every', '1', '--resume'), { env: process.env });
    expect(stderr).toContain('holds seed 1; running the others');
    expect(stderr).toMatch(/seed 2: resuming after step ([2-9]|1[01]) from/);
    expect((JSON.parse(await readFile(cut, 'utf8')) as { partial: boolean }).partial).toBe(false);
    expect(await seeds(cut)).toEqual(await seeds(whole));
  });

  it('SIGINT stops after the step, says how to continue, and --resume finishes it the same', async () => {
    const cut = join(dir, 'int.json');
    const work = join(dir, 'work-int');
    const child = spawn('node', args(cut, '--work', work, '--checkpoint-every', '2'), { env: process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    await untilCheckpoint(work, 1, 2);
    child.kill('SIGINT');
    const code = await new Promise((r) => child.once('exit', r));
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/SIGINT: stopped with 0 of 2 seeds done/);
    expect(stderr).toContain(`--json ${cut} --work ${work} --resume`);
    // the stop saved the step it stopped after, which need not be a multiple of --checkpoint-every
    const at = Number(/seed 1 stopped at step (\d+)/.exec(stderr)?.[1]);
    expect(at).toBeGreaterThanOrEqual(2);
    const m = JSON.parse(await readFile(join(work, 'checkpoints', 'ablate-1', 'manifest.json'), 'utf8')) as { step: number };
    expect(m.step).toBe(at);

    const resumed = await exec('node', args(cut, '--work', work, '--checkpoint-every', '2', '--resume'), { env: process.env });
    expect(resumed.stderr).toContain(`seed 1: resuming after step ${at} from`);
    expect(await seeds(cut)).toEqual(await seeds(whole));
  });

  it('--resume refuses a file run with another config', async () => {
    const other = args(whole, '--resume');
    other[other.indexOf('--eval-n') + 1] = '2';
    const err = (await exec('node', other).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    ));
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/--resume: .*whole\.json was run with another config/);
  });
});

describe('rlvr-lab ablate --cross-play (SPICE)', () => {
  it('plays the checkpoints a seed kept against each other after it, keeps the matrices in --json and prints them', async () => {
    const spiceCfg = join(dir, 'spice.json');
    await writeFile(spiceCfg, JSON.stringify({ documentsPerStep: 1, questionsPerDocument: 2, answersPerQuestion: 2, maxQuestionTokens: 16, maxNewTokens: 16 }));
    const json = join(dir, 'spice-cross.json');
    const work = join(dir, 'spice-work');
    const run = await exec('node', [BIN, 'ablate', '--loop', 'spice', '--preset', 'tiny', '--config', spiceCfg, '--seeds', '1', '--steps', '2', '--checkpoint-every', '1', '--eval-n', '1', '--eval-problems', '1', '--json', json, '--work', work, '--cross-play', '3,2'], { env: process.env });
    const doc = JSON.parse(await readFile(json, 'utf8')) as { results: { crossPlay: { steps: number[]; passRate: Record<string, (number | null)[][]>; valid: number[]; documents: number; answers: number } }[] };
    const c = doc.results[0].crossPlay;
    // the starting policy and the checkpoints of steps 1 and 2: a 3 × 3 matrix by each grading
    expect(c.steps).toEqual([0, 1, 2]);
    expect(c).toMatchObject({ documents: 3, answers: 2 });
    expect(c.valid).toHaveLength(3);
    for (const key of ['gold', 'value']) {
      expect(c.passRate[key]).toHaveLength(3);
      c.passRate[key].forEach((row) => {
        expect(row).toHaveLength(3);
        // a column whose challenger wrote no valid question has no pass rate
        row.forEach((x, j) => (c.valid[j] === 0 ? expect(x).toBeNull() : expect(x).toBeGreaterThanOrEqual(0)));
      });
    }
    expect(run.stdout).toContain('Seed 1 cross-play (3 documents, one question each, 2 answers a question');
    expect(run.stdout).toMatch(/graded by the true value \(oracle\): reasoner step ↓, challenger step →\n\n\| reasoner \\ challenger \| 0 \| 1 \| 2 \|/);
    // read back: the explorer's schema keeps it, and --from-json prints it again
    expect(readSweepText(json, await readFile(json, 'utf8')).arms[0].ablation.results[0].crossPlay?.steps).toEqual([0, 1, 2]);
    const again = await exec('node', [BIN, 'ablate', '--from-json', json], { env: process.env });
    expect(again.stdout).toContain('Seed 1 cross-play');
  });

  it('refuses --cross-play without --work, for a loop without cross-play, and a malformed value', async () => {
    const fail = (more: string[], loop = 'spice') => exec('node', [BIN, 'ablate', '--loop', loop, '--preset', 'tiny', '--seeds', '1', '--steps', '1', ...more]).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect((await fail(['--cross-play', '3,2'])).stderr).toMatch(/--cross-play plays the checkpoints a seed keeps in --work/);
    expect((await fail(['--cross-play', '3,2', '--work', join(dir, 'w')], 'grpo')).stderr).toMatch(/--cross-play: the grpo loop has no cross-play \(spice has\)/);
    expect((await fail(['--cross-play', '3'])).stderr).toMatch(/--cross-play: expected DOCUMENTS,ANSWERS/);
  });
});
