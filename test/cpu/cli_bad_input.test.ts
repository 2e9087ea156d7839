// Stack traces and silent acceptance, command by command (issue 30 §5), without a GPU: each bad
// input is one line on stderr, exit code 2, before any GPU work, and nothing hangs.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, expectUserError as expectShared } from '../helpers/cli';
import { GPT_PRESETS, type GPTConfig } from '../../src/model/config';
import { saveCheckpointDir } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable } from '../../src/model/params';
import { encodeSafetensors } from '../../src/model/safetensors';
import { DEFAULT_PRETRAIN, freshState } from '../../src/pretrain/run';
import { fileCheckpointStore, type RunCheckpoint } from '../../src/lab/worker/checkpoints';
import { nodeCheckpointFs } from '../../src/lab/worker/storage/nodeFs';
import { loopNamed } from '../../src/loops/registry';

vi.mock('webgpu', () => ({ create: () => ({ requestAdapter: async () => null }), globals: {} }));

const tiny = GPT_PRESETS.tiny;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-bad-'));
  vi.stubEnv('VK_ICD_FILENAMES', join(dir, 'no-icd.json'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

/** The shared check, and what this tier adds: a short line, never a stack trace. */
function expectUserError(r: { code: number; stderr: string }, ...parts: string[]): void {
  expectShared(r, ...parts);
  expect(r.stderr.length, r.stderr).toBeLessThan(400);
  expect(r.stderr).not.toContain('    at ');
}

async function checkpoint(name: string, cfg: GPTConfig = tiny): Promise<string> {
  const table = buildTensorTable(cfg);
  const path = join(dir, name);
  await saveCheckpointDir(path, cfg, initParams(cfg, table, 3), table);
  return path;
}

describe('flags', () => {
  it('a value never starts with --', async () => {
    expectUserError(await cli('init', '--seed', '3', '--out', '--preset'), '--out needs a value, but the next argument is the flag --preset');
  });
  it('a flag given twice is an error', async () => {
    expectUserError(await cli('init', '--seed', '3', '--seed', '4', '--out', join(dir, 'x')), '--seed is given twice');
  });
  it('numbers are decimal', async () => {
    for (const v of ['0x10', '0b1', '1_0', 'Infinity', '1e400']) expectUserError(await cli('init', '--seed', v, '--out', join(dir, 'x')), `--seed must be a decimal number, got ${v}`);
  });
  it('an empty value is an error', async () => {
    for (const flag of ['--ckpt', '--config', '--corpus', '--adapters', '--target']) {
      expectUserError(await cli('run', flag, '', '--out', join(dir, 'e.jsonl')), `${flag} is empty`);
    }
  });
  it('--help on every subcommand prints its usage from its flags, exit 0, listing every flag the parser knows', async () => {
    const top = await cli('--help');
    const commands = [...top.stdout.matchAll(/^ {2}([a-z-]+) {3,}/gm)].map((m) => m[1]);
    expect(commands).toEqual(['init', 'inspect', 'pretrain', 'run', 'ablate', 'bench', 'eval', 'ttsp-targets', 'sets', 'export-onnx', 'export-hf', 'export-recipe']);
    for (const command of commands) {
      const r = await cli(command, '--help');
      expect(r.code, `${command}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`usage: rlvr-lab ${command}`);
      expect(r.stdout).toMatch(/flags:\n {2}--/);
      // the parser names every flag it knows when it meets one it does not: each is in --help
      const refused = await cli(command, '--no-such-flag');
      const known = /\(known: ([^)]*)\)/.exec(refused.stderr)?.[1].split(', ') ?? [];
      expect(known.length, `${command}: ${refused.stderr}`).toBeGreaterThan(0);
      for (const flag of known) expect(r.stdout, `${command} --help lists ${flag}`).toMatch(new RegExp(`^ {2}${flag}\\b`, 'm'));
    }
    expect((await cli('run', '--help')).stdout).toContain('--out <string>   (required)');
    expect((await cli('export-hf', '--help')).stdout).toMatch(/^usage: rlvr-lab export-hf --ckpt <string> --out <string> \[flags\]$/m);
    for (const flag of ['--resume', '--force']) expect((await cli('run', '--help')).stdout).toContain(flag);
    expect((await cli('pretrain', '--help')).stdout).toContain('--resume');
    for (const flag of ['--skip-page', '--skip-ort']) expect((await cli('bench', '--help')).stdout).toContain(flag);
    expect((await cli('ablate', '--help')).stdout).toContain('--from-json');
  });
  it('presets are looked up as names, not as properties', async () => {
    expectUserError(await cli('init', '--preset', '__proto__', '--out', join(dir, 'p')), 'unknown preset "__proto__"'.replace(/"/g, ''));
    for (const p of ['constructor', 'toString']) expectUserError(await cli('pretrain', '--preset', p, '--out', join(dir, 'p')), `unknown preset ${p}`);
  });
  it('values in messages are cut and escaped', async () => {
    const r = await cli('run', '--loop', `x${'y'.repeat(100_000)}\u001b[2J`, '--out', join(dir, 'l.jsonl'));
    expect(r.stderr.length).toBeLessThan(400);
    expect(r.stderr).not.toContain('\u001b');
  });
});

/** A pretraining save whose trainer_state.json has `pretrain` replaced (and, given `edit`, the whole file edited). */
async function resumeWith(out: string, pretrain: unknown, edit: (saved: Record<string, unknown>) => unknown = (x) => x): Promise<void> {
  const table = buildTensorTable(tiny);
  const resume = join(out, 'resume');
  await saveCheckpointDir(resume, tiny, initParams(tiny, table, 1), table, { preset: 'tiny' });
  const z = new Float32Array(table.totalFloats);
  await writeFile(join(resume, 'optimizer.safetensors'), encodeSafetensors([{ name: 'adam.m', shape: [z.length], data: z }, { name: 'adam.v', shape: [z.length], data: z }]));
  await writeFile(join(resume, 'trainer_state.json'), JSON.stringify(edit({ pretrain, state: { ...freshState(), step: 1 }, adamStep: 1, preset: 'tiny' })));
}

describe('pretrain', () => {
  it('--batch past the bound, --steps past the bound', async () => {
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', join(dir, 'b'), '--batch', '100000000'), '--batch must be at most 1024');
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', join(dir, 'b'), '--steps', '1e8'), '--steps must be at most 1000000');
  });
  it('--out on a file is refused before the GPU', async () => {
    const file = join(dir, 'hostname');
    await writeFile(file, 'x');
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', file), `--out ${file}: ${file} is not a directory`);
  });
  it('a resume recipe of {} or edited to steps -5, lr "x" is refused', async () => {
    await resumeWith(join(dir, 'r1'), {});
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', join(dir, 'r1'), '--resume'), 'trainer_state.json holds pretrain.seed = undefined');
    await resumeWith(join(dir, 'r2'), { ...DEFAULT_PRETRAIN, seed: 1, seqLen: 64, steps: -5, lr: 'x' });
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', join(dir, 'r2'), '--resume'), 'pretrain.steps = -5: must be an integer from 1 to 1000000');
  });
  it('a damaged trainer state is refused in one line naming the save and the field path', async () => {
    const recipe = { ...DEFAULT_PRETRAIN, seed: 1, seqLen: 64, steps: 10 };
    const history = [{ step: 1, trainLoss: 2.5, evalLoss: null, lr: 1e-3, tokensPerS: 100 }];
    // [what is damaged, the edit, what the refusal says]
    const cases: [string, (s: Record<string, unknown>) => unknown, string][] = [
      ['a history point with a text loss', (s) => ({ ...s, state: { ...(s.state as object), history: [{ ...history[0], trainLoss: 'x' }] } }), 'state.history[0].trainLoss: expected number, got "x"'],
      ['a fractional step', (s) => ({ ...s, state: { ...(s.state as object), step: 1.5 } }), 'state.step: '],
      ['a history that is not a list', (s) => ({ ...s, state: { ...(s.state as object), history: {} } }), 'state.history: expected Array'],
      ['no state', ({ state: _, ...s }) => s, 'state: missing'],
      ['a negative token count', (s) => ({ ...s, state: { ...(s.state as object), tokensSeen: -1 } }), 'state.tokensSeen: '],
      ['a step past the recipe', (s) => ({ ...s, state: { ...(s.state as object), step: 11 } }), "state.step = 11, past the recipe's 10 steps"],
      ['a fractional adamStep', (s) => ({ ...s, adamStep: 0.5 }), 'adamStep: '],
      ['no preset', ({ preset: _, ...s }) => s, 'preset: missing'],
    ];
    for (const [i, [, edit, said]] of cases.entries()) {
      const out = join(dir, `ts${i}`);
      await resumeWith(out, recipe, (s) => edit({ ...s, state: { ...(s.state as object), history } }));
      const r = await cli('pretrain', '--preset', 'tiny', '--out', out, '--resume');
      expectUserError(r, `resume point ${join(out, 'resume')}: trainer_state.json holds ${said}`);
    }
  });
});

describe('--target and ttsp-targets', () => {
  it('a damaged or folder ttsp_targets.json is one line naming it', async () => {
    const a = await checkpoint('t-damaged');
    await writeFile(join(a, 'ttsp_targets.json'), '{"n": 5, "midHard": [');
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', a, '--target', 'midhard:1', '--out', join(dir, 't1.jsonl')), `the target list ${join(a, 'ttsp_targets.json')} is not JSON`);
    const b = await checkpoint('t-folder');
    await mkdir(join(b, 'ttsp_targets.json'));
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', b, '--target', 'midhard:1', '--out', join(dir, 't2.jsonl')), 'ttsp_targets.json is a directory');
  });
  it('a 100,001-character --target is refused, and not echoed whole', async () => {
    expectUserError(await cli('run', '--loop', 'ttsp', '--preset', 'tiny', '--target', '1+'.repeat(50_001), '--out', join(dir, 't3.jsonl')), 'a problem\'s text is at most 1000 characters');
  });
  it('ttsp-targets checks --out before it evaluates', async () => {
    expectUserError(await cli('ttsp-targets', '--ckpt', join(dir, 'no-such'), '--out', dir), `--out ${dir} is a directory`);
    expectUserError(await cli('ttsp-targets', '--ckpt', join(dir, 'no-such'), '--out', join(dir, 'missing', 't.json')), 'does not exist');
  });
});

describe('ablate', () => {
  it('--match-tokens and --from-json on files that are no ablation output', async () => {
    const files: [string, string, string][] = [
      ['{}', '--match-tokens', 'loop: missing'], ['null', '--match-tokens', 'holds null'],
      ['{"loop":"grpo","base":"b"}', '--from-json', 'config: missing'],
      ['{"loop":"grpo","base":"b","config":{},"partial":false}', '--from-json', 'results: missing'],
      ['{"loop":"grpo","base":"b","config":{},"partial":false,"results":[null]}', '--from-json', 'results[0]: expected Object, got null'],
      ['{"loop":"grpo","base":"b","config":{},"partial":false,"results":[{"seed":1}]}', '--from-json', 'results[0].start: missing'],
      ['{"loop":"grpo","base":"b","config":{},"partial":false,"results":[{"seed":"1"}]}', '--from-json', 'results[0].seed: expected number, got "1"'],
      ['{"loop":"grpo","base":"b","config":{},"partial":false,"results":[{"seed":1,"start":{"type":"eval","step":0,"set":"s","passAtK":{"1":0.5},"meanEntropy":1},"end":{"type":"eval","step":1,"set":"s","passAtK":{},"meanEntropy":1},"steps":1,"generatedTokens":5,"seconds":1,"report":{}}]}', '--from-json', 'results[0].end.passAtK: expected pass@k with k = 1'],
    ];
    for (const [i, [text, flag, said]] of files.entries()) {
      const file = join(dir, `abl-${i}.json`);
      await writeFile(file, text);
      expectUserError(await cli('ablate', flag, file), said);
    }
  });
  it('--ckpt of another vocabulary, --seeds ",", --config null or a JSON string are refused before the GPU', async () => {
    const wide = await checkpoint('wide', { ...tiny, vocabSize: 80 });
    expectUserError(await cli('ablate', '--ckpt', wide), "the model's vocabulary has 80 tokens");
    expectUserError(await cli('ablate', '--preset', 'tiny', '--seeds', ','), '--seeds must be');
    for (const [text, said] of [['null', 'holds null'], ['"steps"', 'holds a string']]) {
      const file = join(dir, `cfg-${said.length}.json`);
      await writeFile(file, text);
      expectUserError(await cli('ablate', '--preset', 'tiny', '--config', file), said);
    }
  });
});

describe('sizes and counts', () => {
  it('a 1 GiB config.json and a model.safetensors longer than its header are refused before they are read', async () => {
    const big = await checkpoint('big-config');
    await truncate(join(big, 'config.json'), 2 ** 30);
    expectUserError(await cli('inspect', '--ckpt', big, '--tokens', '1,2'), 'config.json', 'bytes, more than the 1000000');
    const long = await checkpoint('long-model');
    await truncate(join(long, 'model.safetensors'), 300e6);
    expectUserError(await cli('inspect', '--ckpt', long, '--tokens', '1,2'), 'is 300000000 bytes but its header declares');
  });
  it('counts have bounds', async () => {
    const ckpt = await checkpoint('counts');
    expectUserError(await cli('eval', '--ckpt', ckpt, '--n', '1e12'), '--n must be at most 4096');
    const cfg = join(dir, 'epochs.json');
    await writeFile(cfg, JSON.stringify({ rl: { epochs: 1e8 } }));
    expectUserError(await cli('run', '--ckpt', ckpt, '--config', cfg, '--out', join(dir, 'ep.jsonl')), 'rl.epochs = 100000000: must be ≤ 100');
    await writeFile(cfg, JSON.stringify({ problemsPerStep: 1e7 }));
    expectUserError(await cli('run', '--ckpt', ckpt, '--config', cfg, '--out', join(dir, 'pp.jsonl')), 'problemsPerStep = 10000000: must be ≤ 1024');
  });
  it('a corpus file whose whole text is "generated" is a file, refused; its control bytes are escaped', async () => {
    const g = join(dir, 'generated.txt');
    await writeFile(g, 'generated\n');
    expectUserError(await cli('run', '--loop', 'spice', '--preset', 'tiny', '--corpus', g, '--out', join(dir, 'g.jsonl')), 'holds only the word "generated"');
    const c = join(dir, 'controls.txt');
    await writeFile(c, 'a=1;b=a+1\n\u001b[31mred\u0007\n');
    const r = await cli('run', '--loop', 'spice', '--preset', 'tiny', '--corpus', c, '--out', join(dir, 'c.jsonl'));
    expectUserError(r, '\\u001b');
    // eslint-disable-next-line no-control-regex -- the check looks for control characters
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });
});

describe('no hangs', () => {
  it('init --out under /proc, inspect on a FIFO', async () => {
    expectUserError(await cli('init', '--out', '/proc/rlvr-x/y'), '--out');
    const fifo = await checkpoint('fifo');
    await rm(join(fifo, 'model.safetensors'));
    execFileSync('mkfifo', [join(fifo, 'model.safetensors')]);
    expectUserError(await cli('inspect', '--ckpt', fifo, '--tokens', '1,2'), 'not a regular file');
  });
});

describe('run --resume on a damaged state', () => {
  const tableOf = buildTensorTable(tiny);
  async function stored(name: string, poke: (c: RunCheckpoint) => void, edit?: (files: { state: string; history: string }) => void): Promise<string> {
    const policy = await checkpoint(`${name}-base`);
    const out = join(dir, `${name}.jsonl`);
    const params = initParams(tiny, tableOf, 3);
    const c: RunCheckpoint = {
      runId: 'cli', loop: 'grpo', policy, cfg: tiny, step: 2, params, optimiser: { m: params.slice(), v: params.map(Math.abs), step: 2 },
      config: loopNamed('grpo').spec.validate({ steps: 10 }, 'c'), state: null, history: { steps: [{ type: 'step', step: 1, seconds: 1, metrics: {} }], evals: [] }, savedAt: 1,
    };
    poke(c);
    const stateDir = `${join(dir, name)}.state`;
    await fileCheckpointStore(nodeCheckpointFs(stateDir)).save(c);
    if (edit) {
      const slot = join(stateDir, 'checkpoints', 'cli', 'a');
      const files = { state: await readFile(join(slot, 'state.json'), 'utf8'), history: await readFile(join(slot, 'history.json'), 'utf8') };
      edit(files);
      await writeFile(join(slot, 'state.json'), files.state);
      await writeFile(join(slot, 'history.json'), files.history);
    }
    await writeFile(out, JSON.stringify({ type: 'config' }) + '\n');
    return out;
  }
  const cases: [string, (c: RunCheckpoint) => void, ((f: { state: string; history: string }) => void) | undefined, string][] = [
    ['history-null', () => {}, (f) => (f.history = '{"steps":[null],"evals":[]}'), 'history.json.steps[0]: expected Object, got null'],
    ['history-string', () => {}, (f) => (f.history = '{"steps":["x"],"evals":[]}'), 'history.json.steps[0]: expected Object, got "x"'],
    ['no-loop', () => {}, (f) => (f.state = JSON.stringify({ ...JSON.parse(f.state), loop: undefined })), 'state.json.loop: missing'],
    ['nan-optimiser', (c) => (c.optimiser.v[5] = NaN), undefined, 'optimizer.safetensors exp_avg_sq holds NaN at index 5'],
    ['nan-model', (c) => (c.params[tableOf.tensors[0].offset] = NaN), undefined, 'model.safetensors holds NaN'],
    ['steps-below', (c) => (c.config = { ...(c.config as object), steps: 1 }), undefined, 'step 2 is past config.steps = 1'],
    ['negative-step', () => {}, (f) => (f.state = JSON.stringify({ ...JSON.parse(f.state), step: -1 })), 'state.json.step: expected >=0, got -1'],
    ['fraction-step', () => {}, (f) => (f.state = JSON.stringify({ ...JSON.parse(f.state), step: 1.5 })), 'state.json.step: expected a whole number, got 1.5'],
    ['huge-step', () => {}, (f) => (f.state = JSON.stringify({ ...JSON.parse(f.state), step: 1e300 })), 'state.json.step: expected a whole number, got 1e+300'],
  ];
  for (const [name, poke, edit, said] of cases) {
    it(name, async () => expectUserError(await cli('run', '--out', await stored(name, poke, edit), '--resume'), 'damaged checkpoint', said));
  }
  it('a policy of another size', async () => {
    const out = await stored('other-size', () => {});
    // the base folder the checkpoint names now holds a smaller policy
    await checkpoint('other-size-base', { ...tiny, nLayer: 1 });
    expectUserError(await cli('run', '--out', out, '--resume'), 'damaged checkpoint', 'its policy');
  });
});
