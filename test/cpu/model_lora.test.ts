import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GPT_PRESETS } from '../../src/model/config';
import { ConfigError } from '../../src/util/errors';
import { loadAdapterDir, saveAdapterDir, saveCheckpointDir, loadCheckpointDir } from '../../src/model/checkpoint_node';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import {
  adapterFileNames,
  buildLoraTable,
  initLora,
  layerAdapters,
  LORA_TARGETS,
  loraScale,
  parseAdapter,
  serializeAdapter,
  validateLoraSpec,
} from '../../src/model/lora';
import { ALIGN_FLOATS, tensorData } from '../../src/model/params';
import { CheckpointError, decodeSafetensors, encodeSafetensors } from '../../src/model/safetensors';

const cfg = GPT_PRESETS.tiny; // C = 32
const spec = validateLoraSpec({ name: 'math-v1', rank: 4, alpha: 8 }, cfg, 'lora');
const table = buildLoraTable(cfg, spec);
const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));

// A trained-looking adapter: A from init, B filled so the round trip is not of zeros.
function trainedAdapter(): Float32Array {
  const buf = initLora(table, 5);
  for (const t of table.tensors) if (t.name.includes('lora_B')) tensorData(buf, t).forEach((_, i, d) => (d[i] = Math.sin(i + t.offset)));
  return buf;
}

describe('LoRA layout', () => {
  it('has A [in, R] and B [R, out] on the four projections of every block', () => {
    const C = 32;
    const dims = { 'attn.c_attn': [C, 3 * C], 'attn.c_proj': [C, C], 'mlp.c_fc': [C, 4 * C], 'mlp.c_proj': [4 * C, C] };
    expect(table.tensors).toHaveLength(cfg.nLayer * LORA_TARGETS.length * 2);
    for (let i = 0; i < cfg.nLayer; i++) {
      const adapters = layerAdapters(table, i);
      for (const [target, [fanIn, fanOut]] of Object.entries(dims)) {
        const pair = adapters[target as keyof typeof adapters]!;
        expect(pair.a.name).toBe(`h.${i}.${target}.lora_A.weight`);
        expect(pair.a.shape).toEqual([fanIn, 4]);
        expect(pair.b.name).toBe(`h.${i}.${target}.lora_B.weight`);
        expect(pair.b.shape).toEqual([4, fanOut]);
      }
    }
    let end = 0;
    for (const t of table.tensors) {
      expect(t.offset % ALIGN_FLOATS).toBe(0);
      expect(t.offset).toBeGreaterThanOrEqual(end);
      end = t.offset + t.size;
    }
    expect(table.totalFloats % ALIGN_FLOATS).toBe(0);
    expect(loraScale(spec)).toBe(2);
  });

  it('starts as the identity: B = 0, A uniform within 1/sqrt(in), deterministic per seed', () => {
    const a = initLora(table, 11);
    expect(bits(a)).toEqual(bits(initLora(table, 11)));
    expect(bits(a)).not.toEqual(bits(initLora(table, 12)));
    for (const t of table.tensors) {
      const d = tensorData(a, t);
      if (t.name.includes('lora_B')) {
        expect(d.every((v) => v === 0)).toBe(true);
        continue;
      }
      const bound = 1 / Math.sqrt(t.shape[0]);
      expect(d.every((v) => Math.abs(v) <= bound)).toBe(true);
      expect(Math.max(...d.map(Math.abs))).toBeGreaterThan(0.8 * bound);
    }
  });

  const bad: [string, unknown, RegExp][] = [
    ['rank 0', { name: 'a', rank: 0, alpha: 1 }, /rank = 0: must be an integer from 1 to nEmbd = 32/],
    ['a rank above the width', { name: 'a', rank: 33, alpha: 1 }, /rank = 33/],
    ['a negative alpha', { name: 'a', rank: 2, alpha: -1 }, /alpha = -1: must be a positive number/],
    ['a path in the name', { name: '../x', rank: 2, alpha: 1 }, /name = "\.\.\/x": use 1 to 64 letters/],
    ['an unknown key', { name: 'a', rank: 2, alpha: 1, dropout: 0.1 }, /unknown key "dropout"/],
  ];
  it.each(bad)('rejects %s', (_label, obj, message) => {
    expect(() => validateLoraSpec(obj, cfg, 'lora')).toThrow(ConfigError);
    expect(() => validateLoraSpec(obj, cfg, 'lora')).toThrow(message);
  });

  it('never builds a file name outside the directory', () => {
    expect(adapterFileNames('math-v1')).toEqual({ safetensors: 'adapter_math-v1.safetensors', json: 'adapter_math-v1.json' });
    expect(() => adapterFileNames('a/b')).toThrow(ConfigError);
  });
});

describe('adapter files', () => {
  const params = trainedAdapter();
  const { safetensors, configJson } = serializeAdapter(spec, params, table, { step: '7' });

  it('round-trips bit-exactly', () => {
    const back = parseAdapter(safetensors, configJson, cfg, 'math-v1');
    expect(back.spec).toEqual(spec);
    expect(bits(back.params)).toEqual(bits(params));
    expect(back.meta).toEqual({ step: '7' });
  });

  it("stores PEFT's names, orientation ([r, in] and [out, r]) and config fields", () => {
    const file = decodeSafetensors(safetensors);
    const a = file.tensors.get('h.1.mlp.c_fc.lora_A.weight')!;
    const b = file.tensors.get('h.1.mlp.c_fc.lora_B.weight')!;
    expect(a.shape).toEqual([4, 32]);
    expect(b.shape).toEqual([128, 4]);
    const memA = tensorData(params, table.byName.get('h.1.mlp.c_fc.lora_A.weight')!); // [32, 4]
    expect(a.data![1 * 32 + 5]).toBe(memA[5 * 4 + 1]); // file[r=1][in=5] = memory[in=5][r=1]
    expect(JSON.parse(configJson)).toEqual({
      adapter_name: 'math-v1', r: 4, lora_alpha: 8, peft_type: 'LORA', task_type: 'CAUSAL_LM',
      target_modules: ['c_attn', 'c_proj', 'c_fc'], fan_in_fan_out: true, bias: 'none', lora_dropout: 0,
    });
  });

  it('refuses a table built for another rank', () => {
    expect(() => serializeAdapter({ ...spec, rank: 2 }, params, table)).toThrow(/is not of rank 2/);
  });

  it('reads names with the PEFT prefix', () => {
    const file = decodeSafetensors(safetensors);
    const prefixed = [...file.tensors].map(([name, t]) => ({ name: `base_model.model.transformer.${name}`, shape: t.shape, data: t.data! }));
    expect(bits(parseAdapter(encodeSafetensors(prefixed), configJson, cfg).params)).toEqual(bits(params));
  });

  it('rejects adapters that do not fit the file, the name or the base model', () => {
    const json = JSON.parse(configJson) as object;
    const withJson = (patch: object) => JSON.stringify({ ...json, ...patch });
    expect(() => parseAdapter(safetensors, withJson({ r: 8 }), cfg)).toThrow(/tensor "h\.0\.attn\.c_attn\.lora_A\.weight" has shape \[4, 32\] in the file but the config needs \[8, 32\]/);
    expect(() => parseAdapter(safetensors, withJson({ r: 0 }), cfg)).toThrow(/\.r = 0: must be an integer/);
    expect(() => parseAdapter(safetensors, withJson({ fan_in_fan_out: false }), cfg)).toThrow(/fan_in_fan_out: expected true, got false/);
    expect(() => parseAdapter(safetensors, withJson({ target_modules: ['q_proj'] }), cfg)).toThrow(/target_modules = \["q_proj"\]: unsupported/);
    // a subset the file does not match: its other tensors are not the config's
    expect(() => parseAdapter(safetensors, withJson({ target_modules: ['c_attn'] }), cfg)).toThrow(/unexpected|not in|does not/);
    expect(() => parseAdapter(safetensors, withJson({ use_dora: true }), cfg)).toThrow(/use_dora: unknown field/);
    expect(() => parseAdapter(safetensors, configJson, cfg, 'other')).toThrow(/adapter_name is "math-v1" but the file is named for "other"/);
    expect(() => parseAdapter(safetensors, '{', cfg)).toThrow(/not JSON/);
    expect(() => parseAdapter(safetensors, configJson, GPT_PRESETS.small)).toThrow(CheckpointError);
    expect(() => parseAdapter(safetensors, configJson, { ...cfg, nLayer: 3 })).toThrow(/missing tensors for this config: h\.2\./);
  });
});

describe('adapter beside a base checkpoint (Node)', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('saves and loads both from one directory', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlvr-lora-'));
    const baseTable = buildTensorTable(cfg);
    await saveCheckpointDir(dir, cfg, initParams(cfg, baseTable, 1), baseTable);
    const params = trainedAdapter();
    await saveAdapterDir(dir, spec, params, table);
    const base = await loadCheckpointDir(dir);
    const back = await loadAdapterDir(dir, 'math-v1', base.cfg);
    expect(bits(back.params)).toEqual(bits(params));
    await expect(loadAdapterDir(dir, 'nope', base.cfg)).rejects.toThrow(/adapter_nope\.json: cannot read/);
  });
});

describe('LoRA sets of a subset of the projections', () => {
  it('hold only their targets, and round-trip with PEFT target_modules naming them', () => {
    for (const [targets, modules] of [[['mlp.c_fc', 'mlp.c_proj'], ['mlp.c_proj', 'c_fc']], [['attn.c_attn'], ['c_attn']], [['attn.c_attn', 'attn.c_proj'], ['c_attn', 'attn.c_proj']]] as const) {
      const spec = { name: 'part', rank: 2, alpha: 2, targets };
      const table = buildLoraTable(cfg, spec);
      expect(table.tensors.map((t) => t.name.split('.').slice(2, 4).join('.'))).toEqual(Array.from({ length: cfg.nLayer }, () => targets.flatMap((t) => [t, t])).flat());
      expect(Object.keys(layerAdapters(table, 0))).toEqual([...targets]);
      const params = initLora(table, 3).map((x, i) => x + i * 1e-3);
      const { safetensors, configJson } = serializeAdapter(spec, params, table);
      expect((JSON.parse(configJson) as { target_modules?: unknown }).target_modules).toEqual([...modules]);
      const back = parseAdapter(safetensors, configJson, cfg);
      expect(back.spec.targets).toEqual([...targets]);
      // PEFT keeps target_modules as a set: another order reads the same
      const reordered = JSON.stringify({ ...JSON.parse(configJson), target_modules: [...modules].reverse() });
      expect(parseAdapter(safetensors, reordered, cfg).spec.targets).toEqual([...targets]);
      expect(Array.from(back.params)).toEqual(Array.from(params));
    }
  });
});
