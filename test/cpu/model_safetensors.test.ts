import { describe, expect, it } from 'vitest';
import { mulberry32, randn } from '../helpers/rng';
import { layoutTensors } from '../../src/model/params';
import { CheckpointError, decodeSafetensors, encodeSafetensors, readTable, tableTensors } from '../../src/model/safetensors';

/** A safetensors file from a header (object or raw text) and data bytes, written by hand. */
function makeFile(header: object | string, data: ArrayLike<number> = [], headerLen?: bigint): Uint8Array {
  const json = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, headerLen ?? BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

/** A copy of bytes with one byte replaced (e.g. to break the UTF-8 of a header). */
const withByte = (bytes: Uint8Array, at: number, value: number): Uint8Array => bytes.map((b, i) => (i === at ? value : b));
const f32Bytes = (values: number[]): Uint8Array => new Uint8Array(new Float32Array(values).buffer);
const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));

describe('encode / decode', () => {
  it('round-trips F32 bit-exactly, special values included', () => {
    const rand = mulberry32(3);
    const special = new Float32Array([0, -0, Infinity, -Infinity, NaN, 1e-45, -1e-45, 3.4028234663852886e38, 1.1754943508222875e-38]);
    const tensors = [
      { name: 'a', shape: [3, 5], data: randn(rand, 15) },
      { name: 'special', shape: [special.length], data: special },
      { name: 'scalar', shape: [], data: new Float32Array([42]) },
      { name: 'empty', shape: [0, 4], data: new Float32Array(0) },
      { name: 'odd.name/with:chars', shape: [1, 1, 7], data: randn(rand, 7) },
      { name: '__proto__', shape: [1], data: new Float32Array([1]) }, // names are data, not object keys
      { name: 'constructor', shape: [1], data: new Float32Array([2]) },
    ];
    const bytes = encodeSafetensors(tensors, { note: 'hello', step: '12' });
    const file = decodeSafetensors(bytes);
    expect(file.metadata).toEqual({ note: 'hello', step: '12' });
    expect([...file.tensors.keys()].sort()).toEqual(tensors.map((t) => t.name).sort());
    for (const t of tensors) {
      const d = file.tensors.get(t.name)!;
      expect(d.dtype).toBe('F32');
      expect(d.shape).toEqual(t.shape);
      expect(bits(d.data!)).toEqual(bits(t.data));
    }
  });

  it('writes the layout the reference implementation expects', () => {
    const bytes = encodeSafetensors([
      { name: 'x', shape: [2], data: new Float32Array([1, 2]) },
      { name: 'y', shape: [1], data: new Float32Array([3]) },
    ]);
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(n % 8).toBe(0); // header padded with spaces so the data starts 8-aligned
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, unknown>;
    expect(header).toEqual({
      x: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      y: { dtype: 'F32', shape: [1], data_offsets: [8, 12] },
    });
    expect(header.__metadata__).toBeUndefined();
    expect(Array.from(new Float32Array(bytes.slice(8 + n).buffer))).toEqual([1, 2, 3]);
  });

  it('reads F16, BF16 and F64 into f32', () => {
    const data = new Uint8Array(6 + 4 + 16);
    const dv = new DataView(data.buffer);
    [0x3c00, 0xc000, 0x0001].forEach((h, i) => dv.setUint16(2 * i, h, true)); // F16: 1, -2, 2^-24
    [0x3f80, 0xc0a0].forEach((h, i) => dv.setUint16(6 + 2 * i, h, true)); // BF16: 1, -5
    [0.1, -1e300].forEach((v, i) => dv.setFloat64(10 + 8 * i, v, true));
    const file = decodeSafetensors(makeFile({
      h: { dtype: 'F16', shape: [3], data_offsets: [0, 6] },
      b: { dtype: 'BF16', shape: [2], data_offsets: [6, 10] },
      d: { dtype: 'F64', shape: [2], data_offsets: [10, 26] },
    }, data));
    expect(Array.from(file.tensors.get('h')!.data!)).toEqual([1, -2, 2 ** -24]);
    expect(Array.from(file.tensors.get('b')!.data!)).toEqual([1, -5]);
    expect(Array.from(file.tensors.get('d')!.data!)).toEqual([Math.fround(0.1), -Infinity]);
  });

  it('decodes from a Uint8Array that is a view at an odd offset', () => {
    const inner = encodeSafetensors([{ name: 'x', shape: [2], data: new Float32Array([5, 6]) }]);
    const outer = new Uint8Array(inner.length + 3);
    outer.set(inner, 3);
    expect(Array.from(decodeSafetensors(outer.subarray(3)).tensors.get('x')!.data!)).toEqual([5, 6]);
  });
});

describe('decodeSafetensors rejects malformed files', () => {
  const x = (offs: number[], shape = [2], dtype = 'F32') => ({ dtype, shape, data_offsets: offs });
  const cases: [string, Uint8Array, RegExp][] = [
    ['a file shorter than 8 bytes', new Uint8Array(5), /file is 5 bytes, too short for the 8-byte header length/],
    ['a header length beyond the file', makeFile('{}', [], 100n), /header length 100 is beyond the end of the file \(2 bytes follow/],
    ['a huge header length', makeFile('{}', [], 2n ** 63n), /header length 9223372036854775808 is beyond the end of the file/],
    ['a header that is not JSON', makeFile('{"x": {', []), /header is not JSON/],
    ['a header that is not UTF-8', withByte(makeFile('{"ab": {}}'), 10, 0xff), /header is not valid UTF-8/],
    ['a header that is an array', makeFile('[1, 2]'), /header must be a JSON object/],
    ['an unknown dtype', makeFile({ x: x([0, 8], [2], 'F17') }, f32Bytes([1, 2])), /tensor "x": unknown dtype "F17"/],
    ['a missing dtype', makeFile({ x: { shape: [2], data_offsets: [0, 8] } }, f32Bytes([1, 2])), /tensor "x": unknown dtype undefined/],
    ['a shape that is not integers', makeFile({ x: x([0, 8], [2.5]) }, f32Bytes([1, 2])), /tensor "x": shape \[2\.5\] must be an array of non-negative integers/],
    ['a negative dimension', makeFile({ x: x([0, 8], [-2]) }, f32Bytes([1, 2])), /shape \[-2\]/],
    ['bad data_offsets', makeFile({ x: x([0]) }, f32Bytes([1, 2])), /tensor "x": data_offsets \[0\] must be \[begin, end\]/],
    ['data_offsets that end before they begin', makeFile({ x: x([8, 0]) }, f32Bytes([1, 2])), /data_offsets \[8, 0\] end before they begin/],
    ['a shape that does not match the offsets', makeFile({ x: x([0, 8], [3]) }, f32Bytes([1, 2])), /tensor "x": shape \[3\] of F32 needs 12 bytes but data_offsets \[0, 8\] span 8/],
    ['offsets past the data', makeFile({ x: x([0, 8]) }, f32Bytes([1])), /tensor "x" data_offsets \[0, 8\] run past the data section \(4 bytes\)/],
    ['overlapping tensors', makeFile({ x: x([0, 8]), y: x([4, 12]) }, f32Bytes([1, 2, 3])), /tensor "y" data_offsets \[4, 12\] overlap tensor "x"/],
    ['a gap between tensors', makeFile({ x: x([0, 8]), y: x([12, 20]) }, f32Bytes([1, 2, 0, 3, 4])), /4 unused bytes before tensor "y" at 8/],
    ['trailing bytes', makeFile({ x: x([0, 8]) }, f32Bytes([1, 2, 3])), /4 trailing bytes after the last tensor/],
    ['an extra key in an entry', makeFile({ x: { ...x([0, 8]), stride: [1] } }, f32Bytes([1, 2])), /tensor "x": unexpected key "stride"/],
    ['metadata that is not strings', makeFile({ __metadata__: { step: 3 }, x: x([0, 8]) }, f32Bytes([1, 2])), /__metadata__\["step"\] is 3, not a string/],
  ];
  it.each(cases)('%s', (_label, bytes, message) => {
    expect(() => decodeSafetensors(bytes, 'm.safetensors')).toThrow(CheckpointError);
    expect(() => decodeSafetensors(bytes, 'm.safetensors')).toThrow(message);
  });
});

describe('readTable / tableTensors', () => {
  const table = layoutTensors([
    { name: 'w', shape: [2, 3] },
    { name: 'b', shape: [3] },
  ]);
  const buf = new Float32Array(table.totalFloats);
  buf.set([1, 2, 3, 4, 5, 6], 0);
  buf.set([7, 8, 9], 64);

  it('round-trips a table buffer, padding 0', () => {
    const back = readTable(decodeSafetensors(encodeSafetensors(tableTensors(table, buf))).tensors, table, 'f');
    expect(back).toEqual(buf);
  });

  it('names missing, unexpected and mis-shaped tensors', () => {
    const enc = (ts: { name: string; shape: number[]; data: number[] }[]) =>
      decodeSafetensors(encodeSafetensors(ts.map((t) => ({ ...t, data: new Float32Array(t.data) })))).tensors;
    const b = { name: 'b', shape: [3], data: [7, 8, 9] };
    const w = { name: 'w', shape: [2, 3], data: [1, 2, 3, 4, 5, 6] };
    expect(() => readTable(enc([w]), table, 'f')).toThrow(/f: missing tensors for this config: b/);
    expect(() => readTable(enc([w, b, { name: 'z', shape: [1], data: [0] }]), table, 'f')).toThrow(/unexpected tensors .*: z/);
    expect(() => readTable(enc([{ ...w, shape: [3, 2] }, b]), table, 'f')).toThrow(
      /tensor "w" has shape \[3, 2\] in the file but the config needs \[2, 3\] \(the transpose of the expected shape\)/,
    );
    expect(() => readTable(enc([{ ...w, shape: [6] }, b]), table, 'f')).toThrow(CheckpointError);
  });

  it('rejects integer tensors as weights', () => {
    const bytes = makeFile({ w: { dtype: 'I32', shape: [2, 3], data_offsets: [0, 24] }, b: { dtype: 'F32', shape: [3], data_offsets: [24, 36] } }, new Uint8Array(36));
    expect(() => readTable(decodeSafetensors(bytes).tensors, table, 'f')).toThrow(/tensor "w" has dtype I32; weights must be F32, F16, BF16, F64/);
  });

  it('refuses a buffer of the wrong length', () => {
    expect(() => tableTensors(table, new Float32Array(10))).toThrow(/10 floats but the tensor table needs 128/);
  });
});
