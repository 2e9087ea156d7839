// `rlvr-lab run`'s answers to the user's mistakes, in-process through main() with a WebGPU that
// has no adapter: every one is caught before any GPU work (the output paths among them, so a run
// never trains and then fails to write), one line, exit code 2, and nothing written.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, expectUserError } from '../helpers/cli';
import { GPT_PRESETS, type GPTConfig } from '../../src/model/config';
import { saveCheckpointDir } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable } from '../../src/model/params';
import { haltOf, stopOnHalt } from '../../src/cli/halts';
import type { RunHalt, RunStatus } from '../../src/lab/protocol';

vi.mock('webgpu', () => ({ create: () => ({ requestAdapter: async () => null }), globals: {} }));


let dir: string;
const tiny = GPT_PRESETS.tiny;

async function checkpoint(name: string, cfg: GPTConfig = tiny): Promise<string> {
  const table = buildTensorTable(cfg);
  const path = join(dir, name);
  await saveCheckpointDir(path, cfg, initParams(cfg, table, 3), table);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-run-'));
  vi.stubEnv('VK_ICD_FILENAMES', join(dir, 'no-icd.json'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe('rlvr-lab run: output paths, checked before any work', () => {
  it('refuses an --out that is a folder, or in a missing folder', async () => {
    const ckpt = await checkpoint('base');
    await mkdir(join(dir, 'a-folder'));
    expectUserError(await cli('run', '--ckpt', ckpt, '--out', join(dir, 'a-folder')), `--out ${join(dir, 'a-folder')} is a directory`);
    expectUserError(await cli('run', '--ckpt', ckpt, '--out', join(dir, 'missing', 'run.jsonl')), `the folder ${join(dir, 'missing')} does not exist`);
  });

  it('refuses a file where its checkpoint folder or final policy folder goes', async () => {
    const ckpt = await checkpoint('base2');
    await writeFile(join(dir, 'x.ckpt'), 'not a folder');
    expectUserError(await cli('run', '--ckpt', ckpt, '--out', join(dir, 'x.jsonl')), `final policy folder ${join(dir, 'x.ckpt')} (beside --out) is a file`);
    await writeFile(join(dir, 'y.state'), 'not a folder');
    expectUserError(await cli('run', '--ckpt', ckpt, '--out', join(dir, 'y.jsonl')), `checkpoint folder ${join(dir, 'y.state')} (beside --out) is a file`);
  });

  it('never overwrites a log silently: --resume continues it, --force starts again', async () => {
    const ckpt = await checkpoint('base3');
    const log = join(dir, 'old.jsonl');
    await writeFile(log, '{"type":"config"}\n');
    expectUserError(await cli('run', '--ckpt', ckpt, '--out', log), `--out ${log} exists: continue that run with --resume, or overwrite it with --force`);
    expect(await readFile(log, 'utf8')).toBe('{"type":"config"}\n');
    expectUserError(await cli('run', '--resume', '--force', '--out', log), '--resume and --force: give one');
  });

  it('--resume needs the run\'s log and checkpoint, and takes no new set-up', async () => {
    expectUserError(await cli('run', '--resume', '--out', join(dir, 'never.jsonl')), `--resume: ${join(dir, 'never.jsonl')} does not exist`);
    const log = join(dir, 'nockpt.jsonl');
    await writeFile(log, '{"type":"config"}\n');
    expectUserError(await cli('run', '--resume', '--out', log), `--resume: ${join(dir, 'nockpt.state')} holds no checkpoint`);
    expectUserError(await cli('run', '--resume', '--steps', '9', '--out', log), '--resume continues the run as it was set up');
  });
});

describe('rlvr-lab run: the set-up and the base policy, checked before any work', () => {
  it('refuses a seed of 2^32 or more (it would wrap to another seed) and a group of one', async () => {
    const ckpt = await checkpoint('base4');
    expectUserError(await cli('run', '--ckpt', ckpt, '--seed', String(2 ** 32), '--out', join(dir, 's.jsonl')), /config\.seed = 4294967296: must be < 4294967296/);
    const cfg = join(dir, 'g1.json');
    await writeFile(cfg, JSON.stringify({ groupSize: 1 }));
    expectUserError(await cli('run', '--ckpt', ckpt, '--config', cfg, '--out', join(dir, 'g.jsonl')), /groupSize = 1: a group of one response has no baseline/);
    expect(existsSync(join(dir, 's.jsonl')) || existsSync(join(dir, 'g.jsonl'))).toBe(false);
  });

  it('refuses a base whose weights hold NaN, naming its folder and the tensor', async () => {
    const cfg = tiny;
    const table = buildTensorTable(cfg);
    const params = initParams(cfg, table, 3);
    params[table.tensors.find((t) => t.name === 'ln_f.weight')!.offset + 2] = NaN;
    const path = join(dir, 'nan');
    await saveCheckpointDir(path, cfg, params, table);
    expectUserError(await cli('run', '--ckpt', path, '--out', join(dir, 'nan.jsonl')), `checkpoint ${path}: model.safetensors: tensor ln_f.weight holds NaN at index 2`);
  });

  it('refuses a base whose context or vocabulary cannot serve the world, naming its folder', async () => {
    const short = await checkpoint('short', { ...tiny, nPositions: 16 });
    const wide = await checkpoint('wide', { ...tiny, vocabSize: 80 });
    expectUserError(await cli('run', '--ckpt', short, '--out', join(dir, 'short.jsonl')), `${short}: the model's context is 16 tokens`);
    expectUserError(await cli('run', '--ckpt', wide, '--out', join(dir, 'wide.jsonl')), `${wide}: the model's vocabulary has 80 tokens`);
  });

  it('a missing WebGPU adapter is one line, after every check passed, and writes no log', async () => {
    const ckpt = await checkpoint('base5');
    const log = join(dir, 'fine.jsonl');
    const cfg = join(dir, 'short-answers.json');
    await writeFile(cfg, JSON.stringify({ maxNewTokens: 16 }));
    expectUserError(await cli('run', '--ckpt', ckpt, '--config', cfg, '--out', log), 'no WebGPU adapter');
    expect(existsSync(log)).toBe(false);
  });

  it('says once that the context cuts responses shorter than maxNewTokens (tiny: 64 tokens)', async () => {
    const r = await cli('run', '--ckpt', await checkpoint('base6'), '--out', join(dir, 'clamp.jsonl'));
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('note: maxNewTokens = 84, but the context (64 tokens) leaves the longest solve prompt room for 20; longer responses are cut there');
    expect(lines.filter((l) => l.startsWith('note:'))).toHaveLength(1);
  });
});

describe('rlvr-lab run and ablate: --target and --adapters (TTSP), checked before any work', () => {
  const targets = { n: 8, midHard: [{ text: '(1+2)*3', passRate: 0.5 }], veryHard: [{ text: 'max(2,3)', passRate: 0.125 }] };

  it('--target only for a loop with a target; a shipped id must exist, and the list says which do', async () => {
    const ckpt = await checkpoint('target-base');
    const out = (n: string) => ['--out', join(dir, `${n}.jsonl`)];
    expectUserError(await cli('run', '--loop', 'grpo', '--ckpt', ckpt, '--target', 'midhard:1', ...out('t1')), '--target: loop grpo has no target (loops with one: ttsp)');
    expectUserError(await cli('ablate', '--loop', 'svs', '--ckpt', ckpt, '--seeds', '1', '--steps', '1', '--target', '1+1'), '--target: loop svs has no target (loops with one: ttsp)');
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', ckpt, '--target', 'midhard:1', ...out('t2')), '--target: target midhard:1: no such shipped target (ids: none: this base ships no target list)');
    await writeFile(join(ckpt, 'ttsp_targets.json'), JSON.stringify(targets));
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', ckpt, '--target', 'veryhard:2', ...out('t3')), 'no such shipped target (ids: midhard:1..1, veryhard:1..1)');
    // accepted (a shipped id, any problem's text): the run gets as far as the GPU (after tiny's context note)
    const reachesGpu = (r: { code: number; stderr: string }) => {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('note:')), r.stderr).toEqual([expect.stringContaining('no WebGPU adapter')]);
    };
    reachesGpu(await cli('run', '--loop', 'ttsp', '--ckpt', ckpt, '--target', 'VeryHard:1', ...out('t4')));
    reachesGpu(await cli('run', '--loop', 'ttsp', '--ckpt', ckpt, '--target', '4+4', ...out('t5')));
    expect(existsSync(join(dir, 't4.jsonl'))).toBe(false);
  });

  it("a base's damaged target list is named", async () => {
    const ckpt = await checkpoint('target-bad');
    await writeFile(join(ckpt, 'ttsp_targets.json'), JSON.stringify({ ...targets, veryHard: [{ text: 7 }] }));
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', ckpt, '--target', 'midhard:1', '--out', join(dir, 't6.jsonl')), `--target: damaged target list ${join(ckpt, 'ttsp_targets.json')}: veryHard[0].text: expected string, got 7`);
  });

  it('--adapters only for a loop with adapter sets, and a folder without them is named', async () => {
    const ckpt = await checkpoint('adapters-base');
    const empty = join(dir, 'no-adapters');
    await mkdir(empty, { recursive: true });
    expectUserError(await cli('run', '--loop', 'grpo', '--ckpt', ckpt, '--adapters', empty, '--out', join(dir, 'a1.jsonl')), '--adapters: loop grpo trains no adapter sets (TTSP does)');
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', ckpt, '--target', '4+4', '--adapters', empty, '--out', join(dir, 'a2.jsonl')), `--adapters ${empty}: `, /adapter_/);
    expect(existsSync(join(dir, 'a2.jsonl'))).toBe(false);
  });
});

describe('a headless run that halts itself', () => {
  it('says why once and stops (nobody is there to press Resume); its status names the halt', () => {
    const stopped: string[] = [];
    let said = '';
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((said += String(c)), true));
    try {
      const send = stopOnHalt({ stopRun: (id: string) => void stopped.push(id) }, 'cli');
      const status = (halts: RunHalt[], state: RunStatus['state']): RunStatus => ({ state, step: 2, totalSteps: 5, stepsPerS: null, etaS: null, error: null, halts });
      const batch = (s: RunStatus) => ({ runId: 'cli', step: new Float64Array(), seconds: new Float64Array(), keys: [], metrics: new Float64Array(), samples: [], records: [], evals: [], status: s });
      const h: RunHalt = { step: 2, kind: 'nonfinite', message: 'Step 2: loss = NaN is not finite.' };
      send(batch(status([], 'running')));
      expect(stopped).toEqual([]);
      send(batch(status([h], 'pausing')));
      send(batch(status([h], 'paused')));
      expect(stopped).toEqual(['cli']);
      // said once, by the command's last line (haltOf), not here as well
      expect(said).toBe('');
      expect(haltOf(status([h], 'stopped'))).toBe('the run halted at step 2: Step 2: loss = NaN is not finite.');
      expect(haltOf(status([], 'done'))).toBeNull();
    } finally {
      err.mockRestore();
    }
  });
});
