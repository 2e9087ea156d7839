// Non-finite and out-of-range values (issue 30 §2): adapter weights holding NaN, ±Inf or 1e30
// are refused on load, by whichever path reads them (--adapters, the page's adapter files, a
// stored run's slot); learning rates float32 cannot hold, or that move every weight by more
// than itself, are refused at validation, and an overflowing JSON number is said to be Infinity.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, expectUserError } from '../helpers/cli';
import { GPT_PRESETS } from '../../src/model/config';
import { saveAdapterDir, saveCheckpointDir } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable } from '../../src/model/params';
import { buildLoraTable, initLora, parseAdapter, parseAdapterFile, serializeAdapter, validateLoraSpec } from '../../src/model/lora';
import { CheckpointError } from '../../src/model/safetensors';
import { LOOP_NAMES, loopNamed } from '../../src/loops/registry';
import { showText, showValue } from '../../src/util/show';

vi.mock('webgpu', () => ({ create: () => ({ requestAdapter: async () => null }), globals: {} }));

const tiny = GPT_PRESETS.tiny;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-bad-values-'));
  vi.stubEnv('VK_ICD_FILENAMES', join(dir, 'no-icd.json'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe('adapter weights', () => {
  const spec = validateLoraSpec({ name: 'solver', rank: 4, alpha: 8 }, tiny, 'lora');
  const table = buildLoraTable(tiny, spec);
  const poked = (value: number) => {
    const p = initLora(table, 1);
    p[table.tensors[3].offset + 2] = value;
    return p;
  };
  for (const value of [NaN, Infinity, -Infinity, 1e30]) {
    it(`${value} is refused by the PEFT folder and the single-file readers`, () => {
      const { safetensors, configJson } = serializeAdapter(spec, poked(value), table);
      expect(() => parseAdapter(safetensors, configJson, tiny, 'solver')).toThrow(CheckpointError);
      // 1e30 is float32's 1.0000000150474662e+30
      expect(() => parseAdapter(safetensors, configJson, tiny, 'solver')).toThrow(`tensor ${table.tensors[3].name} holds ${Math.fround(value)} at index 2`);
      // the page's single file: the adapter_config inside, as a run's download carries it
      const file = serializeAdapter(spec, poked(value), table, { adapter_config: configJson }).safetensors;
      expect(() => parseAdapterFile(file, tiny, 'solver.safetensors')).toThrow(`solver.safetensors: tensor ${table.tensors[3].name} holds ${Math.fround(value)}`);
    });
  }

  it('a finite, trained-sized adapter still loads', () => {
    const { safetensors, configJson } = serializeAdapter(spec, poked(0.5), table);
    expect(parseAdapter(safetensors, configJson, tiny, 'solver').params[table.tensors[3].offset + 2]).toBe(0.5);
  });

  it('a damaged single file names itself once', () => {
    expect(() => parseAdapterFile(new Uint8Array(4), tiny, 'image.png')).toThrow(/^image\.png: file is 4 bytes/);
  });

  it('rlvr-lab run --adapters refuses a NaN adapter before any GPU work', async () => {
    const base = join(dir, 'base');
    const btable = buildTensorTable(tiny);
    await saveCheckpointDir(base, tiny, initParams(tiny, btable, 3), btable);
    const def = loopNamed('ttsp');
    const sets = def.spec.shape(def.spec.validate({})).adapters ?? [];
    const folder = join(dir, 'nan-adapters');
    for (const [i, s] of sets.entries()) {
      const t = buildLoraTable(tiny, s.spec);
      const p = initLora(t, 1);
      if (i === 0) p[t.tensors[0].offset] = NaN;
      await saveAdapterDir(folder, s.spec, p, t);
    }
    expectUserError(await cli('run', '--loop', 'ttsp', '--ckpt', base, '--target', 'min(9,9-1+4)', '--adapters', folder, '--out', join(dir, 'nan.jsonl')), `--adapters ${folder}`, 'holds NaN at index 0');
  });
});

describe('learning rates', () => {
  for (const loop of LOOP_NAMES) {
    it(`${loop}: lr 1e39 and 1e300 (float32 cannot hold them), 1e30 and 1 (a step outweighs the weights) and 1e-50 (float32's 0) are refused`, () => {
      const v = (lr: number) => () => loopNamed(loop).spec.validate({ lr }, 'cfg');
      expect(v(1e39)).toThrow('cfg.lr = 1e+39: must be < 1');
      expect(v(1e300)).toThrow('cfg.lr = 1e+300: must be < 1');
      expect(v(1e30)).toThrow('cfg.lr = 1e+30: must be < 1');
      expect(v(1)).toThrow('cfg.lr = 1: must be < 1');
      expect(v(1e-50)).toThrow('cfg.lr = 1e-50: float32, in which the GPU computes, rounds it to 0; it must be > 0');
      expect(v(0.5)).not.toThrow();
    });
  }

  it('{"lr":1e400} says Infinity, not null', () => {
    expect(() => loopNamed('grpo').spec.validate(JSON.parse('{"lr":1e400}'), 'cfg')).toThrow('cfg.lr = Infinity: must be < 1');
    // a field with no upper bound: entCoef
    expect(() => loopNamed('grpo').spec.validate(JSON.parse('{"rl":{"entCoef":-1e400}}'), 'cfg')).toThrow('cfg.rl.entCoef = -Infinity: must be finite');
  });

  it('a field float32 cannot hold says so', () => {
    expect(() => loopNamed('grpo').spec.validate({ rl: { klClamp: 1e39 } }, 'cfg')).toThrow('cfg.rl.klClamp = 1e+39: float32, in which the GPU computes, cannot hold it');
  });

  it('rlvr-lab run --config with lr 1e39 is refused in one line', async () => {
    const base = join(dir, 'base-lr');
    const btable = buildTensorTable(tiny);
    await saveCheckpointDir(base, tiny, initParams(tiny, btable, 3), btable);
    const cfgFile = join(dir, 'lr.json');
    await writeFile(cfgFile, '{"lr": 1e400}');
    expectUserError(await cli('run', '--ckpt', base, '--config', cfgFile, '--out', join(dir, 'lr.jsonl')), 'lr = Infinity: must be < 1');
  });

  it('pretrain --lr 1e30 and --lr 1 are refused before training', async () => {
    for (const lr of ['1e30', '1']) expectUserError(await cli('pretrain', '--preset', 'tiny', '--out', join(dir, `pt-${lr}`), '--lr', lr), `--lr must be a learning rate above 0 and below 1, got ${Number(lr)}`);
  });
});

describe('values in messages', () => {
  it('are escaped and cut to about 80 characters', () => {
    expect(showValue('x'.repeat(1e6))).toBe(`"${'x'.repeat(80)}"… (1000000 characters)`);
    expect(showValue('a\u0000\u001b[31m\u009b')).toBe('"a\\u0000\\u001b[31m\\u009b"');
    expect(showValue(NaN)).toBe('NaN');
    expect(showValue({ a: Infinity })).toBe('{"a":"Infinity"}');
    expect(showText('/tmp/run.jsonl')).toBe('/tmp/run.jsonl');
    expect(showText('bad\nname')).toBe('"bad\\nname"');
    expect(showText('y'.repeat(200)).length).toBeLessThan(120);
  });
});

// counter-examples the fuzz tier (fuzz_inputs.test.ts) found, shrunk: each message was longer than 300 characters
describe('messages stay under 300 characters', () => {
  const short = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect((e as Error).message.length, (e as Error).message).toBeLessThan(300);
      return;
    }
    throw new Error('expected a refusal');
  };
  it('an unknown key lists the allowed ones cut short; a long value and a field\'s long help are cut', () => {
    short(() => loopNamed('opensir').spec.validate({ '': '' }, 'config'));
    short(() => loopNamed('grpo').spec.validate({ evalSet: 'x'.repeat(5000) }, 'config'));
    short(() => loopNamed('ttsp').spec.validate({ target: { '': { '': null }, ' ': 1e-315 } }, 'config'));
  });
  it('an adapter JSON with a 5,000-character name', () => {
    const spec = validateLoraSpec({ name: 'solver', rank: 2, alpha: 4 }, tiny, 'lora');
    const table = buildLoraTable(tiny, spec);
    const good = serializeAdapter(spec, initLora(table, 1), table);
    short(() => parseAdapter(good.safetensors, JSON.stringify({ ...JSON.parse(good.configJson), adapter_name: 'x'.repeat(5000) }), tiny, 'solver'));
  });
  it('a page address naming a 20,000-character loop', async () => {
    const { queryToLauncher } = await import('../../src/state/url');
    const d = queryToLauncher(new URLSearchParams([['loop', 'x'.repeat(20000)], ['x', '1']]));
    for (const w of d.warnings) expect(w.length, w).toBeLessThan(300);
  });
});
