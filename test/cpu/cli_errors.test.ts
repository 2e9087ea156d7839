// The CLI's answers to the user's mistakes, in-process through main(): one line saying what and
// where, exit code 2, nothing written. Dawn is replaced by a WebGPU without adapters, so every
// case here must be caught before any GPU work (and the missing adapter is one of the cases).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseArgs, readArgs } from '../../src/cli/args';
import { cli, expectUserError } from '../helpers/cli';
import { GPT_PRESETS, type GPTConfig } from '../../src/model/config';
import { saveCheckpointDir } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable } from '../../src/model/params';
import { encodeSafetensors } from '../../src/model/safetensors';
import { DEFAULT_PRETRAIN, freshState } from '../../src/pretrain/run';

vi.mock('webgpu', () => ({ create: () => ({ requestAdapter: async () => null }), globals: {} }));


/** Exit code 2 and exactly one line on stderr, which matches every pattern. */
const tiny = GPT_PRESETS.tiny;
let dir: string;

/** A checkpoint folder of `cfg` with init weights, `poke` applied to them first. */
async function checkpoint(name: string, cfg: GPTConfig = tiny, poke: (p: Float32Array) => void = () => {}): Promise<string> {
  const table = buildTensorTable(cfg);
  const params = initParams(cfg, table, 3);
  poke(params);
  const path = join(dir, name);
  await saveCheckpointDir(path, cfg, params, table);
  return path;
}

/** OUT/resume as `pretrain` saves it (see pretrain_resume.ts), written without a GPU. */
async function resumePoint(out: string, preset: 'tiny' | 'small'): Promise<string> {
  const cfg = GPT_PRESETS[preset];
  const table = buildTensorTable(cfg);
  const resume = join(out, 'resume');
  await saveCheckpointDir(resume, cfg, initParams(cfg, table, 1), table, { preset, step: '10' });
  const zeros = new Float32Array(table.totalFloats);
  await writeFile(join(resume, 'optimizer.safetensors'), encodeSafetensors([
    { name: 'adam.m', shape: [zeros.length], data: zeros },
    { name: 'adam.v', shape: [zeros.length], data: zeros },
  ]));
  const pretrain = { ...DEFAULT_PRETRAIN, seed: 1, steps: 20, seqLen: cfg.nPositions };
  await writeFile(join(resume, 'trainer_state.json'), JSON.stringify({ pretrain, state: { ...freshState(), step: 10 }, adamStep: 10, preset }, null, 1));
  return resume;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-cli-errors-'));
  // no SwiftShader fallback either: this machine has no WebGPU adapter at all
  vi.stubEnv('VK_ICD_FILENAMES', join(dir, 'no-icd.json'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe('flags', () => {
  it('a switch takes no value but true or false', async () => {
    expectUserError(await cli('sets', '--json=no'), "--json is a switch: give it alone or as --json=true / --json=false, got no");
    expect((await cli('sets', '--json=false')).stdout).not.toMatch(/^\[/);
    expect((await cli('sets', '--json=true')).stdout).toMatch(/^\[/);
  });

  it("a value keeps its own '=', and an empty number is not zero", () => {
    expect(parseArgs(['--out=a=b.json'], { out: { type: 'string' } }).out).toBe('a=b.json');
    expect(() => parseArgs(['--steps', ''], { steps: { type: 'number' } })).toThrow('--steps is empty: give it a value, or leave the flag out');
  });

  it('positionals (the scripts\' run files) are kept in order where a command takes them, refused elsewhere', () => {
    const spec = { x: { type: 'string' as const, default: 'step' }, work: { type: 'boolean' as const, default: false } };
    const r = readArgs(['a.json', '--x', 'tokens', 'b.json', '--work', 'c.json'], spec, { positionals: true });
    expect(r.positionals).toEqual(['a.json', 'b.json', 'c.json']);
    expect(r.flags).toEqual({ x: 'tokens', work: true });
    // a flag's value is never a positional, and an unknown flag is still an error
    expect(readArgs(['--x', 'a.json'], spec, { positionals: true }).positionals).toEqual([]);
    expect(() => readArgs(['a.json', '--y', '1'], spec, { positionals: true })).toThrow('unknown flag --y');
    expect(() => readArgs(['a.json'], spec)).toThrow('unexpected argument');
  });
});

describe('pretrain checks its flags before training', () => {
  const cases: [string[], string][] = [
    [['--steps', '-5'], '--steps must be a positive integer, got -5'],
    [['--steps', '1.5'], '--steps must be a positive integer, got 1.5'],
    [['--batch', '0'], '--batch must be a positive integer, got 0'],
    [['--lr', '-1'], '--lr must be a learning rate above 0 and below 1, got -1'],
    [['--lr', '0'], '--lr must be a learning rate above 0 and below 1, got 0'],
    [['--eval-every', '0'], '--eval-every must be a positive integer, got 0'],
    [['--patience', '-1'], '--patience must be a non-negative integer, got -1'],
    [['--seed', '4294967296'], '--seed must be an integer in [0, 2^32), got 4294967296'],
    [['--prompt-weight', '2'], '--prompt-weight must lie in [0, 1], got 2'],
    [['--card-samples', '0'], '--card-samples must be a positive integer, got 0'],
  ];
  for (const [flags, message] of cases) {
    it(flags.join(' '), async () => {
      const out = join(dir, `pretrain-${flags.join('')}`);
      expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', out, ...flags), message);
      expect(existsSync(out)).toBe(false);
    });
  }
});

describe('pretrain --resume', () => {
  it('refuses new recipe values instead of ignoring them', async () => {
    const out = join(dir, 'resume-flags');
    await resumePoint(out, 'tiny');
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', out, '--resume', '--steps', '40', '--lr', '0.01'), '--resume continues the saved run', '--steps, --lr would be ignored');
  });

  it('names the folder of a truncated trainer_state.json', async () => {
    const out = join(dir, 'resume-truncated');
    const resume = await resumePoint(out, 'tiny');
    await truncate(join(resume, 'trainer_state.json'), 40);
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', out, '--resume'), `resume point ${resume}: trainer_state.json is not JSON`);
  });

  it('names the folder of a missing optimizer.safetensors', async () => {
    const out = join(dir, 'resume-no-optimizer');
    const resume = await resumePoint(out, 'tiny');
    await rm(join(resume, 'optimizer.safetensors'));
    expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', out, '--resume'), `resume point ${resume}: cannot read optimizer.safetensors (ENOENT)`);
  });

  it('refuses a save of another preset', async () => {
    const out = join(dir, 'resume-other-preset');
    const resume = await resumePoint(out, 'tiny');
    expectUserError(await cli('pretrain', '--preset', 'small', '--out', out, '--resume'), `${resume} was saved by a tiny run, not small; resume it with --preset tiny`);
  });
});

describe('checkpoints', () => {
  it('init refuses an empty --out', async () => {
    expectUserError(await cli('init', '--preset', 'tiny', '--out', ''), '--out is empty: give it a value, or leave the flag out');
  });

  it('init names an --out it cannot write', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    expectUserError(await cli('init', '--preset', 'tiny', '--out', join(file, 'ckpt')), `--out ${join(file, 'ckpt')}: ${file} is not a directory`);
  });

  it('eval, inspect and export-onnx refuse NaN or Inf weights, naming the folder and the tensor', async () => {
    const table = buildTensorTable(tiny);
    const attn = table.tensors.find((t) => t.name === 'h.1.attn.c_attn.weight')!;
    const nan = await checkpoint('nan', tiny, (p) => (p[attn.offset + 7] = NaN));
    const inf = await checkpoint('inf', tiny, (p) => (p[attn.offset] = -Infinity));
    const onnx = join(dir, 'nan.onnx');
    const said = (ckpt: string, value: string, index: number) => `checkpoint ${ckpt}: model.safetensors: tensor h.1.attn.c_attn.weight holds ${value} at index ${index}`;
    expectUserError(await cli('eval', '--ckpt', nan, '--limit', '1', '--n', '1'), said(nan, 'NaN', 7));
    expectUserError(await cli('inspect', '--ckpt', inf, '--tokens', '1,2'), said(inf, '-Infinity', 0));
    expectUserError(await cli('export-onnx', '--ckpt', nan, '--out', onnx), said(nan, 'NaN', 7));
    expect(existsSync(onnx)).toBe(false);
  });

  it('export-onnx refuses a model whose vocabulary or context cannot serve the world', async () => {
    const wide = await checkpoint('wide-vocab', { ...tiny, vocabSize: 80 });
    const short = await checkpoint('short-context', { ...tiny, nPositions: 16 });
    const onnx = join(dir, 'unfit.onnx');
    expectUserError(await cli('export-onnx', '--ckpt', wide, '--out', onnx), `checkpoint ${wide}: the model's vocabulary has 80 tokens, the world's tokenizer 64`);
    expectUserError(await cli('export-onnx', '--ckpt', short, '--out', onnx), `checkpoint ${short}: the model's context is 16 tokens`);
    expect(existsSync(onnx)).toBe(false);
  });

  it('a damaged model.safetensors is reported with its folder, whichever command reads it', async () => {
    const broken = await checkpoint('broken');
    await truncate(join(broken, 'model.safetensors'), 200);
    expectUserError(await cli('export-onnx', '--ckpt', broken, '--out', join(dir, 'broken.onnx')), `checkpoint ${broken}: model.safetensors:`);
    expectUserError(await cli('inspect', '--ckpt', broken, '--tokens', '1'), `checkpoint ${broken}: model.safetensors:`);
  });
});

describe('no WebGPU adapter', () => {
  it('is one line and exit code 2, not a stack trace', async () => {
    const ckpt = await checkpoint('fine');
    expectUserError(await cli('eval', '--ckpt', ckpt, '--limit', '1', '--n', '1'), 'rlvr-lab eval: no WebGPU adapter');
  });
});

describe('--corpus', () => {
  it('a corpus file with bad lines is refused with their line numbers, before any GPU work, by run and ablate', async () => {
    const bad = join(dir, 'bad-corpus.txt');
    await writeFile(bad, 'a=7;b=a+5\n\nhello\na=1;b=a+1=3\n');
    const out = join(dir, 'corpus-run.jsonl');
    expectUserError(await cli('run', '--loop', 'spice', '--preset', 'tiny', '--corpus', bad, '--out', out), `--corpus ${bad}: 2 of 3 documents are not valid: line 3: statement 1 'hello'`, "line 4: statement 2 'b=a+1=3': stated value 3 but a+1 is 2");
    expect(existsSync(out)).toBe(false);
    expectUserError(await cli('ablate', '--loop', 'spice', '--preset', 'tiny', '--corpus', bad), `--corpus ${bad}: 2 of 3 documents are not valid`);
  });
  it('an empty or missing file, or a loop without a corpus, is said so', async () => {
    const empty = join(dir, 'empty-corpus.txt');
    await writeFile(empty, '\n \n');
    expectUserError(await cli('run', '--loop', 'spice', '--preset', 'tiny', '--corpus', empty, '--out', join(dir, 'c2.jsonl')), `--corpus ${empty} is empty`);
    expectUserError(await cli('run', '--loop', 'spice', '--preset', 'tiny', '--corpus', join(dir, 'nope.txt'), '--out', join(dir, 'c3.jsonl')), '--corpus: cannot read');
    expectUserError(await cli('run', '--loop', 'grpo', '--preset', 'tiny', '--corpus', empty, '--out', join(dir, 'c4.jsonl')), '--corpus: the grpo loop reads no corpus');
  });
  it('a valid file is read: the run gets as far as the GPU', async () => {
    const good = join(dir, 'good-corpus.txt');
    await writeFile(good, 'a=7;b=a+5\nx=2;y=x*3;z=y-1\n');
    expectUserError(await cli('run', '--loop', 'spice', '--preset', 'small', '--corpus', good, '--out', join(dir, 'c5.jsonl')), 'no WebGPU adapter');
  });
});
