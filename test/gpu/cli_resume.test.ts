// A headless run killed with SIGKILL after a checkpoint resumes with `rlvr-lab run --resume` to the
// numbers of the run never interrupted, for every loop of the registry (the tiny policy): its log
// then reads as the uninterrupted run's (timings aside) and its final policy is the same.
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LOOP_NAMES } from '../../src/loops/registry';
import { loadAdapterDir, loadCheckpointDir } from '../../src/model/checkpoint_node';

const exec = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'bin', 'rlvr-lab.mjs');
const CONFIG = { steps: 6, checkpointEvery: 1, maxNewTokens: 16, evalEvery: 3, evalProblems: 2, evalN: 2, samplesPerStep: 1 };
/** each loop's own sizes, small (a loop missing here fails its case: add it) */
const OWN: Record<string, object> = {
  grpo: { problemsPerStep: 2, groupSize: 4, trainProblems: 16 },
  svs: { problemsPerStep: 2, groupSize: 4, trainProblems: 16, variantsPerSolution: 2 },
  spice: { documentsPerStep: 1, questionsPerDocument: 2, answersPerQuestion: 4, maxQuestionTokens: 16 },
  opensir: { teacherGroups: 1, teacherSamples: 2, studentSamples: 3, maxProblemTokens: 16 },
  datpo: { problemsPerStep: 2, rootRollouts: 2, bpMax: 1, bnMax: 2, trainProblems: 16 },
  // tiny proposes nothing valid: an entropy bonus moves both adapter sets all the same
  ttsp: { proposalsPerContext: 2, solverAttempts: 2, replay: 1, targetEvalEvery: 2, targetEvalN: 2, maxProposalTokens: 16, loraRank: 2, rl: { entCoef: 0.02 } },
};

/** The log's events without what differs between two runs of the same numbers (timings, paths). */
async function events(log: string): Promise<unknown[]> {
  const lines = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return lines.map(({ seconds: _s, checkpoint: _c, ...rest }) => rest);
}

async function untilCheckpoint(state: string, step: number): Promise<void> {
  const manifest = join(state, 'checkpoints', 'cli', 'manifest.json');
  for (let i = 0; i < 2400; i++) {
    if (existsSync(manifest)) {
      const m = JSON.parse(await readFile(manifest, 'utf8').catch(() => '{}')) as { step?: number };
      if ((m.step ?? 0) >= step) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no checkpoint of step ${step} in ${state} after 120 s`);
}

describe('rlvr-lab run --resume after SIGKILL', () => {
  it.each(LOOP_NAMES)('%s: the resumed run ends as the uninterrupted one', async (loop) => {
    expect(OWN[loop], `OWN has no sizes for ${loop}`).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), `rlvr-resume-${loop}-`));
    const cfg = join(dir, 'cfg.json');
    await writeFile(cfg, JSON.stringify({ ...CONFIG, ...OWN[loop] }));
    const args = (out: string) => ['run', '--loop', loop, '--preset', 'tiny', '--seed', '3', '--config', cfg, '--out', out];
    const whole = join(dir, 'whole.jsonl');
    await exec('node', [BIN, ...args(whole)], { env: process.env });

    const cut = join(dir, 'cut.jsonl');
    const child = spawn('node', [BIN, ...args(cut)], { env: process.env, stdio: 'ignore' });
    await untilCheckpoint(join(dir, 'cut.state'), 2);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const before = await events(cut);
    // killed mid-run: no final event yet
    expect(before.some((e) => (e as { type: string }).type === 'done')).toBe(false);
    await exec('node', [BIN, 'run', '--resume', '--out', cut], { env: process.env });

    expect(await events(cut)).toEqual(await events(whole));
    const [a, b] = await Promise.all([loadCheckpointDir(join(dir, 'whole.ckpt')), loadCheckpointDir(join(dir, 'cut.ckpt'))]);
    expect(Array.from(b.params)).toEqual(Array.from(a.params));
    // a loop that trains adapter sets writes them beside the policy: the same ones
    for (const set of loop === 'ttsp' ? ['proposer', 'solver'] : []) {
      const [x, y] = await Promise.all([loadAdapterDir(join(dir, 'whole.ckpt', 'adapters'), set, a.cfg), loadAdapterDir(join(dir, 'cut.ckpt', 'adapters'), set, a.cfg)]);
      // the proposer trained (B starts at zero and moved); tiny never proposes a valid problem, so the solver had nothing to train on
      const bs = x.table.tensors.filter((t) => t.name.endsWith('lora_B.weight'));
      expect(bs.some((t) => x.params.subarray(t.offset, t.offset + t.size).some((v) => v !== 0)), set).toBe(set === 'proposer');
      expect(Array.from(y.params)).toEqual(Array.from(x.params));
    }
  });
});
