// `rlvr-lab export-onnx`: the plain export and `--with-past` (Hugging Face's decoder_with_past)
// write what they say, read back by onnxruntime-web (wasm): the inputs and outputs each names, and
// a first call of the with-past file giving the plain file's logits for the same tokens.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli';
import { GPT_PRESETS } from '../../src/model/config';
import { saveCheckpointDir } from '../../src/model/checkpoint_node';
import { initParams } from '../../src/model/init';
import { buildTensorTable } from '../../src/model/params';

ort.env.wasm.numThreads = 1;

let dir: string;
const cfg = GPT_PRESETS.tiny;


beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-export-'));
  const table = buildTensorTable(cfg);
  await saveCheckpointDir(join(dir, 'base'), cfg, initParams(cfg, table, 9).map((x) => x * 3), table);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rlvr-lab export-onnx', () => {
  it('--with-past writes the KV-cache decoder; without it, the plain one; both give the same logits', async () => {
    const plainFile = join(dir, 'plain.onnx'), pastFile = join(dir, 'past.onnx');
    const a = await cli('export-onnx', '--ckpt', join(dir, 'base'), '--out', plainFile);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toContain('input_ids int32 [batch, seq]');
    const b = await cli('export-onnx', '--ckpt', join(dir, 'base'), '--with-past', '--out', pastFile);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain('past_key_values.N.key/.value in');
    const plain = await ort.InferenceSession.create(await readFile(plainFile));
    const past = await ort.InferenceSession.create(await readFile(pastFile));
    expect(plain.inputNames).toEqual(['input_ids']);
    const layers = Array.from({ length: cfg.nLayer }, (_, l) => l);
    expect([...past.inputNames].sort()).toEqual(['attention_mask', 'input_ids', ...layers.flatMap((l) => [`past_key_values.${l}.key`, `past_key_values.${l}.value`]), 'position_ids'].sort());
    expect(past.outputNames).toEqual(['logits', ...layers.flatMap((l) => [`present.${l}.key`, `present.${l}.value`])]);
    const tokens = [1, 5, 9, 13, 2];
    const T = tokens.length, HS = cfg.nEmbd / cfg.nHead;
    const p = await plain.run({ input_ids: new ort.Tensor('int32', Int32Array.from(tokens), [1, T]) });
    const empty: Record<string, ort.Tensor> = {};
    for (const l of layers) for (const kv of ['key', 'value']) empty[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, cfg.nHead, 0, HS]);
    const i64 = (xs: number[]) => new ort.Tensor('int64', BigInt64Array.from(xs, BigInt), [1, xs.length]);
    const q = await past.run({ input_ids: i64(tokens), attention_mask: i64(tokens.map(() => 1)), position_ids: i64(tokens.map((_, t) => t)), ...empty });
    const pl = p.logits.data as Float32Array, ql = q.logits.data as Float32Array;
    expect(ql.length).toBe(pl.length);
    for (let i = 0; i < pl.length; i++) expect(Math.abs(ql[i] - pl[i])).toBeLessThan(1e-4);
    expect(q['present.0.key'].dims).toEqual([1, cfg.nHead, T, HS]);
    await plain.release();
    await past.release();
  });
});
