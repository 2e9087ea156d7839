// The ONNX export: the file's structure (opset 17, int32 input_ids, named initializers, the
// causal mask constant, metadata), its logits under onnxruntime-web (wasm) against the float64
// reference, and the export-onnx command on a checkpoint written by init.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as ort from 'onnxruntime-web';
import onnxProto from 'onnx-proto';
import type { onnx } from 'onnx-proto';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randInts } from '../helpers/rng';
import { GPT_PRESETS, type GPTConfig } from '../../src/model/config';
import { buildTensorTable, tensorData, type TensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import { gptForwardRef } from '../../src/reference/gpt';
import { exportOnnx } from '../../src/onnx/export';

const proto = onnxProto.onnx;
const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'bin', 'rlvr-lab.mjs');

// One wasm thread: no worker threads in the test process, and results independent of cores.
ort.env.wasm.numThreads = 1;

const cfg: GPTConfig = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
// Larger than GPT-2 init so that activations are far from trivial (as in test/gpu/model.test.ts).
const params = initParams(cfg, table, 7).map((x) => x * 3);

/** Token ids [B*T] including both ends of the vocabulary. */
function tokenBatch(B: number, T: number, seed: number): Int32Array {
  const ids = Int32Array.from(randInts(mulberry32(seed), B * T, cfg.vocabSize));
  ids[0] = 0;
  ids[B * T - 1] = cfg.vocabSize - 1;
  return ids;
}

async function ortLogits(model: Uint8Array, ids: Int32Array, B: number, T: number, opt: ort.InferenceSession.SessionOptions = {}): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model, opt);
  try {
    const out = await session.run({ input_ids: new ort.Tensor('int32', ids, [B, T]) });
    expect(out.logits.dims).toEqual([B, T, cfg.vocabSize]);
    return out.logits.data as Float32Array;
  } finally {
    await session.release();
  }
}

function refLogits(c: GPTConfig, t: TensorTable, p: Float32Array, ids: Int32Array, B: number, T: number): Float64Array {
  return gptForwardRef(c, t, Float64Array.from(p), { B, T, tokens: ids, targets: new Uint32Array(B * T), w: new Float32Array(B * T) }).logits;
}

describe('exportOnnx', () => {
  const bytes = exportOnnx(cfg, table, params, { preset: 'tiny' });

  it('writes opset 17 with int32 input_ids, checkpoint-named weights and the causal mask as a constant', () => {
    const m = proto.ModelProto.decode(bytes);
    expect(m.opsetImport.map((o) => [o.domain, Number(o.version)])).toEqual([['', 17]]);
    expect(m.producerName).toBe('rlvr-lab');
    expect(m.docString).toContain(JSON.stringify(cfg));
    const props = Object.fromEntries(m.metadataProps.map((p) => [String(p.key), String(p.value)] as const));
    expect(JSON.parse(props.gpt_config as string) as unknown).toEqual(cfg);
    expect(props.preset).toBe('tiny');
    // decoded messages are class instances: repeated fields are arrays, bytes are Uint8Array
    const g = m.graph as onnx.GraphProto;
    const input = (g.input[0] as onnx.ValueInfoProto).type!.tensorType!;
    expect(g.input.map((i) => i.name)).toEqual(['input_ids']);
    expect(input.elemType).toBe(proto.TensorProto.DataType.INT32);
    expect(input.shape!.dim!.map((d) => d.dimParam || Number(d.dimValue))).toEqual(['batch', 'seq']);
    expect(g.output.map((o) => o.name)).toEqual(['logits']);
    const inits = new Map(g.initializer.map((t) => [t.name, t as onnx.TensorProto]));
    for (const t of table.tensors) {
      const init = inits.get(t.name)!;
      expect(init.dims.map(Number), t.name).toEqual(t.shape);
      const data = tensorData(params, t);
      expect(Buffer.from(init.rawData).equals(Buffer.from(data.buffer, data.byteOffset, data.byteLength)), t.name).toBe(true);
    }
    const mask = inits.get('const.causal_mask')!;
    expect(mask.dataType).toBe(proto.TensorProto.DataType.BOOL);
    expect(mask.dims.map(Number)).toEqual([cfg.nPositions, cfg.nPositions]);
    expect([mask.rawData[0], mask.rawData[1], mask.rawData[cfg.nPositions], mask.rawData[cfg.nPositions + 1]]).toEqual([1, 0, 1, 1]);
    expect(g.node.every((n) => !n.domain), 'standard ONNX ops only').toBe(true);
  });

  // The reference runs in float64; ORT in float32 with its own summation order.
  for (const T of [1, 9, cfg.nPositions]) {
    for (const level of ['disabled', 'all'] as const) {
      it(`onnxruntime-web logits match the float64 reference to 1e-4 (B=2, T=${T}, graph optimisation ${level})`, async () => {
        const B = 2;
        const ids = tokenBatch(B, T, T);
        const got = await ortLogits(bytes, ids, B, T, { graphOptimizationLevel: level });
        expectClose(`logits T=${T}`, got, refLogits(cfg, table, params, ids, B, T), { atol: 1e-4, rtol: 0 });
      });
    }
  }

  it('rejects a table or buffer that does not belong to the config', () => {
    expect(() => exportOnnx(GPT_PRESETS.small, table, params)).toThrow(/tensor table was not built from this config/);
    expect(() => exportOnnx(cfg, table, params.subarray(1))).toThrow(/params has \d+ floats/);
  });
});

describe('rlvr-lab export-onnx', () => {
  it('exports a checkpoint written by init; onnxruntime-web reproduces the reference logits', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlvr-onnx-'));
    const ckptDir = join(dir, 'ckpt');
    const out = join(dir, 'sub', 'model.onnx');
    await run('node', [BIN, 'init', '--preset', 'tiny', '--seed', '5', '--out', ckptDir]);
    const { stderr } = await run('node', [BIN, 'export-onnx', '--ckpt', ckptDir, '--out', out]);
    expect(stderr).toMatch(/wrote .*model\.onnx/);
    const ckpt = await loadCheckpointDir(ckptDir);
    const model = new Uint8Array(await readFile(out));
    const props = Object.fromEntries(proto.ModelProto.decode(model).metadataProps.map((p) => [String(p.key), String(p.value)] as const));
    expect(props.seed).toBe('5');
    const B = 2, T = 9;
    const ids = tokenBatch(B, T, 1);
    const got = await ortLogits(model, ids, B, T);
    expectClose('cli logits', got, refLogits(ckpt.cfg, ckpt.table, ckpt.params, ids, B, T), { atol: 1e-4, rtol: 0 });
  });

  it('rejects bad input with a clear message and exit code 2', async () => {
    const missing = await run('node', [BIN, 'export-onnx', '--ckpt', '/nonexistent', '--out', '/tmp/x.onnx']).then(() => ({ code: 0, stderr: '' }), (e: unknown) => e as { code: number; stderr: string });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*config\.json/);
    const noOut = await run('node', [BIN, 'export-onnx', '--ckpt', '/nonexistent']).then(() => ({ code: 0, stderr: '' }), (e: unknown) => e as { code: number; stderr: string });
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out is required/);
  });
});
