import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GPT_PRESETS, toHfConfig, type GPTConfig } from '../../src/model/config';
import { parseCheckpoint, serializeCheckpoint } from '../../src/model/checkpoint';
import { loadCheckpointDir, saveCheckpointDir } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable, tensorData } from '../../src/model/params';
import { CheckpointError, decodeSafetensors, encodeSafetensors, type NamedTensor } from '../../src/model/safetensors';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const params = initParams(cfg, table, 99);
const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));
const configText = (c: GPTConfig) => JSON.stringify(toHfConfig(c));

/** The checkpoint's tensors as a list, to rename / drop / add before re-encoding. */
function fileTensors(): NamedTensor[] {
  return table.tensors.map((t) => ({ name: t.name, shape: t.shape, data: tensorData(params, t) }));
}

describe('serializeCheckpoint / parseCheckpoint', () => {
  const { safetensors, configJson } = serializeCheckpoint(cfg, params, table, { run: 'r1', step: '100' });

  it('round-trips config, parameters (bit-exact) and metadata', () => {
    const back = parseCheckpoint(safetensors, configJson);
    expect(back.cfg).toEqual(cfg);
    expect(back.table.totalFloats).toBe(table.totalFloats);
    expect(bits(back.params)).toEqual(bits(params));
    expect(back.meta).toEqual({ run: 'r1', step: '100' });
  });

  it('writes what transformers loads: HF names, [in, out] shapes, F32, metadata format "pt"', () => {
    const file = decodeSafetensors(safetensors);
    expect(file.metadata.format).toBe('pt');
    expect([...file.tensors.keys()].sort()).toEqual(table.tensors.map((t) => t.name).sort());
    expect(file.tensors.get('h.0.attn.c_attn.weight')!.shape).toEqual([32, 96]);
    expect(file.tensors.get('h.1.mlp.c_proj.weight')!.shape).toEqual([128, 32]);
    expect([...file.tensors.values()].every((t) => t.dtype === 'F32')).toBe(true);
    const hf: unknown = JSON.parse(configJson);
    expect(hf).toMatchObject({ model_type: 'gpt2', n_embd: 32, n_layer: 2, n_head: 2, vocab_size: 64, n_positions: 64 });
  });

  it('reads the names Python tools write: "transformer." prefix, mask buffers, a tied lm_head', () => {
    const wte = tensorData(params, table.byName.get('wte.weight')!);
    const renamed = fileTensors().map((t) => ({ ...t, name: `transformer.${t.name}` }));
    const extra = [
      { name: 'transformer.h.0.attn.bias', shape: [1, 1, 4, 4], data: new Float32Array(16).fill(1) },
      { name: 'h.1.attn.masked_bias', shape: [], data: new Float32Array([-1e4]) },
      { name: 'lm_head.weight', shape: [64, 32], data: wte },
    ];
    const back = parseCheckpoint(encodeSafetensors([...renamed, ...extra]), configJson);
    expect(bits(back.params)).toEqual(bits(params));
  });

  it('rejects an lm_head that differs from wte', () => {
    const lmHead = { name: 'lm_head.weight', shape: [64, 32], data: new Float32Array(64 * 32) };
    expect(() => parseCheckpoint(encodeSafetensors([...fileTensors(), lmHead]), configJson)).toThrow(/lm_head\.weight differs from wte\.weight/);
  });

  it('names a tensor whose shape disagrees with config.json, with both shapes', () => {
    const shorter = { ...cfg, nPositions: 32 };
    expect(() => parseCheckpoint(safetensors, configText(shorter))).toThrow(CheckpointError);
    expect(() => parseCheckpoint(safetensors, configText(shorter))).toThrow(
      /model\.safetensors: tensor "wpe\.weight" has shape \[64, 32\] in the file but the config needs \[32, 32\]/,
    );
  });

  it('names missing and unexpected tensors', () => {
    expect(() => parseCheckpoint(safetensors, configText({ ...cfg, nLayer: 3 }))).toThrow(/missing tensors for this config: h\.2\.ln_1\.weight, /);
    expect(() => parseCheckpoint(safetensors, configText({ ...cfg, nLayer: 1 }))).toThrow(/unexpected tensors .*h\.1\.ln_1\.weight/);
    const dropped = fileTensors().filter((t) => t.name !== 'ln_f.bias');
    expect(() => parseCheckpoint(encodeSafetensors(dropped), configJson)).toThrow(/missing tensors for this config: ln_f\.bias$/);
  });

  it('reports a bad config.json as a CheckpointError', () => {
    expect(() => parseCheckpoint(safetensors, '{"model_type": "gpt2",')).toThrow(/config\.json: not JSON/);
    const relu = JSON.stringify({ ...toHfConfig(cfg), activation_function: 'relu' });
    expect(() => parseCheckpoint(safetensors, relu)).toThrow(CheckpointError);
    expect(() => parseCheckpoint(safetensors, relu)).toThrow(/config\.json\.activation_function = "relu": unsupported/);
  });

  it('reports a truncated model file', () => {
    expect(() => parseCheckpoint(safetensors.subarray(0, safetensors.length - 4), configJson)).toThrow(/model\.safetensors: .*run past the data section/);
  });

  it('refuses a table or buffer that does not belong to the config', () => {
    expect(() => serializeCheckpoint(GPT_PRESETS.small, params, table)).toThrow(/not built from this config/);
    expect(() => serializeCheckpoint(cfg, params.subarray(1), table)).toThrow(/floats but the tensor table needs/);
    expect(() => serializeCheckpoint(cfg, params, table, { format: 'np' })).toThrow(/"format" is reserved/);
  });
});

describe('checkpoint directories (Node)', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('saves model.safetensors + config.json and loads them back', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlvr-ckpt-'));
    const target = join(dir, 'nested', 'ckpt');
    await saveCheckpointDir(target, cfg, params, table, { seed: '99' }, { bos_token_id: 1 });
    expect((JSON.parse(await readFile(join(target, 'config.json'), 'utf8')) as { bos_token_id?: unknown }).bos_token_id).toBe(1);
    const back = await loadCheckpointDir(target);
    expect(back.cfg).toEqual(cfg);
    expect(bits(back.params)).toEqual(bits(params));
    expect(back.meta).toEqual({ seed: '99' });
  });

  it('says which file is missing', async () => {
    await expect(loadCheckpointDir(join(tmpdir(), 'rlvr-no-such-dir'))).rejects.toThrow(/config\.json: cannot read .*ENOENT/);
  });
});
